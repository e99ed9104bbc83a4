import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import StreamClient
import TestSupport

/// The Swift client's clock exchange and frame reports against a real
/// socket whose peer plays the daemon.
@Suite("Stream: clock and frames")
struct FrameReportingTests {
    /// Reads one line (up to its `\n`) from `fd`.
    static func readLine(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        while let byte = readBytes(fd, count: 1).first, byte != 0x0A { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aClockExchangeKeepsTheLinesThatCameMeanwhileAndReportsConvert() throws {
        let server = try TestSocketServer()
        final class Seen: @unchecked Sendable { var lines: [String] = [] }
        let seen = Seen()
        server.serve { fd in
            let request = Self.readLine(fd)
            seen.lines.append(request)
            // An event first, then the reply: the daemon's clock 100 s ahead.
            let id = (try? JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any])?["id"] as? String ?? ""
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let daemon = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + 100
            writeAll(fd, "{\"type\":\"changed\",\"transition\":\"back\",\"seq\":5,\"time\":1,\"progress\":0.2,\"velocity\":0,\"values\":{}}\n")
            writeAll(fd, "{\"type\":\"clock\",\"monotonic\":\(daemon),\"id\":\"\(id)\"}\n")
            seen.lines.append(Self.readLine(fd))
        }
        let connection = try StreamConnection(path: server.path)
        var clock = ClockOffset()
        try connection.reportFrames([(seq: 4, presented: 1)], clock: clock)   // no offset yet: nothing sent
        let meanwhile = try connection.exchangeClock(into: &clock)
        #expect(meanwhile.map { String(decoding: $0, as: UTF8.self) }.first?.contains("\"seq\":5") == true)
        let offset = try #require(clock.offset)
        #expect(abs(offset - 100) <= clock.uncertainty + 1e-5, "\(offset) ± \(clock.uncertainty)")
        try connection.reportFrames([(seq: 5, presented: 7.25)], clock: clock)
        #expect(server.finish())
        #expect(seen.lines.first?.hasPrefix("{\"cmd\":\"clock\",\"id\":\"clock-") == true, "\(seen.lines)")
        let report = try #require(seen.lines.last)
        guard case .success((.frames(let reports), nil)) = CommandDecoder.decode(Array(report.utf8)) else {
            Issue.record("not a frames command: \(report)")
            return
        }
        #expect(reports.count == 1 && reports[0].seq == 5 && abs(reports[0].presented - (7.25 + offset)) < 1e-6)
    }
}
