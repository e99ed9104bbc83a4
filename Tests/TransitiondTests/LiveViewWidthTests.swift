import Foundation
import Testing
import TestSupport

/// The live view on a terminal (through `script`, a real pseudo-terminal):
/// every line fits 80 columns, so its in-place redraw leaves no copies; and
/// `--verbose` traces rounded numbers.
@Suite("Live view")
struct LiveViewWidthTests {
    static let script = "/usr/bin/script"

    /// The lines a paced replay's live view writes on a pseudo-terminal
    /// (`arguments` after `replay --speed 50`), without escapes.
    static func liveView(_ arguments: String) throws -> [Substring] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qc", "\(ProjectPaths.binary) replay --speed 50 \(arguments)", "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
            .replacingOccurrences(of: "\r", with: "")
            .split(separator: "\n")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: LiveViewWidthTests.script), "no util-linux script"))
    func everyLineFitsEightyColumns() throws {
        let config = try temporaryFile("long-name.toml", """
            [[transition]]
            name = "a-transition-with-a-rather-long-name"
            gesture = "edge-pan"
            edge = "left"
            """)
        let recordings = ["back-drag-finish", "back-flick-back-cancel", "back-drag-cancel"]
            .map { ProjectPaths.file("Recordings/\($0).events") }.joined(separator: " ")
        let lines = try Self.liveView("--config \(config) \(recordings)")
        #expect(lines.contains { $0.hasPrefix("a-transition-wi… [") }, "\(lines.prefix(5))")
        let widest = lines.map(\.count).max() ?? 0
        #expect(widest <= 79, "a line of \(widest) columns: \(lines.first { $0.count == widest } ?? "")")
        #expect(lines.contains { $0.contains("idle 1✓ 2✗") }, "the idle line counts what ended")
    }

    /// A transition with snap points: its decision is the point it snaps
    /// to, and idle it says where it rests.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: LiveViewWidthTests.script), "no util-linux script"))
    func snapPointsShowWhereItRests() throws {
        let lines = try Self.liveView("--config \(ProjectPaths.file("Recordings/snap/drawer.toml")) "
                                      + ProjectPaths.file("Recordings/snap/drawer-half-open.events"))
        #expect(lines.contains { $0.contains("drawer  snap to 0.50 (released)") }, "\(lines)")
        #expect(lines.contains { $0.contains("idle 1✓ 0✗ rest 0.50 (2/3)") }, "\(lines)")
        #expect((lines.map(\.count).max() ?? 0) <= 79)
    }

    /// `subscribe`'s live view asks the daemon for the last minute's
    /// latencies now and then and shows them under the bars.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: LiveViewWidthTests.script), "no util-linux script"))
    func subscribeShowsTheLastMinutesLatencies() throws {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--metrics", "127.0.0.1:0", "--speed", "1",
                                        "--wait-clients", "1", "--hold", "Recordings/back-drag-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        final class Output: @unchecked Sendable {
            let lock = NSLock()
            var text = ""
        }
        let output = Output()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = ["-qc", "\(ProjectPaths.binary) subscribe --socket \(socket)", "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let chunk = String(decoding: handle.availableData, as: UTF8.self)
            output.lock.lock(); output.text += chunk; output.lock.unlock()
        }
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        // The replay lasts 1.5 s, the view asks every 5 s: a line within 15 s.
        let shown = waitUntil(timeout: 15, pollingEvery: 0.05) {
            output.lock.lock(); defer { output.lock.unlock() }
            return output.text.contains("last minute: daemon p50 ")
        }
        #expect(shown, "\(output.text.suffix(400))")
    }

    @Test func verboseTracesRoundedNumbers() throws {
        let result = try runTransitiond(["replay", "--fast", "--verbose", ProjectPaths.file("Recordings/back-drag-finish.events")])
        #expect(result.stderr.contains("back: began at 0.220540, progress 0.021"), "\(result.stderr)")
        #expect(result.stderr.contains("back: ended at 1.305170, finish (released), p 0.66, v 0.234"), "\(result.stderr)")
    }
}
