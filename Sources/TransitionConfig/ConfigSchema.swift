import TransitionEngine

/// The keys of transitiond's config file (design "Config"), one declarative
/// table per section. To add a key, add a `KeySpec`; to add a section (as
/// `[server]` was), add a `SectionSchema` and a `ChildSection` of `root`,
/// then read it in `ConfigBuilder` and write it in `ConfigRenderer`.
enum ConfigSchema {
    static let gestures = ["edge-pan", "swipe", "pinch"]
    static let completionCurves = TimingCurve.allCases.map(\.rawValue) + ["spring"]

    // MARK: - Top level

    static let root = SectionSchema(
        header: "the top level",
        keys: [
            KeySpec("frame_rate", .number(.above(0, upTo: 1000)), default: .value(.number(60))),
        ],
        children: [
            ChildSection(name: "transition", shape: .arrayOfTables, schema: transition),
            ChildSection(name: "server", shape: .table, schema: server),
            ChildSection(name: "input", shape: .table, schema: input),
            ChildSection(name: "metrics", shape: .table, schema: metrics),
        ]
    )

    // MARK: - [[transition]]

    static let transition = SectionSchema(
        header: "[[transition]]",
        keys: [
            KeySpec("name", .string(.identifier), default: .required),
            KeySpec("gesture", .choice(gestures), default: .required),

            KeySpec("edge", .choice(Edge.allCases.map(\.rawValue)),
                    when: .when("gesture", isOneOf: ["edge-pan"]), default: .required),
            KeySpec("direction", .choice(SwipeDirection.allCases.map(\.rawValue)),
                    when: .when("gesture", isOneOf: ["swipe"]), default: .required),
            KeySpec("direction", .choice(PinchDirection.allCases.map(\.rawValue)),
                    when: .when("gesture", isOneOf: ["pinch"]), default: .required),

            KeySpec("fingers", .integer(1...10),
                    when: .when("gesture", isOneOf: ["edge-pan"]), default: .value(.integer(1))),
            KeySpec("fingers", .integer(1...10),
                    when: .when("gesture", isOneOf: ["swipe"]), default: .value(.integer(3))),
            KeySpec("fingers", .integer(2...2),
                    when: .when("gesture", isOneOf: ["pinch"]), default: .value(.integer(2)),
                    note: "a pinch uses exactly 2 fingers"),
            KeySpec("edge_margin", .number(.above(0, upTo: 0.5)),
                    when: .when("gesture", isOneOf: ["edge-pan"]), default: .value(.number(0.05))),
            KeySpec("edge_range", .array(of: .number(.from(0, through: 1))),
                    when: .when("gesture", isOneOf: ["edge-pan"]), default: .value(.array([.number(0), .number(1)])),
                    summary: "[start, end]: the part of the edge, 0 to 1 from its top or left end"),

            KeySpec("edge_margin_mm", .number(.above(0, upTo: 1000)),
                    when: .when("gesture", isOneOf: ["edge-pan"]), default: .absent,
                    summary: "millimetres on the panel, instead of edge_margin (needs the axes' resolution)"),
            KeySpec("activation", .number(.from(0, below: 1)), default: .value(.number(0.02))),
            KeySpec("activation_mm", .number(.above(0, upTo: 1000)), default: .absent,
                    summary: "millimetres, instead of activation"),
            KeySpec("distance", .number(.above(0, upTo: 10)),
                    default: .computed("1.0, or 0.5 for a pinch in") { section in
                        .number(TransitionSpec.defaultDistance(for: ConfigBuilder.gesture(from: section)))
                    }),
            KeySpec("distance_mm", .number(.above(0, upTo: 10_000)),
                    when: .when("gesture", isOneOf: ["edge-pan", "swipe"]), default: .absent,
                    summary: "millimetres, instead of distance"),
            KeySpec("finish_threshold", .number(.from(0, through: 1)), default: .value(.number(0.5))),
            KeySpec("flick_velocity", .number(.above(0)), default: .value(.number(1.0))),
            KeySpec("duration", .number(.above(0, upTo: 60)), default: .value(.number(0.4))),
            KeySpec("completion_speed", .number(.above(0, upTo: 100)), default: .value(.number(1.0))),
            KeySpec("completion_curve", .choice(completionCurves),
                    default: .value(.string(TimingCurve.easeOut.rawValue))),
            KeySpec("damping_ratio", .number(.above(0, upTo: 10)),
                    when: .when("completion_curve", isOneOf: ["spring"]), default: .value(.number(1.0))),
            KeySpec("stiffness", .number(.above(0, upTo: 100_000)),
                    when: .when("completion_curve", isOneOf: ["spring"]), default: .value(.number(300))),
            KeySpec("interruptible", .boolean, default: .value(.boolean(true))),
            KeySpec("report_position", .boolean, default: .value(.boolean(false)),
                    summary: "began/changed/ended carry the fingers' centroid on the screen"),
            KeySpec("enabled", .boolean, default: .value(.boolean(true)),
                    summary: "recognised from the start; the enable command turns it on and off"),
            KeySpec("device", .string(.deviceReference(maxBytes: 4096)), default: .absent,
                    summary: "only on this touchscreen: one of [input] device's paths or links, or its device name"),
        ],
        children: [
            ChildSection(name: "keyframe", shape: .arrayOfTables, schema: keyframe),
        ]
    )

    // MARK: - [[transition.keyframe]]

    static let keyframe = SectionSchema(
        header: "[[transition.keyframe]]",
        keys: [
            KeySpec("property", .string(.identifier), default: .required),
            KeySpec("start", .number(.from(0, through: 1)), default: .value(.number(0))),
            // start + duration <= 1 is checked by ConfigBuilder.
            KeySpec("duration", .number(.above(0)),
                    default: .computed("1 - start") { section in .number(1 - section.number("start")) }),
            KeySpec("from", .number(.any), default: .value(.number(0))),
            KeySpec("to", .number(.any), default: .value(.number(1))),
            KeySpec("curve", .choice(TimingCurve.allCases.map(\.rawValue)),
                    default: .value(.string(TimingCurve.linear.rawValue))),
        ]
    )

    // MARK: - [server]

    /// The largest id a uid or gid may be: 2^32 - 2 (2^32 - 1 is `(uid_t)-1`, "no id").
    static let largestID = 4_294_967_294
    /// `sun_path` holds 108 bytes with the terminating NUL.
    static let socketPathLimit = 107

    static let server = SectionSchema(
        header: "[server]",
        keys: [
            KeySpec("socket", .string(.absolutePath(maxBytes: socketPathLimit)), default: .absent),
            KeySpec("socket_mode",
                    .string(.fileMode(mustInclude: 0o600, reason: "the daemon could not use its own socket")),
                    default: .value(.string(StringRule.fileModeText(ServerSettings.standard.socketMode))),
                    summary: "octal, at most \"0777\", with owner read+write \"0600\""),
            KeySpec("max_clients", .integer(1...65_536),
                    default: .value(.integer(ServerSettings.standard.maxClients))),
            KeySpec("backlog_limit", .integer(4_096...1_073_741_824),
                    default: .value(.integer(ServerSettings.standard.backlogLimit)),
                    summary: "bytes, 4096 to 1073741824"),
            KeySpec("allow_uids", .array(of: .integer(0...largestID)),
                    default: .value(.array(ServerSettings.standard.allowUIDs.map { .integer(Int($0)) })),
                    summary: "uids, each 0 to \(largestID)"),
            KeySpec("allow_groups", .array(of: .either([.string(.groupName), .integer(0...largestID)])),
                    default: .value(.array(ServerSettings.standard.allowGroups.map(ConfigBuilder.value(of:)))),
                    summary: "group names, or gids 0 to \(largestID)"),
            KeySpec("websocket", .string(.listenAddress), default: .absent,
                    summary: "\"HOST:PORT\" for the WebSocket and HTTP listener; off when absent"),
            KeySpec("allow_origins", .array(of: .string(.origin)),
                    default: .value(.array(ServerSettings.standard.allowOrigins.map { .string($0) })),
                    summary: "browser origins the WebSocket accepts besides its own, \"*\" for any"),
        ]
    )

    // MARK: - [input]

    static let input = SectionSchema(
        header: "[input]",
        keys: [
            KeySpec("device", .either([.string(.deviceSelector(maxBytes: 4096)),
                                       .array(of: .string(.absolutePath(maxBytes: 4096)))]),
                    default: .value(.string("auto")),
                    summary: "\"auto\" (the first touchscreen), \"all\" (every touchscreen), a device path or by-id/by-path link, or an array of paths"),
            KeySpec("mode", .choice(InputMode.allCases.map(\.rawValue)), default: .value(.string(InputMode.shared.rawValue)),
                    summary: "shared (others read the panel too) | grab (only the daemon) | filter (the UI gets a copy without the gesture touches)"),
            KeySpec("filter_hold", .number(.above(0, upTo: 1)),
                    default: .value(.number(InputSettings.standard.filterHold)),
                    summary: "filter mode (also from --mode filter): seconds a touch in a gesture's start area is held back from the UI, at most 1"),
            KeySpec("flight_recorder", .number(.from(0, through: 3600)),
                    default: .value(.number(InputSettings.standard.flightRecorder)),
                    summary: "seconds of raw input kept per panel for the dump command, 0 to 3600 (0: off)"),
            KeySpec("flight_recorder_bytes", .integer(65_536...33_554_432),
                    default: .value(.integer(InputSettings.standard.flightRecorderBytes)),
                    summary: "the most memory the flight recorder takes per panel, 65536 to 33554432 bytes (16 bytes an event)"),
            KeySpec("rotation", .integer(0...270), default: .value(.integer(0)),
                    summary: "0, 90, 180 or 270: the panel's mounting angle, clockwise"),
            KeySpec("flip_x", .boolean, default: .value(.boolean(false))),
            KeySpec("flip_y", .boolean, default: .value(.boolean(false))),
            KeySpec("calibration", .array(of: .number(.any)), default: .absent,
                    summary: "[a, b, c, d, e, f]: libinput's matrix (default: the device's LIBINPUT_CALIBRATION_MATRIX)"),
        ]
    )

    // MARK: - [metrics]

    static let metrics = SectionSchema(
        header: "[metrics]",
        keys: [
            KeySpec("enabled", .boolean, default: .value(.boolean(MetricsSettings.standard.enabled)),
                    summary: "serve Prometheus metrics at /metrics (on the WebSocket listener and on listen)"),
            // enabled = false with listen set is an error, checked by ConfigBuilder.
            KeySpec("listen", .string(.listenAddress), default: .absent,
                    summary: "\"HOST:PORT\" of a listener of its own for /metrics and /healthz, e.g. \"127.0.0.1:9464\"; none when absent"),
        ]
    )
}
