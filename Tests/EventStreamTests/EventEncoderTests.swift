import Testing
import Engine
import EventStream
import WireProtocol

@Suite("Event lines")
struct EventLineTests {
    let encoder = EventEncoder(configuration: .standard)

    func line(_ e: TransitionEvent) -> String {
        let w = JSONWriter()
        encoder.encode(e, into: w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    @Test func began() {
        let e = TransitionEvent(kind: .began, transition: 0, seq: 1, time: 0.1234, progress: 0.021, velocity: 0)
        #expect(line(e) == #"{"type":"began","transition":"back","seq":1,"time":0.1234,"progress":0.021,"velocity":0,"values":{"dim":0.958}}"# + "\n")
    }

    @Test func endedCarriesDecisionAndReason() {
        let e = TransitionEvent(kind: .ended, transition: 0, seq: 7, time: 1, progress: 0.6, velocity: -0.25,
                                decision: .finish, reason: .deviceLost)
        #expect(line(e) == #"{"type":"ended","transition":"back","seq":7,"time":1,"progress":0.6,"velocity":-0.25,"values":{"dim":0},"decision":"finish","reason":"device-lost"}"# + "\n")
    }

    @Test func animatingCarriesTarget() {
        let e = TransitionEvent(kind: .animating, transition: 0, seq: 8, time: 1.016667, progress: 0.25, velocity: -3, target: 0)
        #expect(line(e).hasSuffix(#""values":{"dim":0.5},"target":0}"# + "\n"))
    }

    @Test func helloListsTransitionsAndActive() {
        let w = JSONWriter()
        encoder.hello(active: [TransitionEngine.Snapshot(transition: 0, phase: .animating, progress: 0.75, target: 1)], into: w)
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"type":"hello","protocol":1,"version":"0.1.0","transitions":[{"name":"back","gesture":"edge-pan","fingers":1,"edge":"left"}],"active":[{"transition":"back","phase":"animating","progress":0.75,"values":{"dim":0},"target":1}]}"# + "\n")
    }

    /// The engine's words are the wire's, spelled alike.
    @Test func engineTypesMapToTheWiresOfTheSameSpelling() {
        for kind in TransitionEvent.Kind.allCases { #expect(kind.wire.rawValue == kind.rawValue) }
        for decision in [Decision.finish, .cancel] {
            #expect(decision.wire.rawValue == decision.rawValue)
            #expect(decision.wire.engine == decision)
        }
        for reason in [EndReason.released, .deviceLost, .clientLost, .command, .shutdown, .reload, .palm, .stuck] {
            #expect(reason.wire.rawValue == reason.rawValue)
        }
    }
}
