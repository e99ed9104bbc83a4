import TransitionEngine

/// Writes an `EngineConfiguration` (or a `DaemonConfiguration`) as the TOML
/// config it is equivalent to: every key that applies, with its effective
/// value and, in a comment, what it may be. `ConfigLoader.parse` (or
/// `parseDaemon`) reads the text back to an equal value.
enum ConfigRenderer {
    /// The engine part exactly as `render(_: EngineConfiguration)` writes
    /// it, then the `[server]`, `[input]` and `[metrics]` tables.
    static func render(_ config: DaemonConfiguration) -> String {
        render(config.engine)
            + "\n[server]\n" + section(entries(of: config.server), schema: ConfigSchema.server, indent: "")
            + "\n[input]\n" + section(entries(of: config.input), schema: ConfigSchema.input, indent: "")
            + "\n[metrics]\n" + section(entries(of: config.metrics), schema: ConfigSchema.metrics, indent: "")
    }

    static func render(_ config: EngineConfiguration) -> String {
        var out = "# transitiond configuration: every key with its effective value.\n"
        out += section([("frame_rate", .number(config.frameRate))], schema: ConfigSchema.root, indent: "")
        for transition in config.transitions {
            out += "\n[[transition]]\n"
            out += section(entries(of: transition), schema: ConfigSchema.transition, indent: "")
            for track in transition.keyframes {
                out += "\n  [[transition.keyframe]]\n"
                out += section(entries(of: track), schema: ConfigSchema.keyframe, indent: "  ")
            }
        }
        return out
    }

    // MARK: - Entries, in schema order

    private static func entries(of transition: TransitionSpec) -> [(String, ConfigValue)] {
        var entries: [(String, ConfigValue)] = [
            ("name", .string(transition.name)),
            ("gesture", .string(transition.gesture.name)),
        ]
        switch transition.gesture {
        case .edgePan(let edge, let fingers, let edgeMargin, let range):
            entries += [("edge", .string(edge.rawValue)), ("fingers", .integer(fingers)),
                        transition.physical.edgeMarginMM.map { ("edge_margin_mm", .number($0)) }
                            ?? ("edge_margin", .number(edgeMargin)),
                        ("edge_range", .array([.number(range.start), .number(range.end)]))]
        case .swipe(let direction, let fingers):
            entries += [("direction", .string(direction.rawValue)), ("fingers", .integer(fingers))]
        case .pinch(let direction):
            entries += [("direction", .string(direction.rawValue)), ("fingers", .integer(2))]
        }
        entries += [
            transition.physical.activationMM.map { ("activation_mm", .number($0)) }
                ?? ("activation", .number(transition.activation)),
            transition.physical.distanceMM.map { ("distance_mm", .number($0)) }
                ?? ("distance", .number(transition.distance)),
            ("finish_threshold", .number(transition.finishThreshold)),
            ("flick_velocity", .number(transition.flickVelocity)),
            ("duration", .number(transition.duration)),
            ("completion_speed", .number(transition.completionSpeed)),
            ("completion_curve", .string(transition.completionCurve.name)),
        ]
        if case .spring(let dampingRatio, let stiffness) = transition.completionCurve {
            entries += [("damping_ratio", .number(dampingRatio)), ("stiffness", .number(stiffness))]
        }
        entries.append(("interruptible", .boolean(transition.interruptible)))
        entries.append(("report_position", .boolean(transition.reportPosition)))
        entries.append(("enabled", .boolean(transition.enabled)))
        if let device = transition.device { entries.append(("device", .string(device))) }
        return entries
    }

    private static func entries(of track: KeyframeTrack) -> [(String, ConfigValue)] {
        [
            ("property", .string(track.property)),
            ("start", .number(track.start)),
            ("duration", .number(track.duration)),
            ("from", .number(track.from)),
            ("to", .number(track.to)),
            ("curve", .string(track.curve.rawValue)),
        ]
    }

    /// `calibration` only when set (else the device's is used).
    private static func entries(of input: InputSettings) -> [(String, ConfigValue)] {
        var entries: [(String, ConfigValue)] = [
            ("device", input.device.count == 1 ? .string(input.device[0]) : .array(input.device.map { .string($0) })),
            ("mode", .string(input.mode.rawValue)),
            ("rotation", .integer(input.rotation.rawValue)),
            ("flip_x", .boolean(input.flipX)),
            ("flip_y", .boolean(input.flipY)),
        ]
        entries.append(("filter_hold", .number(input.filterHold)))
        entries.append(("flight_recorder", .number(input.flightRecorder)))
        entries.append(("flight_recorder_bytes", .integer(input.flightRecorderBytes)))
        if let calibration = input.calibration { entries.append(("calibration", .array(calibration.map { .number($0) }))) }
        return entries
    }

    /// `listen` only when set.
    private static func entries(of metrics: MetricsSettings) -> [(String, ConfigValue)] {
        var entries: [(String, ConfigValue)] = [("enabled", .boolean(metrics.enabled))]
        if let address = metrics.listen { entries.append(("listen", .string(address.description))) }
        return entries
    }

    /// `socket` only when set; the mode as a 4-digit octal string.
    private static func entries(of server: ServerSettings) -> [(String, ConfigValue)] {
        var entries: [(String, ConfigValue)] = []
        if let path = server.socketPath { entries.append(("socket", .string(path))) }
        entries += [
            ("socket_mode", .string(StringRule.fileModeText(server.socketMode))),
            ("max_clients", .integer(server.maxClients)),
            ("backlog_limit", .integer(server.backlogLimit)),
            ("allow_uids", .array(server.allowUIDs.map { .integer(Int($0)) })),
            ("allow_groups", .array(server.allowGroups.map(ConfigBuilder.value(of:)))),
        ]
        if let address = server.webSocket { entries.append(("websocket", .string(address.description))) }
        entries.append(("allow_origins", .array(server.allowOrigins.map { .string($0) })))
        return entries
    }

    // MARK: - Formatting

    /// `key = value` lines, comments aligned, each saying what the key may be.
    private static func section(_ entries: [(String, ConfigValue)], schema: SectionSchema, indent: String) -> String {
        var values: [String: ConfigValue] = [:]
        var lines: [(text: String, comment: String?)] = []
        for (key, value) in entries {
            let comment = schema.spec(named: key, given: values)?.summary
            values[key] = value
            lines.append((indent + TOMLKey.display(key) + " = " + value.rendered, comment))
        }
        let width = lines.map(\.text.count).max() ?? 0
        var out = ""
        for line in lines {
            out += line.text
            if let comment = line.comment {
                out += String(repeating: " ", count: width - line.text.count) + "  # " + comment
            }
            out += "\n"
        }
        return out
    }
}
