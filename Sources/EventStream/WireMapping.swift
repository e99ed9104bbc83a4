import Engine
import WireProtocol

// The engine's types as the wire's (WireProtocol has none of the engine's,
// so that a client needs only it): one place says how each is spelled.

extension TransitionEvent.Kind {
    public var wire: TransitionUpdate.Kind {
        switch self {
        case .began: return .began
        case .changed: return .changed
        case .ended: return .ended
        case .animating: return .animating
        case .finished: return .finished
        case .cancelled: return .cancelled
        }
    }
}

extension Decision {
    public var wire: TransitionUpdate.Decision {
        switch self {
        case .finish: return .finish
        case .cancel: return .cancel
        case .snap: return .snap
        }
    }
}

extension EndReason {
    public var wire: TransitionUpdate.Reason {
        switch self {
        case .released: return .released
        case .deviceLost: return .deviceLost
        case .clientLost: return .clientLost
        case .command: return .command
        case .shutdown: return .shutdown
        case .reload: return .reload
        case .palm: return .palm
        case .stuck: return .stuck
        }
    }
}

extension TransitionUpdate.Decision {
    /// The engine's decision.
    public var engine: Decision {
        switch self {
        case .finish: return .finish
        case .cancel: return .cancel
        case .snap: return .snap
        }
    }
}

extension RunTarget {
    /// A `run` command's goal, for the engine.
    public var engine: TransitionMachine.RunGoal {
        switch self {
        case .decision(let decision): return .decision(decision.engine)
        case .point(let progress): return .progress(progress)
        case .index(let index): return .point(index)
        }
    }
}

extension TransitionInfo {
    /// A configured transition as `hello` lists it: where it comes from, so
    /// that a UI animates from the right side without its own copy of the config.
    init(_ spec: TransitionSpec, rest: Double?) {
        var edge: String? = nil, direction: String? = nil
        switch spec.gesture {
        case .edgePan(let e, _, _, _): edge = e.rawValue
        case .swipe(let d, _): direction = d.rawValue
        case .pinch(let d): direction = d.rawValue
        }
        let points = spec.snap?.points.points
        self.init(name: spec.name, gesture: spec.gesture.name, fingers: spec.gesture.fingers, edge: edge,
                  direction: direction, enabled: spec.enabled, device: spec.device, snapPoints: points,
                  rest: points == nil ? nil : rest ?? points?.first)
    }
}

extension InputStatus {
    /// A host's `"input":…` fields (`EngineHost.inputStatus`), nil without them.
    init?(_ fields: [(key: String, value: String)]) {
        guard let state = fields.first(where: { $0.key == "input" })?.value else { return nil }
        func field(_ key: String) -> String? { fields.first { $0.key == key }?.value }
        self.init(input: state, device: field("device"), deviceName: field("device_name"), waitingFor: field("waiting_for"))
    }
}

extension Geometry {
    /// The panel's geometry, nil when positions are the panel's own.
    init?(_ geometry: ScreenGeometry) {
        guard !geometry.isIdentity else { return nil }
        self.init(rotation: geometry.rotation.rawValue, flipX: geometry.flipX, flipY: geometry.flipY,
                  calibration: geometry.calibration, calibrationFrom: geometry.calibrationSource.rawValue)
    }
}
