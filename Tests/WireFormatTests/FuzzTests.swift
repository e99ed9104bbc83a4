import TestSupport
import Testing
import WireFormat

/// The reader never traps: random bytes, mutations of valid lines, and
/// random documents that must read back to themselves.
@Suite("JSON: fuzz")
struct FuzzTests {
    static let seeds: [String] = [
        #"{"type":"hello","protocol":1,"version":"0.1.0","transitions":[{"name":"back","gesture":"edge-pan","fingers":1}],"active":[{"transition":"back","phase":"interacting","progress":0.42,"values":{"dim":0.16}}],"seq":17}"#,
        #"{"type":"ended","transition":"back","seq":60,"time":12.9,"progress":0.66,"velocity":-0.23,"values":{"dim":0},"decision":"finish","reason":"released"}"#,
        #"{"cmd":"drive","transition":"back","progress":4e-1,"id":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}"#,
        #"[true,false,null,[],{},[[[]]],-0.5E+3,"é😀"]"#,
    ]

    /// Parses and checks the outcome is sane; a trap would end the test run.
    private func check(_ bytes: [UInt8]) {
        do {
            let value = try JSONValue.parse(bytes)
            // Whatever was accepted reads back the same from its own text.
            #expect((try? JSONValue.parse(value.jsonText)) == value, "\(bytes)")
        } catch {
            #expect(error.offset >= 0 && error.offset <= bytes.count, "\(error) for \(bytes.count) bytes")
            #expect(!error.description.isEmpty)
        }
    }

    @Test func randomBytes() {
        var rng = SeededRandom(seed: 0x4A53_4F4E)
        let alphabet = Array(#"{}[]:,"\ -+.eE0123456789tfnrulsauUdDcC"#.utf8) + [0x80, 0xC3, 0xA9, 0xED, 0xF0, 0x9F, 0xFF, 0x00, 0x0A]
        for round in 0..<20_000 {
            let count = rng.below(64)
            let bytes: [UInt8] = (0..<count).map { _ in
                round % 2 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[rng.below(alphabet.count)]
            }
            check(bytes)
        }
    }

    @Test func mutatedLines() {
        var rng = SeededRandom(seed: 0x4D55_5441_5445)
        for seed in Self.seeds {
            let original = Array(seed.utf8)
            #expect((try? JSONValue.parse(original)) != nil)
            for _ in 0..<5_000 {
                var bytes = original
                for _ in 0..<(1 + rng.below(4)) {
                    let at = rng.below(bytes.count + 1)
                    switch rng.below(5) {
                    case 0 where at < bytes.count: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                    case 1 where at < bytes.count: bytes.remove(at: at)
                    case 2: bytes.insert(original[rng.below(original.count)], at: at)
                    case 3 where at < bytes.count: bytes[at] ^= 1 << UInt8(rng.below(8))
                    default: bytes = Array(bytes.prefix(at))
                    }
                }
                check(bytes)
            }
        }
    }

    @Test func randomDocumentsRoundTrip() throws {
        var rng = SeededRandom(seed: 0x524F_554E_44)
        for _ in 0..<3_000 {
            let value = Self.randomValue(&rng, depth: 0)
            let text = value.jsonText
            #expect(try JSONValue.parse(text) == value, "\(text)")
        }
    }

    static func randomValue(_ rng: inout SeededRandom, depth: Int) -> JSONValue {
        switch rng.below(depth > 5 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(rng.below(2) == 0)
        case 2:
            let raw = Double(bitPattern: rng.next())
            return .number(raw.isFinite ? raw : Double(Int64(truncatingIfNeeded: rng.next() >> 20)))
        case 3: return .number(Double(rng.below(2_000_001) - 1_000_000) / Double([1, 10, 1000, 1_000_000][rng.below(4)]))
        case 4: return .string(randomString(&rng))
        case 5: return .array((0..<rng.below(5)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<rng.below(5) { object[randomString(&rng)] = randomValue(&rng, depth: depth + 1) }
            return .object(object)
        }
    }

    static func randomString(_ rng: inout SeededRandom) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}",
                                      "é", "€", "\u{FFFF}", "\u{2028}", "😀", "\u{10FFFF}"]
        var s = String.UnicodeScalarView()
        for _ in 0..<rng.below(8) { s.append(pool[rng.below(pool.count)]) }
        return String(s)
    }
}
