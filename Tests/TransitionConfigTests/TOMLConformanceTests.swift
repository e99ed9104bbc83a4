import Foundation
import TestSupport
import Testing
@testable import TransitionConfig

// MARK: The suite (Tests/TOMLConformance)

/// The project's TOML 1.0 conformance suite: every valid document reads to
/// its expected values (tagged JSON, as Tests/TOMLConformance/README.md
/// describes), every invalid one is refused at its expected line. Seeded
/// mutations of the suite's documents never trap the reader.
@Suite("TOML 1.0 conformance")
struct TOMLConformanceTests {
    static let folder = ProjectPaths.file("Tests/TOMLConformance")

    static func names(in kind: String, ext: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + kind)) ?? []
        return files.filter { $0.hasSuffix("." + ext) }.map { String($0.dropLast(ext.count + 1)) }.sorted()
    }

    static func bytes(_ relative: String) -> [UInt8] {
        (FileManager.default.contents(atPath: folder + "/" + relative)).map { Array($0) } ?? []
    }

    static let valid = names(in: "valid", ext: "toml")
    /// `NAME.toml LINE  # why`, from invalid/EXPECTED.
    static let invalid: [(name: String, line: Int)] = {
        String(decoding: bytes("invalid/EXPECTED"), as: UTF8.self).split(separator: "\n").compactMap { entry in
            let fields = entry.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let line = Int(fields[1]) else { return nil }
            return (String(fields[0]), line)
        }
    }()

    @Test func theSuiteIsThere() {
        #expect(Self.valid.count >= 100, "valid documents: \(Self.valid.count)")
        #expect(Self.invalid.count >= 200, "invalid documents: \(Self.invalid.count)")
    }

    @Test(arguments: valid)
    func aValidDocumentReadsToItsValues(_ name: String) throws {
        let document: TOMLTable
        do {
            document = try TOMLReader.read(bytes: Self.bytes("valid/\(name).toml"), file: "\(name).toml")
        } catch {
            Issue.record("refused: \(error)")
            return
        }
        var parser = TinyJSON(Self.bytes("valid/\(name).json"))
        let expected = try parser.value()
        let difference = Self.compare(.table(document), expected, at: "")
        #expect(difference == nil, "\(name): \(difference ?? "")")
    }

    @Test(arguments: invalid.map(\.name))
    func anInvalidDocumentIsRefusedAtItsLine(_ name: String) {
        let line = Self.invalid.first { $0.name == name }?.line
        do {
            _ = try TOMLReader.read(bytes: Self.bytes("invalid/\(name)"), file: name)
            Issue.record("\(name): read without an error")
        } catch {
            #expect(error.line == line, "\(name): \(error)")
            #expect(error.column != nil, "\(name): a syntax error has a column")
        }
    }

    // MARK: Comparing

    /// Where the value read differs from the expected tagged JSON, or nil.
    static func compare(_ value: TOMLValue, _ expected: TinyJSON.Value, at path: String) -> String? {
        switch (value, expected) {
        case (.table(let table), .object(let members)):
            let got = table.keys.map { Array($0.utf8) }
            let want = members.map { Array($0.key.utf8) }
            guard Set(got) == Set(want), got.count == want.count else {
                return "\(path): keys \(table.keys) ≠ \(members.map(\.key))"
            }
            for member in members {
                guard let node = table[member.key] else { return "\(path): no key \(member.key)" }
                if let difference = compare(node.value, member.value, at: path + "." + member.key) { return difference }
            }
            return nil
        case (.tableArray(let array), .array(let items)):
            guard array.tables.count == items.count else { return "\(path): \(array.tables.count) tables ≠ \(items.count)" }
            for (k, (table, item)) in zip(array.tables, items).enumerated() {
                if let difference = compare(.table(table), item, at: "\(path)[\(k)]") { return difference }
            }
            return nil
        case (.array(let nodes), .array(let items)):
            guard nodes.count == items.count else { return "\(path): \(nodes.count) items ≠ \(items.count)" }
            for (k, (node, item)) in zip(nodes, items).enumerated() {
                if let difference = compare(node.value, item, at: "\(path)[\(k)]") { return difference }
            }
            return nil
        case (_, .object(let members)):
            guard let type = members.first(where: { $0.key == "type" })?.value.text,
                  let text = members.first(where: { $0.key == "value" })?.value.text else {
                return "\(path): expected a table, read \(value.typeName)"
            }
            return compareScalar(value, type: type, text: text) ? nil : "\(path): read \(value), expected \(type) \(text)"
        default:
            return "\(path): read \(value.typeName), expected \(expected)"
        }
    }

    static func compareScalar(_ value: TOMLValue, type: String, text: String) -> Bool {
        switch (value, type) {
        case (.string(let s), "string"): return Array(s.utf8) == Array(text.utf8)
        case (.integer(let n), "integer"): return Int(text) == n
        case (.boolean(let b), "bool"): return (b ? "true" : "false") == text
        case (.float(let x), "float"):
            switch text {
            case "nan": return x.isNaN
            case "inf": return x == .infinity
            case "-inf": return x == -.infinity
            default: return Double(text) == x
            }
        case (.dateTime(let d), "datetime"): return d.kind == .offsetDateTime && d.text == text
        case (.dateTime(let d), "datetime-local"): return d.kind == .localDateTime && d.text == text
        case (.dateTime(let d), "date-local"): return d.kind == .localDate && d.text == text
        case (.dateTime(let d), "time-local"): return d.kind == .localTime && d.text == text
        default: return false
        }
    }

    // MARK: Mutations

    /// Seeded mutations of every document of the suite (bytes flipped,
    /// dropped, doubled, spliced from another document): the reader answers
    /// each with a tree or a `ConfigError` on a line of the document, and
    /// never traps.
    @Test func mutatedDocumentsNeverTrapTheReader() {
        var random = SeededRandom(seed: 0x70_4D_4C)
        let documents = Self.valid.map { Self.bytes("valid/\($0).toml") } + Self.invalid.map { Self.bytes("invalid/\($0.name)") }
        let alphabet = Array("[]{}=\"'.,#\\\n\r\t 0123456789abcdefxob_+-:TZ".utf8) + [0x00, 0x7F, 0xC3, 0xFF]
        var refused = 0
        var read = 0
        for round in 0..<4000 {
            var bytes = documents[round % documents.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where !bytes.isEmpty: bytes[index] = alphabet.randomElement(using: &random)!
                case 1 where !bytes.isEmpty: bytes.remove(at: index)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                default:
                    let other = documents.randomElement(using: &random)!
                    if !other.isEmpty {
                        let start = Int.random(in: 0..<other.count, using: &random)
                        bytes.insert(contentsOf: other[start..<min(other.count, start + 16)], at: index)
                    }
                }
            }
            let lines = bytes.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            do {
                _ = try TOMLReader.read(bytes: bytes, file: "mutant.toml")
                read += 1
            } catch {
                refused += 1
                if let line = error.line, !(1...lines).contains(line) {
                    Issue.record("round \(round): line \(line) of a \(lines)-line document: \(error)")
                }
            }
        }
        #expect(read > 100 && refused > 1000, "read \(read), refused \(refused)")
    }
}

// MARK: A JSON reader that keeps keys as written

/// JSON for the suite's expectations, with object members kept in order and
/// compared by their bytes (Foundation's and Swift's dictionaries would take
/// two canonically equivalent keys for one; TOML does not).
struct TinyJSON {
    indirect enum Value: CustomStringConvertible {
        case string(String)
        case array([Value])
        case object([(key: String, value: Value)])
        case other(String)

        var text: String? {
            if case .string(let s) = self { return s }
            return nil
        }

        var description: String {
            switch self {
            case .string(let s): return "\"\(s)\""
            case .array(let items): return "[\(items.map(\.description).joined(separator: ", "))]"
            case .object(let members): return "{\(members.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
            case .other(let text): return text
            }
        }
    }

    struct Failure: Error {}

    private let bytes: [UInt8]
    private var pos = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func value() throws -> Value {
        skipSpace()
        guard pos < bytes.count else { throw Failure() }
        switch bytes[pos] {
        case UInt8(ascii: "{"):
            pos += 1
            var members: [(key: String, value: Value)] = []
            skipSpace()
            if bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(members) }
            while true {
                skipSpace()
                guard case .string(let key) = try value() else { throw Failure() }
                skipSpace()
                guard bytes[pos] == UInt8(ascii: ":") else { throw Failure() }
                pos += 1
                members.append((key, try value()))
                skipSpace()
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                guard bytes[pos] == UInt8(ascii: "}") else { throw Failure() }
                pos += 1
                return .object(members)
            }
        case UInt8(ascii: "["):
            pos += 1
            var items: [Value] = []
            skipSpace()
            if bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
            while true {
                items.append(try value())
                skipSpace()
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                guard bytes[pos] == UInt8(ascii: "]") else { throw Failure() }
                pos += 1
                return .array(items)
            }
        case UInt8(ascii: "\""):
            pos += 1
            var out = ""
            while bytes[pos] != UInt8(ascii: "\"") {
                if bytes[pos] == UInt8(ascii: "\\") {
                    pos += 1
                    switch bytes[pos] {
                    case UInt8(ascii: "n"): out += "\n"
                    case UInt8(ascii: "t"): out += "\t"
                    case UInt8(ascii: "r"): out += "\r"
                    case UInt8(ascii: "b"): out += "\u{8}"
                    case UInt8(ascii: "f"): out += "\u{C}"
                    case UInt8(ascii: "u"):
                        var code = UInt32(String(decoding: bytes[(pos + 1)...(pos + 4)], as: UTF8.self), radix: 16) ?? 0
                        pos += 4
                        if (0xD800..<0xDC00).contains(code), bytes[pos + 1] == UInt8(ascii: "\\"), bytes[pos + 2] == UInt8(ascii: "u") {
                            let low = UInt32(String(decoding: bytes[(pos + 3)...(pos + 6)], as: UTF8.self), radix: 16) ?? 0
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            pos += 6
                        }
                        out.unicodeScalars.append(Unicode.Scalar(code) ?? "?")
                    default: out.unicodeScalars.append(Unicode.Scalar(bytes[pos]))
                    }
                    pos += 1
                } else {
                    let start = pos
                    while bytes[pos] != UInt8(ascii: "\""), bytes[pos] != UInt8(ascii: "\\") { pos += 1 }
                    out += String(decoding: bytes[start..<pos], as: UTF8.self)
                }
            }
            pos += 1
            return .string(out)
        default:
            let start = pos
            while pos < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A].contains(bytes[pos]) { pos += 1 }
            return .other(String(decoding: bytes[start..<pos], as: UTF8.self))
        }
    }

    private mutating func skipSpace() {
        while pos < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[pos]) { pos += 1 }
    }
}
