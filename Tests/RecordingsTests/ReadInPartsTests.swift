import Foundation
@testable import Recordings
import TestSupport
import Testing
import Engine

/// `RecordingReader.read(path:begin:more:)` hands a recording over in parts
/// while it reads (for a replay that starts before the file is read whole):
/// the parts together, the description and every error must be exactly
/// those of `read(path:)`.
struct ReadInPartsTests {
    /// What the parts reader handed over.
    struct Parts {
        var begun: [Recording] = []
        var more: [[InputEvent]] = []
        var events: [InputEvent] { (begun.first?.events ?? []) + more.flatMap { $0 } }
    }

    func readInParts(_ path: String, description: String? = nil, into parts: inout Parts) throws(RecordingError) {
        var got = Parts()
        defer { parts = got }
        try RecordingReader.read(path: path, descriptionPath: description,
                                 begin: { got.begun.append($0) }, more: { got.more.append($0) })
    }

    func file(_ text: String, _ suffix: String = ".events") throws -> String {
        try temporaryFile("parts-\(UInt64.random(in: 0...UInt64.max))\(suffix)", Array(text.utf8))
    }

    /// A description and `count` events: about 40 bytes a line, so a
    /// hundred thousand lines are many read chunks.
    func recording(events count: Int, description: Bool = true) -> String {
        var text = description ? sampleDescription : ""
        for index in 0..<count {
            text += "E: \(index / 1_000_000).\(String(1_000_000 + index % 1_000_000).dropFirst()) 0003 0035 \(index)\n"
        }
        return text
    }

    @Test(arguments: [0, 1, 5_000, 100_000])
    func thePartsTogetherAreTheRecording(events: Int) throws {
        let path = try file(recording(events: events))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try RecordingReader.read(path: path)
        var parts = Parts()
        try readInParts(path, into: &parts)
        #expect(parts.begun.count == 1)
        #expect(parts.begun.first?.description == whole.description)
        #expect(parts.events == whole.events)
        #expect(parts.events.count == events)
        if events == 100_000 {
            #expect(parts.more.count > 5, "a large file comes in many parts")
            #expect(!(parts.begun.first?.events.isEmpty ?? true), "the replay can start on the first")
        }
    }

    @Test func aBadLineAfterThePartsHandedOverIsReadsOwnError() throws {
        let path = try file(recording(events: 100_000) + "E: 9.000000 0003 0035\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = try #require(throws: RecordingError.self) { try RecordingReader.read(path: path) }
        var parts = Parts()
        let error = try #require(throws: RecordingError.self) { try readInParts(path, into: &parts) }
        #expect(error == expected)
        #expect(error.line == 100_000 + sampleDescription.split(separator: "\n").count + 1)
        #expect(parts.begun.count == 1, "parts were handed over before the error, for the caller to drop")
    }

    @Test func eventsWithoutADescriptionFailAsReadDoesWithNothingHandedOver() throws {
        let path = try file(recording(events: 50_000, description: false))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let expected = try #require(throws: RecordingError.self) { try RecordingReader.read(path: path) }
        var parts = Parts()
        let error = try #require(throws: RecordingError.self) { try readInParts(path, into: &parts) }
        #expect(error == expected)
        #expect(parts.begun.isEmpty && parts.more.isEmpty)
    }

    @Test func aSeparateDescriptionWinsAndABadOneFailsAsReadDoes() throws {
        let events = try file(recording(events: 20_000, description: false))
        let description = try file(sampleDescription, ".desc")
        let empty = try file("# nothing here\n", ".desc")
        defer { for path in [events, description, empty] { try? FileManager.default.removeItem(atPath: path) } }
        let whole = try RecordingReader.read(path: events, descriptionPath: description)
        var parts = Parts()
        try readInParts(events, description: description, into: &parts)
        #expect(parts.begun.first?.description == whole.description)
        #expect(parts.events == whole.events)

        let expected = try #require(throws: RecordingError.self) {
            try RecordingReader.read(path: events, descriptionPath: empty)
        }
        let error = try #require(throws: RecordingError.self) {
            try readInParts(events, description: empty, into: &parts)
        }
        #expect(error == expected)
        #expect(parts.begun.isEmpty)
    }

    @Test func aLibinputRecordIsHandedOverOnceReadWhole() throws {
        var text = LibinputRecordTests.valid
        for index in 0..<12_000 {
            text += "  - evdev:\n    - [  2, \(String(100_000 + index)),   3,  53,  \(index)]\n"
        }
        let path = try file(text, ".yml")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try RecordingReader.read(path: path)
        var parts = Parts()
        try readInParts(path, into: &parts)
        #expect(parts.begun.count == 1 && parts.more.isEmpty)
        #expect(parts.events == whole.events)
        #expect(parts.begun.first?.description == whole.description)
    }
}
