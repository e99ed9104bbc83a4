import Recordings
import Replay
import Engine

/// Plays a recording the fuzzer got a reader to accept through the engine,
/// as `transitiond replay --fast` would, checking the engine's invariants on
/// the way and that nothing is left half-way once it is over: what a reader
/// accepts is what the engine is fed.
public enum RecordingPlayback {
    /// A config with one transition of each gesture and curve kind, so that
    /// a recording has something to begin whatever its fingers do.
    static let configuration = EngineConfiguration(frameRate: 60, transitions: [
        EngineConfiguration.standard.transitions[0],
        TransitionSpec(name: "forward", gesture: .edgePan(edge: .right, fingers: 1, edgeMargin: 0.05),
                       completionCurve: .spring(dampingRatio: 0.5, stiffness: 300)),
        TransitionSpec(name: "home", gesture: .swipe(direction: .up, fingers: 3),
                       completionCurve: .timing(.easeInOut)),
        TransitionSpec(name: "zoom", gesture: .pinch(direction: .in), completionCurve: .timing(.linear),
                       keyframes: [KeyframeTrack(property: "scale", start: 0.2, duration: 0.5, from: 1, to: 0.5)],
                       reportPosition: true),
    ])

    /// Replays `events` from `device`; a device the engine cannot read
    /// (no touch axes, an empty range) is refused before any event, as
    /// the replay command refuses it.
    public static func play(_ events: [InputEvent], device: DeviceDescription, path: String, explain: Bool) {
        var session: ReplaySession
        do {
            session = try ReplaySession(configuration: configuration,
                                        inputs: [ReplayInput(path: path, device: device, events: events)])
        } catch {
            return
        }
        if explain { session.explain() }
        var invariants = EngineInvariants(timesRise: timesRise(events))
        var out: [TransitionEvent] = []
        // Each step takes an input frame, an animation frame or the end of
        // the recording, so a finite recording ends in finitely many.
        while !session.isFinished {
            let specs = session.engine.configuration.transitions
            out.removeAll(keepingCapacity: true)
            session.step(into: &out)
            invariants.check(out, specs: specs, machines: session.engine.machines)
            if explain { _ = session.takeExplanations() }
        }
        invariants.checkSettled(session.engine)
    }
}
