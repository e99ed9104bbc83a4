// swift-tools-version:6.0
import PackageDescription

// Dependency arrows point one way:
//   transitiond (CLI) → TransitionServer / Replay / Recordings / TransitionConfig / EventStream → TransitionEngine
//   transitiond (CLI) → LiveInput → TransitionServer + EvdevInput → CLibevdev (system libevdev), TransitionEngine
let package = Package(
    name: "transitiond",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "transitiond", targets: ["transitiond"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // Pure: touch frames → gestures → transitions → events. Standard library only.
        .target(name: "TransitionEngine"),
        // evemu and `libinput record` readers, evemu writer.
        .target(name: "Recordings", dependencies: [
            "TransitionEngine",
            .product(name: "Yams", package: "Yams"),
        ]),
        // TOML config → engine configuration, with file:line errors.
        .target(name: "TransitionConfig", dependencies: ["TransitionEngine"]),
        // NDJSON encoding of engine events (the wire format of design "Events").
        .target(name: "EventStream", dependencies: ["TransitionEngine"]),
        // Drives the engine from recordings on an injected clock.
        .target(name: "Replay", dependencies: ["TransitionEngine"]),
        // Strict JSON reading for the wire (commands, events). Standard library only.
        .target(name: "WireFormat"),
        // The client side of the socket: message decoding, a state mirror, a blocking connection.
        .target(name: "StreamClient", dependencies: ["WireFormat", "EventStream", "TransitionEngine"]),
        // The Unix socket server: clients, commands, back-pressure, access control.
        .target(name: "TransitionServer", dependencies: [
            "TransitionEngine", "EventStream", "Replay", "WireFormat",
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // libevdev (apt libevdev-dev) as a C module: devices, reading, uinput.
        .systemLibrary(name: "CLibevdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // Live input: discover, open, describe, grab and read evdev devices; uinput devices.
        .target(name: "EvdevInput", dependencies: ["CLibevdev", "TransitionEngine"]),
        // Live input served: the device host of the socket server, the evemu recorder.
        .target(name: "LiveInput", dependencies: [
            "EvdevInput", "TransitionServer", "TransitionEngine", "Recordings",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "transitiond", dependencies: [
            "TransitionEngine", "Recordings", "TransitionConfig", "EventStream", "Replay", "TransitionServer",
            "StreamClient", "EvdevInput", "LiveInput",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Test support shared by the test targets that run the real binary.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TransitionEngineTests", dependencies: ["TransitionEngine"]),
        .testTarget(name: "RecordingsTests", dependencies: ["Recordings", "TransitionEngine"]),
        .testTarget(name: "TransitionServerTests", dependencies: [
            "TransitionServer",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "EventStreamTests", dependencies: ["EventStream", "TransitionEngine"]),
        .testTarget(name: "TransitionConfigTests", dependencies: ["TransitionConfig", "TransitionEngine"]),
        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat"]),
        .testTarget(name: "StreamClientTests", dependencies: ["StreamClient", "WireFormat", "EventStream", "TransitionEngine", "TestSupport"]),
        .testTarget(name: "EvdevInputTests", dependencies: [
            "EvdevInput", "LiveInput", "CLibevdev", "TransitionEngine", "Recordings", "TransitionServer",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "TransitiondTests", dependencies: [
            "TransitionEngine", "Recordings", "TransitionConfig", "EventStream", "Replay", "TestSupport",
        ]),
    ]
)
