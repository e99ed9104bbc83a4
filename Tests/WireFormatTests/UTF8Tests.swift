import TestSupport
import Testing
import WireFormat

/// UTF-8 checking: every ill-formed sequence is `invalidUTF8` at the first
/// byte of the sequence, inside or outside strings.
@Suite("JSON: UTF-8")
struct UTF8Tests {
    private func parseString(_ content: [UInt8]) -> Result<JSONValue, JSONParseError> {
        Result { () throws(JSONParseError) in try JSONValue.parse([0x22] + content + [0x22]) }
    }

    @Test(arguments: [
        [0x41], [0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80],
        [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
        [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF3, 0xBF, 0xBF, 0xBF],
    ] as [[UInt8]])
    func wellFormed(_ bytes: [UInt8]) throws {
        let value = try parseString(bytes).get()
        #expect(value == .string(String(decoding: bytes, as: UTF8.self)))
        #expect(UTF8Validation.isValid(bytes))
    }

    @Test(arguments: [
        [0x80], [0xBF], [0x41, 0x80],                        // stray continuation bytes
        [0xC0, 0x80], [0xC1, 0xBF], [0xC0, 0xAF],             // overlong 2-byte (incl. NUL and '/')
        [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],               // overlong 3-byte
        [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],   // overlong 4-byte
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],               // encoded surrogates D800, DFFF
        [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80],                 // an encoded surrogate pair (CESU-8)
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],   // past U+10FFFF
        [0xF8, 0x88, 0x80, 0x80, 0x80], [0xFE], [0xFF],
        [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98],             // truncated (at the closing quote)
        [0xE2, 0x82, 0x41], [0xC3, 0x41], [0xF0, 0x9F, 0x41, 0x80],  // bad continuation
    ] as [[UInt8]])
    func illFormedInAString(_ bytes: [UInt8]) {
        let offset = bytes.first == 0x41 ? 2 : 1   // the byte after the quote (or after the 'A')
        guard case .failure(let error) = parseString(bytes) else {
            Issue.record("accepted \(bytes)")
            return
        }
        #expect(error == .invalidUTF8(offset: offset), "\(bytes)")
        #expect(!UTF8Validation.isValid(bytes))
    }

    @Test func illFormedOutsideStringsAndAtTheEnd() {
        #expect(throws: JSONParseError.invalidUTF8(offset: 0)) { try JSONValue.parse([0xFF]) }
        #expect(throws: JSONParseError.invalidUTF8(offset: 3)) { try JSONValue.parse([0x5B, 0x31, 0x2C, 0xC3]) }
        // Truncated at the very end of the input.
        #expect(throws: JSONParseError.invalidUTF8(offset: 1)) { try JSONValue.parse([0x22, 0xF0, 0x9F]) }
        // Invalid UTF-8 wins over an earlier syntax error: the server answers bad-utf8.
        #expect(throws: JSONParseError.invalidUTF8(offset: 5)) { try JSONValue.parse(Array("{,,,}".utf8) + [0x80]) }
        // Past the eight-byte ASCII fast path, at every alignment.
        for prefix in 0..<20 {
            let bytes = [0x22] + Array(repeating: UInt8(ascii: "a"), count: prefix) + [0xC0, 0x80, 0x22]
            #expect(throws: JSONParseError.invalidUTF8(offset: prefix + 1)) { try JSONValue.parse(bytes) }
        }
    }

    @Test func validatorAgreesWithTheStandardLibrary() {
        var rng = SeededRandom(seed: 0x5554_462D_38)
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                                    0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0..<20_000 {
            let count = Int(rng.next() % 12)
            let bytes = (0..<count).map { _ in interesting[Int(rng.next() % UInt64(interesting.count))] }
            let reference = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validation.isValid(bytes) == reference, "\(bytes)")
        }
    }
}
