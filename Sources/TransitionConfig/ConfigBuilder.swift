import TransitionEngine

/// Turns validated sections into the engine's configuration and the server's
/// settings, checking what spans several keys or tables: unique names,
/// unique keyframe properties, `start + duration <= 1`, at least one transition.
enum ConfigBuilder {
    static func daemonConfiguration(from root: ValidatedSection, file: String) throws(ConfigError) -> DaemonConfiguration {
        let engine = try configuration(from: root, file: file)
        let server = root.children["server"]?.first.map(serverSettings(from:)) ?? .standard
        let input = try root.children["input"]?.first.map { section throws(ConfigError) in
            try inputSettings(from: section, file: file)
        } ?? .standard
        let metrics = try root.children["metrics"]?.first.map { section throws(ConfigError) in
            try metricsSettings(from: section, file: file)
        } ?? .standard
        return DaemonConfiguration(engine: engine, server: server, input: input, metrics: metrics)
    }

    // MARK: - [metrics]

    /// `listen` is read as `[server] websocket` is; with `enabled = false`
    /// it is an error at its line (it would serve nothing).
    static func metricsSettings(from section: ValidatedSection, file: String) throws(ConfigError) -> MetricsSettings {
        let enabled = section.boolean("enabled")
        let listen = section.optionalString("listen").map { text in
            guard case .success(let address) = ListenAddress.parse(text) else {
                preconditionFailure("schema does not guarantee an address '\(section.keyPath("listen"))'")
            }
            return address
        }
        if listen != nil && !enabled {
            throw ConfigError(file: file, line: section.line(of: "listen"), key: section.keyPath("listen"),
                              message: "set, but metrics.enabled = false turns metrics off (enabled is on line \(section.line(of: "enabled"))); remove listen or enable metrics")
        }
        return MetricsSettings(enabled: enabled, listen: listen)
    }

    // MARK: - [input]

    static func inputSettings(from section: ValidatedSection, file: String) throws(ConfigError) -> InputSettings {
        guard let rotation = ScreenGeometry.Rotation(rawValue: section.integer("rotation")) else {
            throw ConfigError(file: file, line: section.line(of: "rotation"), key: section.keyPath("rotation"),
                              message: "must be 0, 90, 180 or 270 (got \(section.integer("rotation")))")
        }
        var calibration: [Double]? = nil
        if section.values["calibration"] != nil {
            let numbers = section.numbers("calibration")
            guard numbers.count == 6 else {
                throw ConfigError(file: file, line: section.line(of: "calibration"), key: section.keyPath("calibration"),
                                  message: "must be 6 numbers [a, b, c, d, e, f] (libinput's calibration matrix; got \(numbers.count))")
            }
            guard numbers.allSatisfy({ abs($0) <= 1000 }) else {
                throw ConfigError(file: file, line: section.line(of: "calibration"), key: section.keyPath("calibration"),
                                  message: "each number must be from -1000 to 1000")
            }
            calibration = numbers
        }
        let devices = section.strings("device")
        guard !devices.isEmpty else {
            throw ConfigError(file: file, line: section.line(of: "device"), key: section.keyPath("device"),
                              message: "must name at least one device (or be \"auto\" or \"all\")")
        }
        guard devices.count <= TouchFrame.maximumSources else {
            throw ConfigError(file: file, line: section.line(of: "device"), key: section.keyPath("device"),
                              message: "names \(devices.count) devices; at most \(TouchFrame.maximumSources)")
        }
        if let repeated = devices.first(where: { d in devices.filter { $0 == d }.count > 1 }) {
            throw ConfigError(file: file, line: section.line(of: "device"), key: section.keyPath("device"),
                              message: "names \(TOMLString.quoted(repeated)) twice")
        }
        return InputSettings(device: devices, mode: section.choice("mode", as: InputMode.self),
                             filterHold: section.number("filter_hold"),
                             flightRecorder: section.number("flight_recorder"),
                             flightRecorderBytes: section.integer("flight_recorder_bytes"),
                             rotation: rotation, flipX: section.boolean("flip_x"),
                             flipY: section.boolean("flip_y"), calibration: calibration)
    }

    static func configuration(from root: ValidatedSection, file: String) throws(ConfigError) -> EngineConfiguration {
        let sections = root.children["transition"] ?? []
        guard !sections.isEmpty else {
            throw ConfigError(file: file, line: 1, key: "transition",
                              message: "the config needs at least one [[transition]]")
        }
        var transitions: [TransitionSpec] = []
        var firstWithName: [String: ValidatedSection] = [:]
        for section in sections {
            let name = section.string("name")
            if let first = firstWithName[name] {
                throw ConfigError(file: file, line: section.line(of: "name"), key: section.keyPath("name"),
                                  message: "duplicate transition name (\(first.path) on line \(first.line(of: "name")) is also named \(ConfigValue.string(name).rendered))")
            }
            firstWithName[name] = section
            transitions.append(try transition(from: section, file: file))
        }
        return EngineConfiguration(frameRate: root.number("frame_rate"), transitions: transitions)
    }

    // MARK: - Transitions

    static func transition(from section: ValidatedSection, file: String) throws(ConfigError) -> TransitionSpec {
        if section.string("gesture") == "edge-pan", edgeRange(from: section) == nil {
            throw ConfigError(file: file, line: section.line(of: "edge_range"), key: section.keyPath("edge_range"),
                              message: "must be [start, end] with start < end, each from 0 to 1 (a part of the edge)")
        }
        return TransitionSpec(
            name: section.string("name"),
            gesture: gesture(from: section),
            activation: section.number("activation"),
            distance: section.number("distance"),
            finishThreshold: section.number("finish_threshold"),
            flickVelocity: section.number("flick_velocity"),
            duration: section.number("duration"),
            completionSpeed: section.number("completion_speed"),
            completionCurve: completionCurve(from: section),
            interruptible: section.boolean("interruptible"),
            keyframes: try keyframes(from: section, file: file),
            enabled: section.boolean("enabled"),
            reportPosition: section.boolean("report_position"),
            physical: try physicalLengths(from: section, file: file),
            device: section.optionalString("device")
        )
    }

    /// The gesture of a `[[transition]]` whose keys up to `edge_margin` are
    /// validated (the `distance` default uses it too).
    static func gesture(from section: ValidatedSection) -> GestureKind {
        switch section.string("gesture") {
        case "edge-pan":
            return .edgePan(edge: section.choice("edge", as: Edge.self),
                            fingers: section.integer("fingers"),
                            edgeMargin: section.number("edge_margin"),
                            range: edgeRange(from: section) ?? .whole)
        case "swipe":
            return .swipe(direction: section.choice("direction", as: SwipeDirection.self),
                          fingers: section.integer("fingers"))
        case "pinch":
            return .pinch(direction: section.choice("direction", as: PinchDirection.self))
        case let other:
            preconditionFailure("gesture '\(other)' is not in ConfigSchema.gestures")
        }
    }

    /// The `*_mm` lengths; each instead of its key in screen units, never both.
    static func physicalLengths(from section: ValidatedSection, file: String) throws(ConfigError) -> PhysicalLengths {
        var lengths = PhysicalLengths()
        for (key, plain) in [("edge_margin_mm", "edge_margin"), ("activation_mm", "activation"), ("distance_mm", "distance")] {
            guard section.values[key] != nil else { continue }
            if section.lines[plain] != nil {
                throw ConfigError(file: file, line: section.line(of: key), key: section.keyPath(key),
                                  message: "give \(plain) (screen units, line \(section.line(of: plain))) or \(key) (millimetres), not both")
            }
            let value = section.number(key)
            switch key {
            case "edge_margin_mm": lengths.edgeMarginMM = value
            case "activation_mm": lengths.activationMM = value
            default: lengths.distanceMM = value
            }
        }
        return lengths
    }

    /// `edge_range` as two increasing numbers; nil when it is not that (an
    /// error for `checkEdgeRange`, which has the file to name).
    static func edgeRange(from section: ValidatedSection) -> EdgeRange? {
        guard section.values["edge_range"] != nil else { return .whole }
        let numbers = section.numbers("edge_range")
        guard numbers.count == 2, numbers[0] < numbers[1] else { return nil }
        return EdgeRange(start: numbers[0], end: numbers[1])
    }

    private static func completionCurve(from section: ValidatedSection) -> CompletionCurve {
        if section.string("completion_curve") == "spring" {
            return .spring(dampingRatio: section.number("damping_ratio"), stiffness: section.number("stiffness"))
        }
        return .timing(section.choice("completion_curve", as: TimingCurve.self))
    }

    // MARK: - Keyframes

    private static func keyframes(from transition: ValidatedSection, file: String) throws(ConfigError) -> [KeyframeTrack] {
        var tracks: [KeyframeTrack] = []
        var firstWithProperty: [String: ValidatedSection] = [:]
        for section in transition.children["keyframe"] ?? [] {
            let property = section.string("property")
            if let first = firstWithProperty[property] {
                throw ConfigError(file: file, line: section.line(of: "property"), key: section.keyPath("property"),
                                  message: "duplicate keyframe property (\(first.path) on line \(first.line(of: "property")) also animates \(ConfigValue.string(property).rendered))")
            }
            firstWithProperty[property] = section
            let start = section.number("start")
            let duration = section.number("duration")
            if start + duration > 1 + 1e-9 {
                throw ConfigError(file: file, line: section.line(of: "duration"), key: section.keyPath("duration"),
                                  message: "start + duration must be <= 1 (got \(start) + \(duration) = \(start + duration))")
            }
            tracks.append(KeyframeTrack(property: property, start: start, duration: duration,
                                        from: section.number("from"), to: section.number("to"),
                                        curve: section.choice("curve", as: TimingCurve.self)))
        }
        return tracks
    }

    // MARK: - [server]

    static func serverSettings(from section: ValidatedSection) -> ServerSettings {
        guard let mode = StringRule.fileMode(section.string("socket_mode")) else {
            preconditionFailure("schema does not guarantee an octal '\(section.keyPath("socket_mode"))'")
        }
        return ServerSettings(
            socketPath: section.optionalString("socket"),
            socketMode: mode,
            maxClients: section.integer("max_clients"),
            backlogLimit: section.integer("backlog_limit"),
            allowUIDs: section.array("allow_uids").map { item in
                guard case .integer(let uid) = item, let uid = UInt32(exactly: uid) else { unexpected(item) }
                return uid
            },
            allowGroups: section.array("allow_groups").map { item in
                switch item {
                case .string(let name): return .name(name)
                case .integer(let gid):
                    guard let gid = UInt32(exactly: gid) else { unexpected(item) }
                    return .id(gid)
                default: unexpected(item)
                }
            },
            webSocket: section.optionalString("websocket").map { text in
                guard case .success(let address) = ListenAddress.parse(text) else {
                    preconditionFailure("schema does not guarantee an address '\(section.keyPath("websocket"))'")
                }
                return address
            },
            allowOrigins: section.array("allow_origins").map { item in
                guard case .string(let origin) = item else { unexpected(item) }
                return origin
            }
        )
    }

    /// A group reference as the config value that writes it.
    static func value(of group: GroupReference) -> ConfigValue {
        switch group {
        case .id(let gid): return .integer(Int(gid))
        case .name(let name): return .string(name)
        }
    }

    private static func unexpected(_ item: ConfigValue) -> Never {
        preconditionFailure("schema does not guarantee a [server] array item like \(item.rendered)")
    }
}
