// swift-tools-version:6.0
import PackageDescription

// Dependency arrows point one way:
//   transitiond (CLI) → Server, Inputs, DaemonMetrics → ServerPorts → Engine
//   (the server and the engine's hosts and metrics meet at ServerPorts: none of them depends on another)
//   Server (the executor and its transports) → ServerCore (the rules; no sockets) → EventStream → Engine
//   Inputs → EvdevInput → CLibevdev (system libevdev); Inputs → Replay, TouchFilter, Recordings → Engine
//   DaemonMetrics → swift-metrics/swift-prometheus
//   transitiond (CLI) → Recordings / TransitionConfig (→ TouchFilter's rules) / Replay / ReplayPlot → Engine; transitiond (CLI) → StreamClient
//   ServerCore / EventStream / StreamClient → WireProtocol → WireFormat (the wire knows no engine:
//   EventStream maps the engine's types to the wire's)
//   SystemSupport (clocks, threads, signals, folders) under the hosts, the readers, the client and the CLI
/// The release link's function order (see the `transitiond` target).
let linkOrderFile = Context.packageDirectory + "/Sources/transitiond/LinkOrder/startup.order"

/// The release build of the daemon's own modules without the run-time
/// exclusivity checks: `swift_beginAccess` on every class property a hot
/// path touches was a fifth of the live path's instructions per event
/// (bench/live-callgrind.sh). Debug builds, which every test runs, keep
/// them, so a violation is still caught there. Not on the targets of the
/// StreamClient library (a package depending on it may not use unsafe flags).
let daemonSwiftSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "transitiond",
    products: [
        .executable(name: "transitiond", targets: ["transitiond"]),
        // The Swift client library: connect, decode the stream, mirror its state (the messages
        // are WireProtocol's: a client imports both).
        .library(name: "StreamClient", targets: ["StreamClient", "WireProtocol"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // Pure: touch frames → gestures → transitions → events. Standard library only.
        .target(name: "Engine", swiftSettings: daemonSwiftSettings),
        // evemu and `libinput record` readers, evemu writer.
        .target(name: "Recordings", dependencies: ["Engine", "SystemSupport"], swiftSettings: daemonSwiftSettings),
        // TOML config → engine configuration, with file:line errors.
        .target(name: "TransitionConfig", dependencies: ["Engine", "TouchFilter"], swiftSettings: daemonSwiftSettings),
        // The engine's events and snapshots as the wire's messages (design "Events"): the mapping.
        .target(name: "EventStream", dependencies: ["Engine", "WireProtocol"], swiftSettings: daemonSwiftSettings),
        // Plays recordings through the engine, one step at a time (no clock).
        .target(name: "Replay", dependencies: ["Engine"], swiftSettings: daemonSwiftSettings),
        // What the daemon needs of the system outside an event loop: CLOCK_MONOTONIC as a Swift
        // Clock, a manual clock, the pacing rule; native threads, the pipe that wakes them,
        // signals, the lock.
        .target(name: "SystemSupport", dependencies: ["CProcess"]),
        // prctl(2) for SystemSupport: Swift does not import a variadic C function.
        .target(name: "CProcess"),
        // The service manager's protocols without libsystemd: socket activation, sd_notify and
        // the watchdog, journald's log form.
        .target(name: "ServiceManager", dependencies: [.product(name: "Logging", package: "swift-log")], swiftSettings: daemonSwiftSettings),
        // Strict JSON reading for the wire (commands, events). Standard library only.
        .target(name: "WireFormat"),
        // The protocol (docs/protocol.md) as types: every message and command, their encoder and decoder.
        // Standard library only; no engine.
        .target(name: "WireProtocol", dependencies: ["WireFormat"]),
        // The client side of the socket: a state mirror, a blocking connection, the socket path.
        .target(name: "StreamClient", dependencies: ["SystemSupport", "WireProtocol"]),
        // What the server and the rest of the daemon exchange: the engine host's protocol (commands
        // in, events out, its status), and the counts that metrics read. No I/O.
        .target(name: "ServerPorts", dependencies: ["Engine", "WireProtocol"], swiftSettings: daemonSwiftSettings),
        // The socket server's rules, with no sockets: `ServerStateMachine` (clients, commands,
        // back-pressure, access, reloads, shutdown), each client's outbox, the line framer, the
        // access policy, the refusal log's rate limit, the daemon's reply lines.
        .target(name: "ServerCore", dependencies: [
            "Engine", "EventStream", "WireProtocol", "ServerPorts",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: daemonSwiftSettings),
        // The socket server run: the executor on one event loop and its transports (the Unix
        // socket, the WebSocket listener with its HTTP side and bundled pages, the metrics
        // listener), with what they ask of the kernel (peer credentials, socket files).
        .target(name: "Server", dependencies: [
            "SystemSupport", "Engine", "EventStream", "WireProtocol", "ServerPorts", "ServerCore",
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], resources: [
            .embedInCode("index.html"), .embedInCode("transitiond.js"), .embedInCode("transitiond.d.ts"),
        ], swiftSettings: daemonSwiftSettings),
        // libevdev (apt libevdev-dev) as a C module: devices, reading, uinput.
        .systemLibrary(name: "CLibevdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // SVG plots of what a replay did (progress, velocity, thresholds, releases). Standard library only.
        .target(name: "ReplayPlot", swiftSettings: daemonSwiftSettings),
        // The touch filter: which touches of a grabbed panel the UI gets, as a well-formed
        // multitouch stream for its uinput clone. Pure: no I/O, no clock.
        .target(name: "TouchFilter", dependencies: ["Engine"], swiftSettings: daemonSwiftSettings),
        // Live input: discover, open, describe, grab and read evdev devices; uinput devices.
        .target(name: "EvdevInput", dependencies: ["CLibevdev", "SystemSupport", "Engine"], swiftSettings: daemonSwiftSettings),
        // The engine's hosts on the server's loop: engine time on an event loop (`EngineDriver`,
        // one driver for both), the replay's host, and live input's (`LiveInputMachine`, the rules,
        // and `DeviceHost`, its executor; the flight recorder, the uinput copies).
        .target(name: "Inputs", dependencies: [
            "SystemSupport", "Replay", "EvdevInput", "Recordings", "TouchFilter", "ServerPorts", "Engine",
            // The filter's status for hello (`FilterStatus`) is the wire's type.
            "WireProtocol",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: daemonSwiftSettings),
        // Prometheus metrics (swift-metrics with the swift-prometheus backend): the server's, the
        // host's and the engine's counts, published at each scrape.
        .target(name: "DaemonMetrics", dependencies: [
            "Engine", "ServerPorts", "WireProtocol",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], swiftSettings: daemonSwiftSettings),
        .executableTarget(name: "transitiond", dependencies: [
            "Engine", "Recordings", "TransitionConfig", "EventStream", "Replay", "ServerCore", "Server", "ServerPorts",
            "StreamClient", "EvdevInput", "Inputs", "SystemSupport", "WireProtocol",
            "ServiceManager", "TouchFilter", "ReplayPlot", "DaemonMetrics",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ], exclude: ["LinkOrder"], swiftSettings: daemonSwiftSettings, linkerSettings: [
            // The release binary as a kiosk board holds it (docs/benchmarks.md, "Footprint"): the
            // toolchain's lld packs the relative relocations (DT_RELR, glibc 2.36) so the loader no
            // longer reads 1.3 MB of them at start, folds identical functions, exports no symbols
            // (nothing loads the daemon as a library), and lays out first, together, the functions
            // that start-up and a replay run (LinkOrder/startup.order, made by bin/link-order), so
            // an idle daemon keeps a few hundred pages of code resident instead of thousands.
            .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                          "-Xlinker", "--icf=all", "-Xlinker", "--no-export-dynamic",
                          "-Xlinker", "--symbol-ordering-file=\(linkOrderFile)", "-Xlinker", "--no-warn-symbol-ordering"],
                         .when(platforms: [.linux], configuration: .release)),
        ]),
        // The live path's cost per event with the flight recorder, the touch filter and its rules (bench/LivePath).
        .executableTarget(name: "bench-live-path", dependencies: ["Inputs", "Replay", "Recordings", "TouchFilter", "Engine"],
                          path: "bench/LivePath"),
        // The config reader's time per byte on documents of several shapes and sizes (bench/TOMLRead).
        // The live path on the host, no touchscreen: CPU and (under callgrind) instructions per event (bench/LiveRun).
        .executableTarget(name: "bench-live-run", dependencies: ["Inputs", "EvdevInput", "Recordings", "Server", "ServerCore",
                                                                  "SystemSupport", "TransitionConfig", "Engine",
                                                                  .product(name: "Logging", package: "swift-log"),
                                                                  .product(name: "NIOCore", package: "swift-nio"),
                                                                  .product(name: "NIOPosix", package: "swift-nio")],
                          path: "bench/LiveRun"),
        .executableTarget(name: "bench-toml-read", dependencies: ["TransitionConfig"], path: "bench/TOMLRead"),
        // The Swift client example of docs/examples (built with the package, so it keeps compiling).
        .executableTarget(name: "stream-client-example", dependencies: ["StreamClient"], path: "docs/examples/swift"),
        // The Autobahn|Testsuite harness: a WebSocket echo with the daemon's own handlers (Tests/autobahn).
        .executableTarget(name: "websocket-echo", dependencies: [
            "Server", "ServerCore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
        ], path: "Tests/autobahn/Echo"),
        // Test support shared by the test targets: project paths, the real binary run as a process,
        // a line client, temporary paths, a seeded generator, bounded waits.
        .target(name: "TestSupport", dependencies: ["SystemSupport", "TouchFilter"], path: "Tests/TestSupport"),
        .testTarget(name: "EngineTests", dependencies: ["Engine"]),
        .testTarget(name: "TouchFilterTests", dependencies: ["TouchFilter", "Engine", "TestSupport"]),
        .testTarget(name: "ReplayPlotTests", dependencies: ["ReplayPlot"]),
        .testTarget(name: "RecordingsTests", dependencies: ["Recordings", "Engine", "TestSupport"]),
        .testTarget(name: "ServerTests", dependencies: [
            "ServerCore", "Server", "ServerPorts", "Engine", "WireProtocol", "TestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "DaemonMetricsTests", dependencies: ["DaemonMetrics", "ServerPorts", "Engine", "WireProtocol"]),
        .testTarget(name: "EventStreamTests", dependencies: ["EventStream", "Engine", "WireProtocol"]),
        .testTarget(name: "TransitionConfigTests", dependencies: ["TransitionConfig", "Engine", "TouchFilter", "TestSupport"]),
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat", "TestSupport"]),
        .testTarget(name: "ServiceManagerTests", dependencies: [
            "ServiceManager", "TestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "WireProtocolTests", dependencies: ["WireProtocol", "WireFormat", "TestSupport"]),
        .testTarget(name: "StreamClientTests", dependencies: ["StreamClient", "WireProtocol", "TestSupport"]),
        .testTarget(name: "EvdevInputTests", dependencies: [
            "EvdevInput", "Inputs", "CLibevdev", "Engine", "Recordings", "ServerCore", "Server", "ServerPorts", "TestSupport",
            "TransitionConfig", "TouchFilter", "Replay", "SystemSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TransitiondTests", dependencies: [
            "Engine", "Recordings", "TransitionConfig", "EventStream", "Replay", "TestSupport",
            "Inputs", "SystemSupport", "TouchFilter",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
    ]
)

// MARK: - Fuzz targets

// libFuzzer targets (Tests/fuzz, docs/fuzzing.md), one per reader of outside input and one for the
// engine. Declared only when TRANSITIOND_FUZZ is set: they have no `main` of their own (libFuzzer's
// is linked in by `--sanitize=fuzzer`), so a plain `swift build` must not see them. `bin/fuzz`
// builds them into a scratch path of their own.
if Context.environment["TRANSITIOND_FUZZ"] != nil {
    package.targets += [
        // What the fuzz targets share: the input as a byte cursor, the engine's invariants, a
        // recording played through the engine.
        .target(name: "FuzzSupport", dependencies: ["Engine", "Replay", "Recordings"],
                path: "Tests/fuzz/Support"),
        .executableTarget(name: "fuzz-evemu", dependencies: ["FuzzSupport", "Recordings"],
                          path: "Tests/fuzz/Targets/evemu"),
        .executableTarget(name: "fuzz-evemu-pair", dependencies: ["FuzzSupport", "Recordings"],
                          path: "Tests/fuzz/Targets/evemu-pair"),
        .executableTarget(name: "fuzz-libinput-record", dependencies: ["FuzzSupport", "Recordings"],
                          path: "Tests/fuzz/Targets/libinput-record"),
        .executableTarget(name: "fuzz-config", dependencies: ["FuzzSupport", "TransitionConfig"],
                          path: "Tests/fuzz/Targets/config"),
        .executableTarget(name: "fuzz-command", dependencies: ["FuzzSupport", "ServerCore", "WireProtocol"],
                          path: "Tests/fuzz/Targets/command"),
        .executableTarget(name: "fuzz-stream", dependencies: ["FuzzSupport", "StreamClient", "WireProtocol"],
                          path: "Tests/fuzz/Targets/stream"),
        .executableTarget(name: "fuzz-engine", dependencies: ["FuzzSupport", "Engine"],
                          path: "Tests/fuzz/Targets/engine"),
    ]
}
