import Engine
import Recordings
import Replay

/// Loads a recording (with an optional description) for an in-process replay.
func replayInput(_ path: String, description: String? = nil) throws -> ReplayInput {
    let recording = try RecordingReader.read(path: path, descriptionPath: description)
    return ReplayInput(path: path, device: recording.description!, events: recording.events)
}

/// Replays inputs on the virtual clock and returns every event.
func replayAll(_ configuration: EngineConfiguration, _ inputs: [ReplayInput], loops: Int = 1) throws -> [TransitionEvent] {
    var session = try ReplaySession(configuration: configuration, inputs: inputs, loops: loops)
    var all: [TransitionEvent] = []
    session.run { all.append(contentsOf: $0) }
    return all
}

/// "name:began", "name:finish", … for engine events.
func outcomes(_ events: [TransitionEvent], _ configuration: EngineConfiguration) -> [String] {
    events.compactMap { e in
        let name = configuration.transitions[e.transition].name
        switch e.kind {
        case .began: return "\(name):began"
        case .ended: return "\(name):\(e.decision!.rawValue)"
        case .finished, .cancelled: return "\(name):\(e.kind.rawValue)"
        case .changed, .animating: return nil
        }
    }
}
