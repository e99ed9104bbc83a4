import Engine
import TouchFilter

/// The schema of transitiond's config file (design "Config"): the top level
/// and its tables. Every key is declared once, typed, in the key tables
/// below (`TransitionKeys`, `ServerKeys`, ...); the validator checks their
/// specs, `ConfigBuilder` reads through them and `ConfigRenderer` writes
/// through them. To add a key, declare it in its table and list it in the
/// table's `table`; to add a section (as `[server]` was), add a key table
/// with a `ChildSection` and list it among `root`'s children, then read it
/// in `ConfigBuilder` and write it in `ConfigRenderer`.
enum ConfigSchema {
    static let root = SectionSchema(
        header: "the top level",
        keys: [TopLevelKeys.frameRate.spec],
        children: [TransitionKeys.table, ServerKeys.table, InputKeys.table, FilterKeys.table, MetricsKeys.table,
                   IdentityKeys.table]
    )
}

// MARK: - Choices

/// The `gesture` of a `[[transition]]`: which of the engine's gestures, before
/// its own keys say the rest.
enum GestureName: String, CaseIterable, Sendable {
    case edgePan = "edge-pan"
    case swipe
    case pinch

    /// The name of a configured gesture.
    init(_ gesture: GestureKind) {
        switch gesture {
        case .edgePan: self = .edgePan
        case .swipe: self = .swipe
        case .pinch: self = .pinch
        }
    }
}

/// The `completion_curve` of a `[[transition]]`: a timing curve, or a spring
/// (whose `damping_ratio` and `stiffness` follow).
enum CompletionCurveName: RawRepresentable, CaseIterable, Equatable, Sendable {
    case timing(TimingCurve)
    case spring

    static let allCases = TimingCurve.allCases.map(Self.timing) + [.spring]

    init?(rawValue: String) {
        guard let name = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = name
    }

    /// The name of a configured completion curve.
    init(_ curve: CompletionCurve) {
        switch curve {
        case .timing(let timing): self = .timing(timing)
        case .spring: self = .spring
        }
    }

    var rawValue: String {
        switch self {
        case .timing(let curve): return curve.rawValue
        case .spring: return "spring"
        }
    }
}

// MARK: - Top level

/// The keys of the config's top level.
enum TopLevelKeys {
    // Bounds that keep what follows finite and bounded: an animation has at
    // most duration ÷ completion_speed = 600 s of frames, a spring settles,
    // a keyframe's values stay finite.
    static let frameRate = ConfigKey<Double>("frame_rate", .number(.from(1, through: 1000)), default: .value(60))
}

// MARK: - [[transition]]

/// The keys of a `[[transition]]`: the gesture it is bound to, then how it
/// decides and completes. A key whose condition looks at `gesture` or
/// `completion_curve` applies only to those gestures or curves.
enum TransitionKeys {
    static let table = ChildSection(tableName, .arrayOfTables, keys: [
        name, gesture, edge, swipeDirection, pinchDirection, edgePanFingers, swipeFingers, pinchFingers,
        edgeMargin, edgeRange, edgeMarginMM, activation, activationMM, distance, distanceMM,
        finishThreshold, flickVelocity, duration, completionSpeed, completionCurve, dampingRatio, stiffness,
        interruptible, reportPosition, enabled, device,
        snapPoints, pages, bidirectional, longSwipes, decelerationRate, overshoot,
    ], children: [KeyframeKeys.table])
    /// The name `[[transition.keyframe]]` is nested under.
    static let tableName = "transition"

    static let name = ConfigKey<String>("name", .string(.identifier), default: .required)
    static let gesture = ConfigKey<GestureName>("gesture", .choice(), default: .required)

    // MARK: The gesture's own keys

    static let edge = ConfigKey<Edge>("edge", .choice(), when: gesture.isOneOf(.edgePan), default: .required)
    static let swipeDirection = ConfigKey<SwipeDirection>("direction", .choice(),
                                                          when: gesture.isOneOf(.swipe), default: .required)
    static let pinchDirection = ConfigKey<PinchDirection>(swipeDirection.name, .choice(),
                                                          when: gesture.isOneOf(.pinch), default: .required)
    static let edgePanFingers = ConfigKey<Int>("fingers", .integer(1...10),
                                               when: gesture.isOneOf(.edgePan), default: .value(1))
    static let swipeFingers = ConfigKey<Int>(edgePanFingers.name, .integer(1...10),
                                             when: gesture.isOneOf(.swipe), default: .value(3))
    static let pinchFingers = ConfigKey<Int>(edgePanFingers.name, .integer(2...2),
                                             when: gesture.isOneOf(.pinch), default: .value(2),
                                             note: "a pinch uses exactly 2 fingers")
    static let edgeMargin = ConfigKey<Double>("edge_margin", .number(.above(0, upTo: 0.5)),
                                              when: gesture.isOneOf(.edgePan), default: .value(0.05))
    static let edgeRange = ConfigKey<[Double]>(
        "edge_range", ValueCodec<Double>.number(.from(0, through: 1)).array,
        when: gesture.isOneOf(.edgePan), default: .value([0, 1]),
        summary: "[start, end]: the part of the edge, 0 to 1 from its top or left end")

    // MARK: Lengths

    static let edgeMarginMM = ConfigKey<Double?>(
        "edge_margin_mm", .number(.above(0, upTo: 1000)), when: gesture.isOneOf(.edgePan),
        summary: "millimetres on the panel, instead of \(edgeMargin.name) (needs the axes' resolution)")
    static let activation = ConfigKey<Double>("activation", .number(.from(0, below: 1)), default: .value(0.02))
    static let activationMM = ConfigKey<Double?>("activation_mm", .number(.above(0, upTo: 1000)),
                                                 summary: "millimetres, instead of \(activation.name)")
    static let distance = ConfigKey<Double>(
        "distance", .number(.above(0, upTo: 10)),
        default: .computed("1.0, or 0.5 for a pinch in") { section in
            TransitionSpec.defaultDistance(for: ConfigBuilder.gesture(from: section))
        })
    static let distanceMM = ConfigKey<Double?>("distance_mm", .number(.above(0, upTo: 10_000)),
                                               when: gesture.isOneOf(.edgePan, .swipe),
                                               summary: "millimetres, instead of \(distance.name)")

    // MARK: Decision and completion

    static let finishThreshold = ConfigKey<Double>("finish_threshold", .number(.from(0, through: 1)),
                                                   default: .value(0.5))
    static let flickVelocity = ConfigKey<Double>("flick_velocity", .number(.above(0, upTo: 1000)), default: .value(1.0))
    static let duration = ConfigKey<Double>("duration", .number(.above(0, upTo: 60)), default: .value(0.4))
    static let completionSpeed = ConfigKey<Double>("completion_speed", .number(.from(0.1, through: 100)),
                                                   default: .value(1.0))
    static let completionCurve = ConfigKey<CompletionCurveName>("completion_curve", .choice(),
                                                                default: .value(.timing(.easeOut)))
    static let dampingRatio = ConfigKey<Double>("damping_ratio", .number(.from(0.05, through: 10)),
                                                when: completionCurve.isOneOf(.spring), default: .value(1.0))
    static let stiffness = ConfigKey<Double>("stiffness", .number(.from(1, through: 100_000)),
                                             when: completionCurve.isOneOf(.spring), default: .value(300))
    static let interruptible = ConfigKey<Bool>("interruptible", .boolean, default: .value(true))
    static let reportPosition = ConfigKey<Bool>("report_position", .boolean, default: .value(false),
                                                summary: "began/changed/ended carry the fingers' centroid on the screen")
    static let enabled = ConfigKey<Bool>("enabled", .boolean, default: .value(true),
                                         summary: "recognised from the start; the enable command turns it on and off")
    static let device = ConfigKey<String?>(
        "device", .string(.deviceReference(maxBytes: 4096)),
        summary: "only on this touchscreen: one of \(InputKeys.table.schema.header) \(InputKeys.device.name)'s paths or links, or its device name")

    // MARK: Snap points (the rest only with snap_points or pages; checked by ConfigBuilder)

    static let snapPoints = ConfigKey<[Double]?>(
        "snap_points", ValueCodec<Double>.number(.from(0, through: 1)).array,
        summary: "the progress values it may rest at, ascending, at least two, each 0 to 1 (e.g. [0, 0.5, 1])")
    static let pages = ConfigKey<Int?>("pages", .integer(2...1000),
                                       summary: "N evenly spaced snap points 0, 1/(N-1), ..., 1, instead of \(snapPoints.name)")
    static let bidirectional = ConfigKey<Bool>(
        "bidirectional", .boolean, default: .value(false),
        summary: "with snap points: driven either way along its axis; an edge-pan resting away from its first point starts anywhere")
    static let longSwipes = ConfigKey<Bool>("long_swipes", .boolean, default: .value(false),
                                            summary: "with snap points: one gesture may pass several points (else one page per gesture)")
    static let decelerationRate = ConfigKey<Double>(
        "deceleration_rate", .number(.above(0.5, upTo: 0.9999)), default: .value(SnapPoints.normalDeceleration),
        summary: "with snap points: how a flick is projected, iOS's rate (0.998 normal, 0.99 fast)")
    static let overshoot = ConfigKey<Overshoot>("overshoot", .choice(), default: .value(.clamp),
                                                summary: "with snap points: past the first and last point, clamp | rubber-band")
}

// MARK: - [[transition.keyframe]]

/// The keys of a `[[transition.keyframe]]`: a property animated over progress.
enum KeyframeKeys {
    static let table = ChildSection("keyframe", .arrayOfTables, under: TransitionKeys.tableName,
                                    keys: [property, start, duration, from, to, curve])

    static let property = ConfigKey<String>("property", .string(.identifier), default: .required)
    static let start = ConfigKey<Double>("start", .number(.from(0, through: 1)), default: .value(0))
    // start + duration <= 1 is checked by ConfigBuilder.
    static let duration = ConfigKey<Double>("duration", .number(.above(0)),
                                            default: .computed("1 - \(start.name)") { section in 1 - section[start] })
    static let from = ConfigKey<Double>("from", .number(.from(-1e9, through: 1e9)), default: .value(0))
    static let to = ConfigKey<Double>("to", .number(.from(-1e9, through: 1e9)), default: .value(1))
    static let curve = ConfigKey<TimingCurve>("curve", .choice(), default: .value(.linear))
}

// MARK: - [server]

/// The keys of `[server]`: the socket and who may use it, and the WebSocket
/// listener. Each defaults to `ServerSettings.standard`'s value.
enum ServerKeys {
    static let table = ChildSection("server", .table, keys: [
        socket, socketMode, maxClients, backlogLimit, allowUIDs, allowGroups, webSocket, allowOrigins,
        maxWebSocketClients, maxClientsPerPeer,
    ])

    /// The largest id a uid or gid may be: 2^32 - 2 (2^32 - 1 is `(uid_t)-1`, "no id").
    static let largestID = 4_294_967_294
    /// `sun_path` holds 108 bytes with the terminating NUL.
    static let socketPathLimit = 107

    /// A uid or gid, `0...largestID`.
    private static let id = ValueCodec<Int>.integer(0...largestID).map({ UInt32(exactly: $0) }, { Int($0) })
    /// A group by name or by gid.
    private static let group = ValueCodec<GroupReference>(
        kind: .either([.string(.groupName), id.kind]),
        decode: { value in
            if let name = ValueCodec<String>.text(of: value) { return .name(name) }
            return id.decode(value).map(GroupReference.id)
        },
        encode: { group in
            switch group {
            case .id(let gid): return id.encode(gid)
            case .name(let name): return .string(name)
            }
        })
    private static let standard = ServerSettings.standard

    static let socket = ConfigKey<String?>("socket", .string(.absolutePath(maxBytes: socketPathLimit)))
    static let socketMode = ConfigKey<UInt32>(
        "socket_mode",
        ValueCodec<String>.string(.fileMode(mustInclude: 0o600, reason: "the daemon could not use its own socket"))
            .map(StringRule.fileMode, StringRule.fileModeText),
        default: .value(standard.socketMode),
        summary: "octal, at most \"0777\", with owner read+write \"0600\"")
    static let maxClients = ConfigKey<Int>("max_clients", .integer(1...65_536), default: .value(standard.maxClients))
    static let maxWebSocketClients = ConfigKey<Int>(
        "max_websocket_clients", .integer(1...65_536), default: .value(standard.maxWebSocketClients),
        summary: "clients on the WebSocket at once, 1 to 65536 (a limit of its own: they never take the Unix socket's)")
    static let maxClientsPerPeer = ConfigKey<Int?>(
        "max_clients_per_peer", ValueCodec<Int>.integer(1...65_536),
        summary: "clients of one uid (or, on the WebSocket, one address whose uid is not known) on each transport, 1 to 65536 (default: all but a quarter of the transport's limit)")
    static let backlogLimit = ConfigKey<Int>("backlog_limit", .integer(4_096...1_073_741_824),
                                             default: .value(standard.backlogLimit),
                                             summary: "bytes, 4096 to 1073741824")
    static let allowUIDs = ConfigKey<[UInt32]>("allow_uids", id.array, default: .value(standard.allowUIDs),
                                               summary: "uids, each 0 to \(largestID)")
    static let allowGroups = ConfigKey<[GroupReference]>("allow_groups", group.array,
                                                         default: .value(standard.allowGroups),
                                                         summary: "group names, or gids 0 to \(largestID)")
    static let webSocket = ConfigKey<ListenAddress?>(
        "websocket", .listenAddress, summary: "\"HOST:PORT\" for the WebSocket and HTTP listener; off when absent")
    static let allowOrigins = ConfigKey<[String]>(
        "allow_origins", ValueCodec<String>.string(.origin).array, default: .value(standard.allowOrigins),
        summary: "browser origins the WebSocket accepts besides its own, \"*\" for any")
}

extension ValueCodec where Value == ListenAddress {
    /// `HOST:PORT`, as `ListenAddress` reads and writes it.
    static var listenAddress: Self {
        ValueCodec<String>.string(.listenAddress).map({ try? ListenAddress.parse($0).get() }, \.description)
    }
}

// MARK: - [input]

/// The keys of `[input]`: which panels, how they are read, and their geometry.
/// Each defaults to `InputSettings.standard`'s value.
enum InputKeys {
    static let table = ChildSection("input", .table, keys: [
        device, mode, filterHold, flightRecorder, flightRecorderBytes, keepMisfires, misfireSpool, misfireSpoolFiles,
        misfireSpoolBytes, misfireInterval, rotation, flipX, flipY, calibration, maxEdgeExclusion, minReportRate,
    ])

    private static let standard = InputSettings.standard

    /// One selector or path as a string, several paths as an array.
    static let device = ConfigKey<[String]>(
        "device",
        ValueCodec(kind: .either([.string(.deviceSelector(maxBytes: 4096)),
                                  .array(of: .string(.absolutePath(maxBytes: 4096)))]),
                   decode: { value in
                       ValueCodec<String>.text(of: value).map { [$0] }
                           ?? ValueCodec<String>.string(.any).array.decode(value)
                   },
                   encode: { devices in
                       devices.count == 1 ? .string(devices[0]) : .array(devices.map { .string($0) })
                   }),
        default: .value(standard.device),
        summary: "\"auto\" (the first touchscreen), \"all\" (every touchscreen), a device path or by-id/by-path link, or an array of paths")
    static let mode = ConfigKey<InputMode>(
        "mode", .choice(), default: .value(standard.mode),
        summary: "shared (others read the panel too) | grab (only the daemon) | filter (the UI gets a copy without the gesture touches)")
    static let filterHold = ConfigKey<Double>(
        "filter_hold", .number(.above(0, upTo: 1)), default: .value(standard.filterHold),
        summary: "filter mode (also from --mode filter): seconds a touch in a gesture's start area is held back from the UI, at most 1")
    static let flightRecorder = ConfigKey<Double>(
        "flight_recorder", .number(.from(0, through: 3600)), default: .value(standard.flightRecorder),
        summary: "seconds of raw input kept per panel for the dump command, 0 to 3600 (0: off)")
    static let flightRecorderBytes = ConfigKey<Int>(
        "flight_recorder_bytes", .integer(65_536...33_554_432), default: .value(standard.flightRecorderBytes),
        summary: "the most memory the flight recorder takes per panel, 65536 to 33554432 bytes (16 bytes an event)")
    // keep_misfires without a flight recorder is an error, checked by ConfigBuilder.
    static let keepMisfires = ConfigKey<Bool>(
        "keep_misfires", .boolean, default: .value(standard.misfires.keep),
        summary: "the flight recorder writes a dump by itself when a gesture went wrong (a late cancel, a long rejected travel, a panel lost mid-gesture)")
    static let misfireSpool = ConfigKey<String>(
        "misfire_spool", .string(.absolutePath(maxBytes: 4000)), default: .value(standard.misfires.folder),
        summary: "the folder those dumps go to (made if missing)")
    static let misfireSpoolFiles = ConfigKey<Int>(
        "misfire_spool_files", .integer(1...10_000), default: .value(standard.misfires.maxFiles),
        summary: "the most dumps kept there, 1 to 10000: the oldest go first")
    static let misfireSpoolBytes = ConfigKey<Int>(
        "misfire_spool_bytes", .integer(1 << 20...1 << 34), default: .value(standard.misfires.maxBytes),
        summary: "the most bytes they take together, 1048576 to 17179869184: the oldest go first")
    static let misfireInterval = ConfigKey<Double>(
        "misfire_interval", .number(.from(1, through: 86_400)), default: .value(standard.misfires.interval),
        summary: "the least seconds between two such dumps, 1 to 86400")
    /// Read as degrees; `ConfigBuilder` allows only quarter turns.
    static let rotation = ConfigKey<Int>("rotation", .integer(0...270), default: .value(standard.rotation.rawValue),
                                         summary: "0, 90, 180 or 270: the panel's mounting angle, clockwise")
    static let flipX = ConfigKey<Bool>("flip_x", .boolean, default: .value(standard.flipX))
    static let flipY = ConfigKey<Bool>("flip_y", .boolean, default: .value(standard.flipY))
    static let maxEdgeExclusion = ConfigKey<Double>(
        "max_edge_exclusion", .number(.from(0, through: 1)), default: .value(standard.maxEdgeExclusion),
        summary: "the most of each screen edge, 0 to 1, that the UI's exclusion regions (the exclude command) may cover together, along the edge, counting regions within the edge-pans' edge_margin of it")
    static let minReportRate = ConfigKey<Double>(
        "min_report_rate", .number(.above(0, upTo: 1000)), default: .value(standard.minReportRate),
        summary: "Hz: a panel whose median report rate while a contact moves is below this is degraded (logged once, said in state, hello and metrics), at most 1000")
    static let calibration = ConfigKey<[Double]?>(
        "calibration", ValueCodec<Double>.number(.any).array,
        summary: "[a, b, c, d, e, f]: libinput's matrix (default: the device's LIBINPUT_CALIBRATION_MATRIX)")
}

// MARK: - [filter]

/// The keys of `[filter]`: what of a panel the UI's copy never gets in
/// filter mode, besides the touches a transition claims (`FilterRules`).
/// Each defaults to `FilterRules.none`'s value: every key off.
enum FilterKeys {
    static let table = ChildSection(tableName, .table, keys: [
        maxContacts, block, ghostTouches, stuckAfter, palmMillimetres, transform,
    ], children: [FilterRegionKeys.table])
    /// The name `[[filter.region]]` is nested under.
    static let tableName = "filter"
    /// The most contacts `max_contacts` may name: the panels' usual 10.
    static let contactRange = FilterLimits.contacts
    /// The most `[[filter.region]]` tables a config may have.
    static let maxRegions = FilterLimits.regions

    private static let none = FilterRules.none

    /// A list of gestures, each a `BlockedGesture`'s raw value (no repeats:
    /// checked by `ConfigBuilder`).
    static let gestures = ValueCodec<BlockedGesture>.choice().array

    static let maxContacts = ConfigKey<Int?>(
        "max_contacts", .integer(contactRange),
        summary: "the most touches the UI's copy has down at once, \(contactRange.lowerBound) to \(contactRange.upperBound); one more is withheld until it lifts (default: as many as the panel has)")
    static let block = ConfigKey<[BlockedGesture]>(
        "block", gestures, default: .value(BlockedGesture.ordered(none.block)),
        summary: "gestures no transition claims, withheld from the UI: each " + BlockedGesture.allCases.map(\.rawValue).joined(separator: " | "))
    static let ghostTouches = ConfigKey<GhostTouchPolicy>(
        "ghost_touches", .choice(), default: .value(none.ghostTouches),
        summary: "off | quarantine (periodic zero-motion taps at one place are not forwarded)")
    static let stuckAfter = ConfigKey<Double?>(
        "stuck_after", .number(.above(0, upTo: 3600)),
        summary: "seconds without a report (the panel otherwise silent) after which a touch is ended, > 0 and <= 3600 (default: never)")
    static let palmMillimetres = ConfigKey<Double?>(
        "palm_mm", .number(.above(0, upTo: 500)),
        summary: "a touch wider than this many millimetres is a palm, > 0 and <= 500 (default: only what the panel reports as a palm)")
    static let transform = ConfigKey<Bool>(
        "transform", .boolean, default: .value(none.transform),
        summary: "the copy carries the screen's geometry ([input] rotation, flips, calibration) instead of the panel's raw positions")
}

// MARK: - [[filter.region]]

/// The keys of a `[[filter.region]]`: a rectangle in screen units and the
/// `max_contacts` and `block` in force inside it (the table's when absent).
/// `x0 < x1` and `y0 < y1`, the count of regions and repeats in `block`
/// are checked by `ConfigBuilder`.
enum FilterRegionKeys {
    static let table = ChildSection("region", .arrayOfTables, under: FilterKeys.tableName,
                                    keys: [x, y, maxContacts, block])

    private static let span = ValueCodec<Double>.number(.from(0, through: 1)).array

    static let x = ConfigKey<[Double]>("x", span, default: .required,
                                       summary: "[x0, x1]: from the screen's left, 0 to 1, x0 < x1")
    static let y = ConfigKey<[Double]>("y", span, default: .required,
                                       summary: "[y0, y1]: from the screen's top, 0 to 1, y0 < y1")
    static let maxContacts = ConfigKey<Int?>(
        FilterKeys.maxContacts.name, .integer(FilterKeys.contactRange),
        summary: "\(FilterKeys.contactRange.lowerBound) to \(FilterKeys.contactRange.upperBound), for touches that begin here (default: [filter]'s)")
    static let block = ConfigKey<[BlockedGesture]?>(
        FilterKeys.block.name, FilterKeys.gestures,
        summary: "for gestures that begin here, each " + BlockedGesture.allCases.map(\.rawValue).joined(separator: " | ") + " (default: [filter]'s)")
}

// MARK: - [metrics]

/// The keys of `[metrics]`: whether Prometheus metrics are served, and where.
enum MetricsKeys {
    static let table = ChildSection("metrics", .table, keys: [enabled, listen])

    static let enabled = ConfigKey<Bool>(
        "enabled", .boolean, default: .value(MetricsSettings.standard.enabled),
        summary: "serve Prometheus metrics at /metrics (on the WebSocket listener and on \(listen.name))")
    // enabled = false with listen set is an error, checked by ConfigBuilder.
    static let listen = ConfigKey<ListenAddress?>(
        "listen", .listenAddress,
        summary: "\"HOST:PORT\" of a listener of its own for /metrics and /healthz, e.g. \"127.0.0.1:9464\"; none when absent")
}
