import Testing
import WireFormat

/// Every way a line can fail, with the error class and offset.
@Suite("JSON: errors")
struct ParseErrorTests {
    private func error(_ text: String) -> JSONParseError? {
        error(Array(text.utf8))
    }

    private func error(_ bytes: [UInt8]) -> JSONParseError? {
        do {
            let value = try JSONValue.parse(bytes)
            Issue.record("accepted \(bytes): \(value)")
            return nil
        } catch {
            return error
        }
    }

    private func syntaxOffset(_ text: String) -> Int? {
        guard case .syntax(let offset, _)? = error(text) else { return nil }
        return offset
    }

    @Test func empty() {
        #expect(error("") == .empty)
        #expect(error(" \t\r\n") == .empty)
        #expect(error([]) == .empty)
    }

    @Test(arguments: [
        // (text, offset of the syntax error)
        ("[1,]", 3), ("[1,2,]", 5), ("{\"a\":1,}", 7), ("{,}", 1), ("[,1]", 1), ("[1 2]", 3),
        ("{\"a\" 1}", 5), ("{\"a\":}", 5), ("{a:1}", 1), ("{'a':1}", 1), ("['a']", 1),
        ("// comment\n1", 0), ("/* c */ 1", 0), ("1 // c", 2), ("#1", 0),
        ("NaN", 0), ("Infinity", 0), ("-Infinity", 1), ("nan", 0), ("+1", 0),
        ("01", 1), ("-01", 2), ("00", 1), ("1.", 2), (".5", 0), ("1.e5", 2), ("1e", 2), ("1e+", 3), ("-", 1),
        ("0x10", 1), ("1_000", 1),
        ("tru", 0), ("nul", 0), ("True", 0), ("nulll", 4), ("truex", 4),
        ("[", 1), ("{", 1), ("[1", 2), ("{\"a\":1", 6), ("\"abc", 4), ("\"abc\\", 5),
        ("[1]]", 3), ("{} {}", 3), ("1 2", 2), ("\"a\" \"b\"", 4),
        ("\u{FEFF}1", 0), ("\u{A0}1", 0),
    ])
    func syntaxErrors(_ text: String, _ offset: Int) {
        #expect(syntaxOffset(text) == offset, "\(text): \(String(describing: error(text)))")
    }

    @Test func stringErrors() {
        #expect(syntaxOffset("\"a\tb\"") == 2)              // a raw control character
        #expect(syntaxOffset("\"a\nb\"") == 2)
        #expect(syntaxOffset("\"\u{0}\"") == 1)
        #expect(syntaxOffset(#""\x""#) == 1)                // unknown escape
        #expect(syntaxOffset(#""\'""#) == 1)
        #expect(syntaxOffset(#""\u12""#) == 1)              // short \u
        #expect(syntaxOffset(#""\u12G4""#) == 1)
        #expect(syntaxOffset(#""\U0041""#) == 1)
        if case .syntax(_, let message)? = error("\"a\tb\"") { #expect(message.contains("U+0009")) }
    }

    @Test(arguments: [
        #""\ud800""#, #""\uDBFF""#, #""\udc00""#, #""\uDFFF x""#, #""\ud800\u0041""#, #""\ud800x""#,
        #""\ud800\ud800""#, #""\ud800\\""#, #""\udc00\ud800""#, #""ok \ud83d""#,
    ])
    func loneSurrogateEscapes(_ text: String) {
        guard case .syntax(_, let message)? = error(text) else {
            Issue.record("\(text): not a syntax error")
            return
        }
        #expect(message.contains("surrogate"), "\(message)")
    }

    @Test func duplicateKeys() {
        #expect(error(#"{"a":1,"a":2}"#) == .duplicateKey(offset: 7, key: "a"))
        #expect(error(#"{"cmd":"ping","x":{"a":1},"cmd":"run"}"#) == .duplicateKey(offset: 26, key: "cmd"))
        // The same key in different objects is fine.
        #expect((try? JSONValue.parse(#"{"a":{"a":1},"b":{"a":2}}"#)) != nil)
        // Escapes are compared by value: "\u0061" is "a".
        #expect(error(#"{"a":1,"\u0061":2}"#) == .duplicateKey(offset: 7, key: "a"))
        // Large objects (a set is used past 16 keys).
        let keys = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect((try? JSONValue.parse("{\(keys)}"))?.object?.count == 40)
        guard case .duplicateKey(_, "k3")? = error("{\(keys),\"k3\":0}") else {
            Issue.record("duplicate in a large object not found")
            return
        }
    }

    @Test func numbersOutOfRange() {
        #expect(error("1e400") == .numberOutOfRange(offset: 0))
        #expect(error("[0, -1e309]") == .numberOutOfRange(offset: 4))
        #expect(error("1" + String(repeating: "0", count: 400)) == .numberOutOfRange(offset: 0))
        #expect(error("1e999999999999999999") == .numberOutOfRange(offset: 0))
        #expect((try? JSONValue.parse("1e-999999999999999999")) == .number(0))
    }

    @Test func depthLimit() throws {
        let limit = JSONValue.maximumDepth
        #expect(limit == 64)
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect((try? JSONValue.parse(deepest)) != nil)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(error(tooDeep) == .tooDeep(offset: limit, limit: limit))
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(error(objects) == .tooDeep(offset: 5 * limit, limit: limit))
        let mixed = String(repeating: #"[{"a":"#, count: 32) + "1" + String(repeating: "}]", count: 32)
        #expect((try? JSONValue.parse(mixed)) != nil)
        // A huge nesting is refused without recursing through it.
        #expect(error(String(repeating: "[", count: 1_000_000)) == .tooDeep(offset: limit, limit: limit))
    }

    @Test func descriptionsAreReadable() {
        #expect("\(error("[1,]")!)" == "byte 3: trailing comma before ']'")
        #expect("\(error("{\"a\" 1}")!)" == "byte 5: unexpected '1', expected ':' after an object key")
        #expect("\(error("[1")!)" == "byte 2: unexpected end of input, expected ',' or ']'")
        #expect("\(error("é")!)" == "byte 0: unexpected character U+00E9, expected a value")
        #expect("\(error("\u{1}")!)" == "byte 0: unexpected '\\u{01}', expected a value")
        #expect("\(error([0x22, 0xFF, 0x22])!)" == "byte 1: invalid UTF-8")
        #expect("\(error("")!)" == "no JSON value (the line is empty)")
        #expect("\(error(#"{"a":1,"a":2}"#)!)" == "byte 7: duplicate key \"a\"")
        #expect("\(error("1e400")!)" == "byte 0: number out of range")
        #expect("\(error(String(repeating: "[", count: 65))!)" == "byte 64: arrays and objects nest deeper than 64 levels")
        #expect(error("[1,]")?.offset == 3)
    }
}
