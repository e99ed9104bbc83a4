@testable import Engine

/// Drives an engine with hand-made frames and collects what it emits.
struct EngineHarness {
    var engine: TransitionEngine
    var events: [TransitionEvent] = []

    init(_ specs: [TransitionSpec], frameRate: Double = 60) {
        engine = TransitionEngine(configuration: EngineConfiguration(frameRate: frameRate, transitions: specs))
    }

    /// Feeds one frame whose contacts are (id, x, y); touch-down positions
    /// are remembered from each id's first appearance.
    /// With `source`, the frame is that touchscreen's (ids are per source).
    mutating func frame(_ t: Double, _ contacts: [(Int, Double, Double)], source: Int = 0) {
        var list: [Contact] = []
        for (id, x, y) in contacts {
            let key = source * 1_000_000 + id
            let down = downs[key] ?? (x, y)
            downs[key] = down
            list.append(Contact(id: id, x: x, y: y, downX: down.0, downY: down.1))
        }
        engine.process(TouchFrame(time: t, contacts: list, source: source), into: &events)
    }
    var downs: [Int: (Double, Double)] = [:]

    mutating func settle() { engine.settle(into: &events) }

    /// A one-finger drag of contact 1 through the given (t, x) with fixed y.
    mutating func drag(_ points: [(Double, Double)], y: Double = 0.5, id: Int = 1) {
        for (t, x) in points { frame(t, [(id, x, y)]) }
    }

    func kinds() -> [TransitionEvent.Kind] { events.map(\.kind) }
    func first(_ kind: TransitionEvent.Kind) -> TransitionEvent? { events.first { $0.kind == kind } }
    func all(_ kind: TransitionEvent.Kind) -> [TransitionEvent] { events.filter { $0.kind == kind } }
}

func backSpec(_ edge: Edge = .left, fingers: Int = 1, curve: CompletionCurve = .timing(.linear),
              interruptible: Bool = true, keyframes: [KeyframeTrack] = []) -> TransitionSpec {
    TransitionSpec(name: "back", gesture: .edgePan(edge: edge, fingers: fingers, edgeMargin: 0.05),
                   completionCurve: curve, interruptible: interruptible, keyframes: keyframes)
}

func near(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

/// Evenly spaced samples of x from `from` to `to` over [t0, t1] at `hz`.
func ramp(from: Double, to: Double, t0: Double, t1: Double, hz: Double = 100) -> [(Double, Double)] {
    let n = Int(((t1 - t0) * hz).rounded())
    return (0...n).map { k in
        let u = Double(k) / Double(n)
        return (t0 + (t1 - t0) * u, from + (to - from) * u)
    }
}
