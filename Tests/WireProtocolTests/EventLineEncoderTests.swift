import Testing
import TestSupport
import WireProtocol

/// The daemon's prepared event encoder writes, byte for byte, what the
/// general encoder writes for the same event: one encoding, two speeds.
@Suite("Wire: the prepared event encoder")
struct EventLineEncoderTests {
    static let transitions: [(name: String, properties: [String])] = [
        ("back", ["dim", "shift"]), ("home \"\\\u{7}", []), ("pinch", ["scale"]),
    ]

    @Test func linesAreTheGeneralEncodersLines() {
        let prepared = EventLineEncoder(transitions: Self.transitions)
        var random = SeededRandom(seed: 26)
        func number() -> Double {
            switch random.below(5) {
            case 0: return 0
            case 1: return -0.0
            case 2: return Double(random.below(2_000_001)) / 1e6 - 1
            case 3: return Double(bitPattern: random.next() & 0x7FEF_FFFF_FFFF_FFFF) * (random.below(2) == 0 ? 1 : -1)
            default: return Double(random.below(1000)) * 1.25
            }
        }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { random.below(2) == 0 ? value() : nil }
        for _ in 0..<2000 {
            let t = random.below(Self.transitions.count)
            let values = Self.transitions[t].properties.map { PropertyValue($0, number()) }
            let update = TransitionUpdate(
                kind: TransitionUpdate.Kind.allCases[random.below(6)], transition: Self.transitions[t].name,
                seq: random.next() >> UInt64(random.below(64)), time: number(), progress: number(), velocity: number(),
                values: values, decision: maybe(TransitionUpdate.Decision.allCases[random.below(3)]),
                reason: maybe(TransitionUpdate.Reason.allCases[random.below(6)]), target: maybe(number()),
                position: maybe(TransitionUpdate.Position(x: number(), y: number())),
                index: maybe(random.below(1000)))
            let w = JSONWriter(capacity: 64)
            prepared.encode(update.kind, transition: t, seq: update.seq, time: update.time, progress: update.progress,
                            velocity: update.velocity, decision: update.decision, reason: update.reason,
                            target: update.target, index: update.index, position: update.position,
                            into: w) { values[$0].value }
            #expect(w.bytes == update.encodedLine(), "\(String(decoding: w.bytes, as: UTF8.self))")
        }
    }
}
