import Foundation
@testable import Recordings
import Testing
import Engine

/// Reading files: `--description` pairing, the hint for an events-only file,
/// and errors from the file system.
struct DescriptionFileTests {
    /// A fresh folder with the given files.
    func folder(_ files: [String: String]) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("recordings-tests-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: url.appendingPathComponent(name))
        }
        return url
    }

    let eventsOnly = "E: 1330495970.996848 0003 0039 4\nE: 1330495970.996860 0000 0000 0\n"

    @Test func eventsOnlyFileNamesTheSiblingDescription() throws {
        let url = try folder([
            "My Pad.desc": sampleDescription,
            "My.desc": sampleDescription,
            "My Pad.swipe.events": eventsOnly,
        ])
        defer { try? FileManager.default.removeItem(at: url) }
        let path = url.appendingPathComponent("My Pad.swipe.events").path
        let error = try #require(throws: RecordingError.self) { try RecordingReader.read(path: path) }
        #expect(error.file == path)
        #expect(error.line == 1)
        #expect(error.message.contains("the file has events but no device description"))
        #expect(error.message.contains("pass the device's description with --description FILE.desc"))
        // The longest fitting name wins, written as a shell word.
        let sibling = url.appendingPathComponent("My Pad.desc").path
        #expect(error.message.hasSuffix("--description '\(sibling)'"))

        let recording = try RecordingReader.read(path: path, descriptionPath: sibling)
        #expect(recording.description?.name == "Sample Touch")
        #expect(recording.events.count == 2)
    }

    @Test func eventsOnlyFileWithoutSibling() throws {
        let url = try folder(["other.desc": sampleDescription, "pad.events": eventsOnly])
        defer { try? FileManager.default.removeItem(at: url) }
        let error = try #require(throws: RecordingError.self) {
            try RecordingReader.read(path: url.appendingPathComponent("pad.events").path)
        }
        #expect(error.message.hasSuffix("pass the device's description with --description FILE.desc"))
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason))
    func realEventsOnlyFileHint() throws {
        let error = try #require(throws: RecordingError.self) {
            try RecordingReader.read(path: Fixtures.evemu("Wacom ISDv4 E6 Finger.double-top-swipe.events"))
        }
        #expect(error.line == 1)
        #expect(error.message.contains("--description '\(Fixtures.evemu("Wacom ISDv4 E6 Finger.desc"))'"))
    }

    @Test func separateDescriptionWinsOverTheRecordingsOwn() throws {
        let other = sampleDescription.replacingOccurrences(of: "N: Sample Touch", with: "N: Other Touch")
        let url = try folder(["own.events": sampleDescription + eventsOnly, "other.desc": other])
        defer { try? FileManager.default.removeItem(at: url) }
        let recording = try RecordingReader.read(path: url.appendingPathComponent("own.events").path,
                                                 descriptionPath: url.appendingPathComponent("other.desc").path)
        #expect(recording.description?.name == "Other Touch")
        #expect(recording.events.count == 2)
        let alone = try RecordingReader.read(path: url.appendingPathComponent("own.events").path)
        #expect(alone.description?.name == "Sample Touch")
    }

    @Test func descriptionFileErrorsNameThatFile() throws {
        let url = try folder(["pad.events": eventsOnly, "bad.desc": "N: Pad\nI: 1 2\n", "empty.desc": eventsOnly])
        defer { try? FileManager.default.removeItem(at: url) }
        let events = url.appendingPathComponent("pad.events").path
        let bad = url.appendingPathComponent("bad.desc").path
        let error = try #require(throws: RecordingError.self) {
            try RecordingReader.read(path: events, descriptionPath: bad)
        }
        #expect(error.file == bad && error.line == 2)

        let empty = url.appendingPathComponent("empty.desc").path
        let none = try #require(throws: RecordingError.self) {
            try RecordingReader.read(path: events, descriptionPath: empty)
        }
        #expect(none.file == empty && none.line == nil)
        #expect(none.message.contains("has no device description"))
    }

    @Test func fileSystemErrors() throws {
        let missing = try #require(throws: RecordingError.self) {
            try RecordingReader.read(path: "/nonexistent/recording.events")
        }
        #expect(missing.line == nil)
        #expect(missing.description == "/nonexistent/recording.events: cannot open the file: No such file or directory")

        let url = try folder([:])
        defer { try? FileManager.default.removeItem(at: url) }
        let folderError = try #require(throws: RecordingError.self) { try RecordingReader.read(path: url.path) }
        #expect(folderError.message == "is a folder, not a recording")

        let empty = try folder(["empty.events": ""])
        defer { try? FileManager.default.removeItem(at: empty) }
        let emptyError = try #require(throws: RecordingError.self) {
            try RecordingReader.read(path: empty.appendingPathComponent("empty.events").path)
        }
        #expect(emptyError.message == "has no device description and no events")
    }

    @Test func readsLargeFilesWhole() throws {
        var text = sampleDescription
        for index in 0..<20_000 {
            text += "E: 0.\(String(100_000 + index % 900_000)) 0003 0035 \(index)\n"
        }
        let url = try folder(["big.events": text])
        defer { try? FileManager.default.removeItem(at: url) }
        let recording = try RecordingReader.read(path: url.appendingPathComponent("big.events").path)
        #expect(recording.events.count == 20_000)
        #expect(recording.events.last?.value == 19_999)
    }
}
