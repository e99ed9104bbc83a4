import Foundation
import Recordings
import TestSupport
import Testing
import Engine
@testable import Inputs

/// `transitiond record`'s evemu output, read back with RecordingReader.
@Suite("Evemu recorder")
struct RecorderTests {
    private func record(_ description: DeviceDescription, _ batches: [[InputEvent]], to path: String) throws -> EvemuRecorder {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        var recorder = EvemuRecorder(fd: fd, description: description)
        try recorder.flush()
        for batch in batches {
            recorder.record(batch)
            try recorder.flush()
        }
        return recorder
    }

    /// A live stream (kernel times in the thousands of seconds) → a file
    /// whose description is the device's and whose events are the same,
    /// relative to the first.
    @Test(arguments: ProjectRecordings.all)
    func roundTripsThroughTheReader(name: String) throws {
        let original = try RecordingReader.read(path: name)
        let description = try #require(original.description)
        let uptime: Int64 = 8_123_456_789
        let live = original.events.map { InputEvent(time: $0.time + uptime, type: $0.type, code: $0.code, value: $0.value) }
        let batches = stride(from: 0, to: live.count, by: 333).map { Array(live[$0..<min($0 + 333, live.count)]) }
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let path = tree.path + "/recorded.events"
        let recorder = try record(description, batches, to: path)
        #expect(recorder.eventCount == live.count)

        let back = try RecordingReader.read(path: path)
        #expect(back.description == description)
        let first = live[0].time
        #expect(back.events == live.map { InputEvent(time: $0.time - first, type: $0.type, code: $0.code, value: $0.value) })
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("# EVEMU 1.3\n"))
        #expect(text.contains("\nE: 0.000000 "))
    }

    @Test func resyncIsWrittenWithoutItsMarker() throws {
        let description = SampleDevices.touchscreen()
        let t: Int64 = 5_000_000
        let events = [
            InputEvent(time: t, type: 3, code: 0x39, value: 7),
            InputEvent(time: t, type: 0, code: 0, value: 0),
            InputEvent(time: t + 9000, type: 0, code: EventCode.SYN_DROPPED, value: 0),
            InputEvent(time: t + 9000, type: 3, code: 0x39, value: -1),
            InputEvent(time: t + 9000, type: 0, code: 0, value: 0),
        ]
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let recorder = try record(description, [events], to: tree.path + "/r.events")
        #expect(recorder.resyncCount == 1)
        #expect(recorder.eventCount == 4)
        let back = try RecordingReader.read(path: tree.path + "/r.events")
        #expect(back.events.map(\.code) == [0x39, 0, 0x39, 0])
        #expect(back.events.map(\.time) == [0, 0, 9000, 9000])
    }

    @Test func failedWriteIsReported() {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        signal(SIGPIPE, SIG_IGN)
        var recorder = EvemuRecorder(fd: fds[1], description: SampleDevices.keyboard)
        #expect(throws: RecorderError(errno: EPIPE)) { try recorder.flush() }
        close(fds[1])
    }
}
