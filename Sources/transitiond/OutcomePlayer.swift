import Engine
import Replay
import TransitionConfig

/// Plays one recording alone (a fresh engine), as `replay --fast` plays it,
/// and says how its gestures ended: `verify`, `verify --corpus` and `tune`
/// judge configs by the same run. `tune` plays the same recordings under
/// many engine configurations; the panel's geometry and palm rule stay the daemon config's.
struct OutcomePlayer {
    var daemon: DaemonConfiguration

    init(_ daemon: DaemonConfiguration) {
        self.daemon = daemon
    }

    /// The `ended` events of `input` under `engine` (default: the daemon config's).
    func outcomes(of input: ReplayInput, engine: EngineConfiguration? = nil) throws -> [GestureOutcome] {
        let configuration = engine ?? daemon.engine
        var session: ReplaySession
        do {
            session = try ReplaySession(configuration: configuration, inputs: [input], geometry: daemon.input.geometry(),
                                        palmMillimetres: daemon.filter.palmMillimetres)
        } catch {
            throw Failure(.dataError, error.description)
        }
        let names = configuration.transitions.map(\.name)
        var outcomes: [GestureOutcome] = []
        session.run { events in outcomes += GestureOutcome.outcomes(of: events, names: names) }
        return outcomes
    }
}
