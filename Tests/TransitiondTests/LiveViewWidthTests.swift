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

    @Test func verboseTracesRoundedNumbers() throws {
        let result = try runTransitiond(["replay", "--fast", "--verbose", ProjectPaths.file("Recordings/back-drag-finish.events")])
        #expect(result.stderr.contains("back: began at 0.220540, progress 0.021"), "\(result.stderr)")
        #expect(result.stderr.contains("back: ended at 1.305170, finish (released), p 0.66, v 0.234"), "\(result.stderr)")
    }
}
