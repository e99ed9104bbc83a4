import Engine
import ServerPorts
import WireProtocol

// The fake engine host of the in-process server tests (write path, WebSocket
// transport): no input, no animation; the test makes the events.

/// A host whose events the test makes: `emit` hands them to the server as
/// the engine's own (input, animation frames).
final class ScriptedHost: EngineHost, @unchecked Sendable {
    var identity: DaemonIdentity?
    var configuration = EngineConfiguration(frameRate: 240, transitions: [
        TransitionSpec(name: "back", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05)),
        TransitionSpec(name: "home", gesture: .edgePan(edge: .bottom, fingers: 1, edgeMargin: 0.05)),
    ])
    private(set) var lastSeq: UInt64 = 0
    var liveTransitionCount: Int { configuration.transitions.count }
    private var sink: (([TransitionEvent]) -> Void)?

    func snapshot() -> [TransitionEngine.Snapshot] { [] }
    func prepare(emit: @escaping ([TransitionEvent]) -> Void) { sink = emit }
    func start(emit: @escaping ([TransitionEvent]) -> Void, finished: @escaping () -> Void) { sink = emit }
    func perform(_ command: TransitionEngine.Command, transition: Int,
                 into events: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome { .done }
    /// Where each transition with snap points rests (`hello`, `state`).
    var rests: [Double?] = []
    func shutdown(into events: inout [TransitionEvent]) {}
    /// What the server last set (`setExclusions`).
    private(set) var exclusions: [ScreenRect] = []
    func setExclusions(_ rects: [ScreenRect]) { exclusions = rects }
    func reload(_ configuration: EngineConfiguration) -> [Int?] { [] }
    func streamIndex(of i: Int) -> Int { i }
    /// The input time behind the events `emit` makes (ns, `CLOCK_MONOTONIC`; nil: none).
    var emittingInputTime: Int64? = nil
    /// What `hello` and `state` say of the filter (nil: not filter mode).
    var filterStatus: FilterStatus? = nil

    /// One batch of events of `kind` for `transition`, with rising seqs.
    @discardableResult
    func emit(_ kind: TransitionEvent.Kind, _ count: Int = 1, transition: Int = 0) -> [UInt64] {
        var events: [TransitionEvent] = []
        for _ in 0..<count {
            lastSeq += 1
            events.append(TransitionEvent(kind: kind, transition: transition, seq: lastSeq, time: Double(lastSeq) / 240,
                                          progress: 0.5, velocity: 0))
        }
        sink?(events)
        return events.map(\.seq)
    }
}
