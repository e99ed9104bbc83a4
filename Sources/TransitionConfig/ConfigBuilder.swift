import Engine
import TouchFilter

/// Turns validated sections into the engine's configuration and the server's
/// settings, checking what spans several keys or tables: unique names,
/// unique keyframe properties, `start + duration <= 1`, at least one transition.
enum ConfigBuilder {
    static func daemonConfiguration(from root: ValidatedSection, file: String) throws(ConfigError) -> DaemonConfiguration {
        let engine = try configuration(from: root, file: file)
        let server = root[ServerKeys.table].first.map(serverSettings(from:)) ?? .standard
        let input = try root[InputKeys.table].first.map { section throws(ConfigError) in
            try inputSettings(from: section, file: file)
        } ?? .standard
        let filter = try root[FilterKeys.table].first.map { section throws(ConfigError) in
            try filterRules(from: section, file: file)
        } ?? .none
        let metrics = try root[MetricsKeys.table].first.map { section throws(ConfigError) in
            try metricsSettings(from: section, file: file)
        } ?? .standard
        let identity = root[IdentityKeys.table].first.map { section in
            IdentitySettings(kiosk: section[IdentityKeys.kiosk], site: section[IdentityKeys.site],
                             labels: section[IdentityKeys.labels])
        } ?? .none
        return DaemonConfiguration(engine: engine, server: server, input: input, metrics: metrics, filter: filter,
                                   identity: identity)
    }

    // MARK: - [filter]

    /// The table's keys, then its regions in file order: at most
    /// `FilterKeys.maxRegions`, each an increasing `[x0, x1]` and `[y0, y1]`;
    /// no gesture named twice in a `block`.
    static func filterRules(from section: ValidatedSection, file: String) throws(ConfigError) -> FilterRules {
        typealias Key = FilterKeys
        let block = try gestures(section[Key.block], at: Key.block, in: section, file: file)
        let sections = section[FilterRegionKeys.table]
        if sections.count > Key.maxRegions {
            let extra = sections[Key.maxRegions]
            throw ConfigError(file: file, line: extra.line, key: extra.path,
                              message: "one \(FilterRegionKeys.table.schema.header) too many: at most \(Key.maxRegions)")
        }
        var regions: [FilterRegion] = []
        for region in sections {
            regions.append(try filterRegion(from: region, file: file))
        }
        return FilterRules(maxContacts: section[Key.maxContacts],
                           block: block,
                           ghostTouches: section[Key.ghostTouches],
                           stuckAfter: section[Key.stuckAfter],
                           palmMillimetres: section[Key.palmMillimetres],
                           transform: section[Key.transform],
                           regions: regions)
    }

    private static func filterRegion(from section: ValidatedSection, file: String) throws(ConfigError) -> FilterRegion {
        typealias Key = FilterRegionKeys
        let block = try section[Key.block].map { list throws(ConfigError) in
            try gestures(list, at: Key.block, in: section, file: file)
        }
        return FilterRegion(x: try span(at: Key.x, in: section, file: file, ends: ("x0", "x1")),
                            y: try span(at: Key.y, in: section, file: file, ends: ("y0", "y1")),
                            maxContacts: section[Key.maxContacts], block: block)
    }

    /// A region's side, `[low, high]`: two increasing numbers (each in 0…1,
    /// checked by the schema); `ends` names them for messages.
    private static func span(at key: ConfigKey<[Double]>, in section: ValidatedSection, file: String,
                             ends: (low: String, high: String)) throws(ConfigError) -> ClosedRange<Double> {
        let numbers = section[key]
        guard numbers.count == 2 else {
            throw section.error(at: key, file: file,
                                "must be [\(ends.low), \(ends.high)], 2 numbers from 0 to 1 (got \(numbers.count))")
        }
        guard numbers[0] < numbers[1] else {
            throw section.error(at: key, file: file,
                                "must be [\(ends.low), \(ends.high)] with \(ends.low) < \(ends.high) (got \(ConfigValue.array(numbers.map(ConfigValue.number)).rendered))")
        }
        return numbers[0]...numbers[1]
    }

    /// A `block` list as a set; a gesture named twice is an error at the key.
    private static func gestures<Value>(_ list: [BlockedGesture], at key: ConfigKey<Value>, in section: ValidatedSection,
                                        file: String) throws(ConfigError) -> Set<BlockedGesture> {
        var seen: Set<BlockedGesture> = []
        for gesture in list where !seen.insert(gesture).inserted {
            throw section.error(at: key, file: file, "names \(TOMLString.quoted(gesture.rawValue)) twice")
        }
        return seen
    }

    // MARK: - [metrics]

    /// `listen` is read as `[server] websocket` is; with `enabled = false`
    /// it is an error at its line (it would serve nothing).
    static func metricsSettings(from section: ValidatedSection, file: String) throws(ConfigError) -> MetricsSettings {
        typealias Key = MetricsKeys
        let enabled = section[Key.enabled]
        let listen = section[Key.listen]
        if listen != nil && !enabled {
            throw section.error(at: Key.listen, file: file,
                                "set, but \(section.keyPath(Key.enabled)) = false turns metrics off (\(Key.enabled.name) is on line \(section.line(of: Key.enabled))); remove \(Key.listen.name) or enable metrics")
        }
        return MetricsSettings(enabled: enabled, listen: listen)
    }

    // MARK: - [input]

    static func inputSettings(from section: ValidatedSection, file: String) throws(ConfigError) -> InputSettings {
        typealias Key = InputKeys
        guard let rotation = ScreenGeometry.Rotation(rawValue: section[Key.rotation]) else {
            throw section.error(at: Key.rotation, file: file,
                                "must be 0, 90, 180 or 270 (got \(section[Key.rotation]))")
        }
        let calibration = section[Key.calibration]
        if let numbers = calibration {
            guard numbers.count == 6 else {
                throw section.error(at: Key.calibration, file: file,
                                    "must be 6 numbers [a, b, c, d, e, f] (libinput's calibration matrix; got \(numbers.count))")
            }
            guard numbers.allSatisfy({ abs($0) <= 1000 }) else {
                throw section.error(at: Key.calibration, file: file, "each number must be from -1000 to 1000")
            }
        }
        let devices = section[Key.device]
        guard !devices.isEmpty else {
            throw section.error(at: Key.device, file: file, "must name at least one device (or be \"auto\" or \"all\")")
        }
        guard devices.count <= TouchFrame.maximumSources else {
            throw section.error(at: Key.device, file: file,
                                "names \(devices.count) devices; at most \(TouchFrame.maximumSources)")
        }
        if let repeated = devices.first(where: { d in devices.filter { $0 == d }.count > 1 }) {
            throw section.error(at: Key.device, file: file, "names \(TOMLString.quoted(repeated)) twice")
        }
        let misfires = MisfireSettings(keep: section[Key.keepMisfires], folder: section[Key.misfireSpool],
                                       maxFiles: section[Key.misfireSpoolFiles], maxBytes: section[Key.misfireSpoolBytes],
                                       interval: section[Key.misfireInterval])
        if misfires.keep && section[Key.flightRecorder] == 0 {
            throw section.error(at: Key.keepMisfires, file: file,
                                "needs the flight recorder, which \(section.keyPath(Key.flightRecorder)) = 0 turns off (line \(section.line(of: Key.flightRecorder)))")
        }
        return InputSettings(device: devices, mode: section[Key.mode],
                             filterHold: section[Key.filterHold],
                             flightRecorder: section[Key.flightRecorder],
                             flightRecorderBytes: section[Key.flightRecorderBytes],
                             rotation: rotation, flipX: section[Key.flipX],
                             flipY: section[Key.flipY], calibration: calibration,
                             maxEdgeExclusion: section[Key.maxEdgeExclusion],
                             minReportRate: section[Key.minReportRate], misfires: misfires)
    }

    static func configuration(from root: ValidatedSection, file: String) throws(ConfigError) -> EngineConfiguration {
        typealias Key = TransitionKeys
        let sections = root[Key.table]
        guard !sections.isEmpty else {
            throw ConfigError(file: file, line: 1, key: Key.table.name,
                              message: "the config needs at least one \(Key.table.schema.header)")
        }
        var transitions: [TransitionSpec] = []
        var firstWithName: [String: ValidatedSection] = [:]
        for section in sections {
            let name = section[Key.name]
            if let first = firstWithName[name] {
                throw section.error(at: Key.name, file: file,
                                    "duplicate transition name (\(first.path) on line \(first.line(of: Key.name)) is also named \(ConfigValue.string(name).rendered))")
            }
            firstWithName[name] = section
            transitions.append(try transition(from: section, file: file))
        }
        return EngineConfiguration(frameRate: root[TopLevelKeys.frameRate], transitions: transitions)
    }

    // MARK: - Transitions

    static func transition(from section: ValidatedSection, file: String) throws(ConfigError) -> TransitionSpec {
        typealias Key = TransitionKeys
        if section[Key.gesture] == .edgePan, edgeRange(from: section) == nil {
            throw section.error(at: Key.edgeRange, file: file,
                                "must be [start, end] with start < end, each from 0 to 1 (a part of the edge)")
        }
        return TransitionSpec(
            name: section[Key.name],
            gesture: gesture(from: section),
            activation: section[Key.activation],
            distance: section[Key.distance],
            finishThreshold: section[Key.finishThreshold],
            flickVelocity: section[Key.flickVelocity],
            duration: section[Key.duration],
            completionSpeed: section[Key.completionSpeed],
            completionCurve: completionCurve(from: section),
            interruptible: section[Key.interruptible],
            keyframes: try keyframes(from: section, file: file),
            enabled: section[Key.enabled],
            reportPosition: section[Key.reportPosition],
            physical: try physicalLengths(from: section, file: file),
            device: section[Key.device],
            snap: try snapSettings(from: section, file: file)
        )
    }

    /// `snap_points` or `pages`, and the keys that apply only with them.
    static func snapSettings(from section: ValidatedSection, file: String) throws(ConfigError) -> SnapSettings? {
        typealias Key = TransitionKeys
        let points: SnapPoints
        switch (section[Key.snapPoints], section[Key.pages]) {
        case (nil, nil):
            func refuse<Value>(_ key: ConfigKey<Value>) throws(ConfigError) {
                guard section.gives(key) else { return }
                throw section.error(at: key, file: file, "applies only with \(Key.snapPoints.name) or \(Key.pages.name)")
            }
            try refuse(Key.bidirectional)
            try refuse(Key.longSwipes)
            try refuse(Key.decelerationRate)
            try refuse(Key.overshoot)
            return nil
        case (let list?, nil):
            if let problem = SnapPoints.problem(with: list) { throw section.error(at: Key.snapPoints, file: file, problem) }
            points = SnapPoints(list)!
        case (nil, let n?):
            points = SnapPoints(pages: n)!
        case (_?, _?):
            throw section.error(at: Key.pages, file: file,
                                "give \(Key.snapPoints.name) (line \(section.line(of: Key.snapPoints.name))) or \(Key.pages.name), not both")
        }
        return SnapSettings(points: points, bidirectional: section[Key.bidirectional], longSwipes: section[Key.longSwipes],
                            decelerationRate: section[Key.decelerationRate], overshoot: section[Key.overshoot])
    }

    /// The gesture of a `[[transition]]` whose keys up to `edge_margin` are
    /// validated (the `distance` default uses it too).
    static func gesture(from section: ValidatedSection) -> GestureKind {
        typealias Key = TransitionKeys
        switch section[Key.gesture] {
        case .edgePan:
            return .edgePan(edge: section[Key.edge], fingers: section[Key.edgePanFingers],
                            edgeMargin: section[Key.edgeMargin], range: edgeRange(from: section) ?? .whole)
        case .swipe:
            return .swipe(direction: section[Key.swipeDirection], fingers: section[Key.swipeFingers])
        case .pinch:
            return .pinch(direction: section[Key.pinchDirection])
        }
    }

    /// The `*_mm` lengths; each instead of its key in screen units, never both.
    static func physicalLengths(from section: ValidatedSection, file: String) throws(ConfigError) -> PhysicalLengths {
        typealias Key = TransitionKeys
        let pairs: [(ConfigKey<Double?>, ConfigKey<Double>, WritableKeyPath<PhysicalLengths, Double?>)] = [
            (Key.edgeMarginMM, Key.edgeMargin, \.edgeMarginMM),
            (Key.activationMM, Key.activation, \.activationMM),
            (Key.distanceMM, Key.distance, \.distanceMM),
        ]
        var lengths = PhysicalLengths()
        for (key, plain, length) in pairs {
            guard let value = section[key] else { continue }
            if section.gives(plain) {
                throw section.error(at: key, file: file,
                                    "give \(plain.name) (screen units, line \(section.line(of: plain))) or \(key.name) (millimetres), not both")
            }
            lengths[keyPath: length] = value
        }
        return lengths
    }

    /// `edge_range` as two increasing numbers (the whole edge when the key
    /// does not apply); nil when it is not that (an error for `transition`,
    /// which has the file to name).
    static func edgeRange(from section: ValidatedSection) -> EdgeRange? {
        guard section[TransitionKeys.gesture] == .edgePan else { return .whole }
        let numbers = section[TransitionKeys.edgeRange]
        guard numbers.count == 2, numbers[0] < numbers[1] else { return nil }
        return EdgeRange(start: numbers[0], end: numbers[1])
    }

    private static func completionCurve(from section: ValidatedSection) -> CompletionCurve {
        switch section[TransitionKeys.completionCurve] {
        case .spring:
            return .spring(dampingRatio: section[TransitionKeys.dampingRatio], stiffness: section[TransitionKeys.stiffness])
        case .timing(let curve):
            return .timing(curve)
        }
    }

    // MARK: - Keyframes

    private static func keyframes(from transition: ValidatedSection, file: String) throws(ConfigError) -> [KeyframeTrack] {
        typealias Key = KeyframeKeys
        var tracks: [KeyframeTrack] = []
        var firstWithProperty: [String: ValidatedSection] = [:]
        for section in transition[Key.table] {
            let property = section[Key.property]
            if let first = firstWithProperty[property] {
                throw section.error(at: Key.property, file: file,
                                    "duplicate keyframe property (\(first.path) on line \(first.line(of: Key.property)) also animates \(ConfigValue.string(property).rendered))")
            }
            firstWithProperty[property] = section
            let start = section[Key.start]
            let duration = section[Key.duration]
            if start + duration > 1 + 1e-9 {
                throw section.error(at: Key.duration, file: file,
                                    "start + duration must be <= 1 (got \(start) + \(duration) = \(start + duration))")
            }
            tracks.append(KeyframeTrack(property: property, start: start, duration: duration,
                                        from: section[Key.from], to: section[Key.to], curve: section[Key.curve]))
        }
        return tracks
    }

    // MARK: - [server]

    static func serverSettings(from section: ValidatedSection) -> ServerSettings {
        typealias Key = ServerKeys
        return ServerSettings(
            socketPath: section[Key.socket],
            socketMode: section[Key.socketMode],
            maxClients: section[Key.maxClients],
            maxWebSocketClients: section[Key.maxWebSocketClients],
            maxClientsPerPeer: section[Key.maxClientsPerPeer],
            backlogLimit: section[Key.backlogLimit],
            allowUIDs: section[Key.allowUIDs],
            allowGroups: section[Key.allowGroups],
            webSocket: section[Key.webSocket],
            allowOrigins: section[Key.allowOrigins]
        )
    }
}
