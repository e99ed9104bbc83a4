import Foundation
@testable import Recordings
import TestSupport
import Testing
import Engine

/// Files are parsed as they are read, chunk by chunk: the result (and the
/// errors, with their lines) must not depend on where the chunks end.
struct StreamingReadTests {
    func temporaryFile(_ bytes: [UInt8]) throws -> String {
        try TestSupport.temporaryFile("streaming-\(UInt64.random(in: 0...UInt64.max)).events", bytes)
    }

    /// Parses `path` through the streaming reader with a given chunk size.
    func streamed(_ path: String, chunk: Int) throws(RecordingError)
        -> (description: DeviceDescription?, events: [InputEvent]) {
        let file = try InputFile(path: path)
        var buffer = [UInt8](repeating: 0, count: chunk)
        let filled = try file.fill(&buffer, from: 0)
        return try EvemuParser.parse(file: file, buffer: &buffer, filled: filled)
    }

    let text = "\u{FEFF}" + sampleDescription.replacingOccurrences(of: "\n", with: "\r\n") + """
    # a long comment \(String(repeating: "x", count: 300))
    E: 0.000001 0003 0039 0021\t# EV_ABS / ABS_MT_TRACKING_ID   21
    E: 0.000001 0003 0035 0415
    E: 1330495970.996848 0000 0000 0000
    E: 0.5 3 39 -1
    E: 0.027718 0000 0000 0000
    """

    @Test(arguments: [1, 2, 3, 5, 7, 16, 64, 333, 100_000])
    func anyChunkSizeGivesTheSameResult(chunk: Int) throws {
        let bytes = Array(text.utf8)
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = try EvemuParser.parse(bytes: bytes, path: path)
        #expect(whole.events.count == 5)
        #expect(whole.description?.name == "Sample Touch")
        let parsed = try streamed(path, chunk: chunk)
        #expect(parsed.description == whole.description)
        #expect(parsed.events == whole.events)
    }

    @Test(arguments: [1, 4, 50, 4096])
    func errorLinesDoNotDependOnChunks(chunk: Int) throws {
        var text = sampleDescription
        for index in 0..<200 {
            text += "E: 0.\(String(100_000 + index)) 0003 0035 \(index)\t# fine\n"
        }
        text += "E: 0.200000 0003 0035\n"
        let path = try temporaryFile(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = try #require(throws: RecordingError.self) { try streamed(path, chunk: chunk) }
        #expect(error.line == 219)  // 18 description lines, 200 events
        #expect(error.message == "expected 4 fields after 'E:' (time type code value), found 3")
        #expect(evemuError(text, path: path) == error)
    }

    @Test func readerMatchesWholeBufferParseOnALargeFile() throws {
        var generator = SeededRandom(seed: 3)
        var text = sampleDescription
        var count = 0
        while text.utf8.count < 1_500_000 {
            let comment = generator.below(50) == 0 ? "\t# " + String(repeating: "c", count: generator.below(3000)) : ""
            text += "E: \(generator.below(5)).\(String(100_000 + generator.below(900_000))) 0003 0035 \(count)\(comment)\n"
            count += 1
        }
        text += "# the end, without a newline"
        let bytes = Array(text.utf8)
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try RecordingReader.read(path: path)
        let whole = try EvemuParser.parse(bytes: bytes, path: path)
        #expect(read.events.count == count)
        #expect(read.events == whole.events)
        #expect(read.description == whole.description)
    }

    @Test func libinputRecordLargerThanAChunk() throws {
        var text = LibinputRecordTests.valid
        for index in 0..<12_000 {
            text += "  - evdev:\n    - [  2, \(String(100_000 + index)),   3,  53,  \(index)]\n"
        }
        let path = try temporaryFile(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recording = try RecordingReader.read(path: path)
        #expect(recording.events.count == 4 + 12_000)
        #expect(recording.events.last == InputEvent(time: 2_111_999, type: 3, code: 53, value: 11_999))
    }
}
