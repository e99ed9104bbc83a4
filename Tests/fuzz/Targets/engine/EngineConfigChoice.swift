import FuzzSupport
import Engine

/// An engine config chosen by the input: one to four transitions, every
/// gesture, curve and key with values from the ends and the middle of the
/// ranges the config file allows.
enum EngineConfigChoice {
    static func configuration(_ input: inout FuzzBytes) -> EngineConfiguration {
        let count = 1 + input.below(4)
        let transitions = (0..<count).map { k in transition(named: "t\(k)", &input) }
        var frameRate = input.pick([60.0, 1, 30, 120, 1000])
        // The fuzzer's budget: at most some 4 000 animation frames per
        // completion, so that an input runs in a millisecond or so. The
        // longest animations still run, at 60 frames a second.
        let longest = transitions.map { spec -> Double in
            switch spec.completionCurve {
            case .timing: return spec.duration / spec.completionSpeed
            case .spring: return CompletionAnimation.springTimeLimit
            }
        }.max() ?? 0
        if longest * frameRate > 4_000 { frameRate = 60 }
        return EngineConfiguration(frameRate: frameRate, transitions: transitions)
    }

    static func transition(named name: String, _ input: inout FuzzBytes) -> TransitionSpec {
        let gesture: GestureKind
        switch input.below(3) {
        case 0:
            gesture = .edgePan(edge: input.pick(Edge.allCases), fingers: input.pick([1, 2, 3, 10]),
                               edgeMargin: input.pick([0.05, 0.001, 0.2, 0.5]),
                               range: input.pick([.whole, EdgeRange(start: 0.25, end: 0.75),
                                                  EdgeRange(start: 0, end: 0.001)]))
        case 1:
            gesture = .swipe(direction: input.pick(SwipeDirection.allCases), fingers: input.pick([3, 1, 2, 4]))
        default:
            gesture = .pinch(direction: input.pick(PinchDirection.allCases))
        }
        let curve: CompletionCurve
        if input.below(5) < 4 {
            curve = .timing(input.pick(TimingCurve.allCases))
        } else {
            curve = .spring(dampingRatio: input.pick([1.0, 0.05, 0.5, 10, 1 + 1e-10, 0.999]),
                            stiffness: input.pick([300.0, 1, 100_000, 20]))
        }
        var keyframes: [KeyframeTrack] = []
        if input.bool() {
            keyframes.append(KeyframeTrack(property: "dim", start: input.pick([0, 0.5, 1]),
                                           duration: input.pick([1, 0.5, 1e-9]), from: input.pick([1, -1e9]),
                                           to: input.pick([0, 1e9]), curve: input.pick(TimingCurve.allCases)))
        }
        return TransitionSpec(
            name: name, gesture: gesture,
            activation: input.pick([0.02, 0, 0.001, 0.1, 0.999]),
            distance: input.pick([nil, 0.0001, 0.1, 1, 10]),
            finishThreshold: input.pick([0.5, 0, 1, 0.3]),
            flickVelocity: input.pick([1, 0.0001, 5, 1000]),
            duration: input.pick([0.4, 0.0001, 0.05, 2, 10]),
            completionSpeed: input.pick([1, 0.25, 3, 100]),
            completionCurve: curve,
            interruptible: input.below(4) != 1,
            keyframes: keyframes,
            enabled: input.below(4) != 1,
            reportPosition: input.bool(),
            device: input.below(4) == 1 ? "panel-b" : nil,
            snap: snap(&input))
    }

    /// Snap points one time in three, with every key's extremes.
    static func snap(_ input: inout FuzzBytes) -> SnapSettings? {
        guard input.below(3) == 0 else { return nil }
        let points = input.pick([SnapPoints(pages: 3)!, SnapPoints(pages: 2)!, SnapPoints([0, 0.5, 1])!,
                                 SnapPoints([0.2, 0.9])!, SnapPoints([0, 1e-9, 1])!, SnapPoints(pages: 11)!])
        return SnapSettings(points: points, bidirectional: input.bool(), longSwipes: input.bool(),
                            decelerationRate: input.pick([0.998, 0.99, 0.5001, 0.9999]),
                            overshoot: input.pick(Overshoot.allCases))
    }

    /// The same transitions with other lengths, as a panel's millimetres
    /// resolve them (`applyLengths`).
    static func lengths(of configuration: EngineConfiguration, _ input: inout FuzzBytes) -> EngineConfiguration {
        var resolved = configuration
        for i in resolved.transitions.indices {
            resolved.transitions[i].activation = input.pick([0.02, 0, 0.3])
            resolved.transitions[i].distance = input.pick([1, 0.05, 5])
        }
        return resolved
    }
}
