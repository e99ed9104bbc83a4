import Foundation
import Testing
import TestSupport
import WireFormat
import WireProtocol

/// docs/protocol.md against the code: every daemon line the page shows
/// (its fenced `json` blocks, and each whole `{"type":…}` in its text and
/// tables) decodes as the message of its `type` and encodes back to the
/// same bytes; every command it shows (`{"cmd":…}`) decodes and encodes
/// back, or, where the page shows its refusal, is refused with that line.
/// Editing the page or the code alone fails here.
@Suite("Wire: docs/protocol.md")
struct ProtocolDocTests {
    static let page = (try? String(contentsOfFile: ProjectPaths.file("docs/protocol.md"), encoding: .utf8)) ?? ""

    /// The lines of the fenced `json` blocks.
    static var blockLines: [String] {
        var lines: [String] = [], inJSON = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inJSON = !inJSON && line == "```json"
                continue
            }
            if inJSON && !line.isEmpty { lines.append(String(line)) }
        }
        return lines
    }

    /// Each `` `{…}` `` span of the text that is a whole JSON object.
    static var inlineObjects: [String] {
        page.split(separator: "`").map(String.init).filter { span in
            span.hasPrefix("{\"") && (try? JSONValue.parse(Array(span.utf8)))?.object != nil
        }
    }

    @Test func theDaemonsLinesReadAndEncodeAsShown() throws {
        let lines = Self.blockLines + Self.inlineObjects.filter { $0.hasPrefix("{\"type\":") }
        // hello, 5 events, 4 replies in blocks; pong, ok, error and more in the text.
        #expect(lines.count >= 14, "\(lines.count) lines found: the page moved?")
        var types: Set<String> = []
        for line in lines {
            let message = try StreamMessage.decode(line: line)
            let type = try #require(JSONValue.parse(Array(line.utf8))["type"]?.string)
            types.insert(type)
            switch message {
            case .hello: #expect(type == "hello")
            case .state: #expect(type == "state")
            case .event(let update): #expect(update.kind.rawValue == type)
            case .pong: #expect(type == "pong")
            case .clock: #expect(type == "clock")
            case .ok: #expect(type == "ok")
            case .error: #expect(type == "error")
            case .dump: #expect(type == "dump")
            case .unknown: Issue.record("the page shows a type the code does not know: \(line)")
            }
            #expect(String(decoding: message.encodedLine(), as: UTF8.self) == line + "\n")
        }
        #expect(types.isSuperset(of: ["hello", "began", "changed", "ended", "animating", "finished", "pong", "ok",
                                      "state", "error"]))
    }

    @Test func theCommandsReadAndEncodeAsShown() throws {
        let commands = Self.inlineObjects.filter { $0.hasPrefix("{\"cmd\":") }
        #expect(commands.count >= 10, "\(commands.count) commands found: the page moved?")
        var names: Set<String> = []
        for line in commands {
            switch CommandDecoder.decode(Array(line.utf8)) {
            case .success((let command, let id)):
                names.insert(command.name)
                #expect(String(decoding: command.encodedLine(id: id), as: UTF8.self) == line + "\n")
            case .failure(let error):
                // A refusal the page shows: its reply must be on the page, byte for byte.
                let reply = StreamMessage.error(code: error.code.rawValue, message: error.message, cmd: error.cmd, id: error.id)
                let text = String(decoding: reply.encodedLine().dropLast(), as: UTF8.self)
                #expect(Self.page.contains("`\(text)`"), "\(line) is refused with \(text), which the page does not show")
            }
        }
        #expect(names == ["subscribe", "ping", "state", "clock", "frames", "run", "drive", "release", "cancel", "enable", "dump", "reload", "exclude", "filter_regions"])
    }

    /// The error codes the page lists are the code's.
    @Test func theErrorCodes() {
        let section = Self.page.components(separatedBy: "Error codes:").dropFirst().first?
            .components(separatedBy: "## Client").first ?? ""
        let listed = Set(section.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter { $0.allSatisfy { $0.isLowercase || $0 == "-" || $0.isNumber } && !$0.isEmpty })
        for code in ErrorCode.allCases {
            #expect(listed.contains(code.rawValue), "\(code.rawValue) is not on the page")
        }
    }
}
