import Testing
import TestSupport
@testable import Recordings

/// What the recording readers take: files, not devices; lines of sane
/// length; a bounded whole. Each refusal names the file and says why,
/// rather than reading on without end (`/dev/zero`).
@Suite struct ReaderBoundsTests {
    @Test func aDeviceIsNotARecording() {
        #expect {
            try RecordingReader.read(path: "/dev/zero")
        } throws: { error in
            "\(error)".contains("/dev/zero: is a device, not a recording file")
        }
    }

    @Test func aLineLongerThanAnyEvemuLineIsRefused() {
        let folder = TemporaryDirectory(prefix: "bounds")
        defer { folder.remove() }
        let path = folder.file("zeros.events", [UInt8](repeating: 0, count: 3 << 20))
        #expect {
            try RecordingReader.read(path: path)
        } throws: { error in
            "\(error)".contains("a line longer than 1024 KiB: not an evemu recording")
        }
    }
}
