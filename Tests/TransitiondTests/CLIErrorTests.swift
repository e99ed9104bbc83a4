import Foundation
import TestSupport
import Testing

/// Bad input through the real CLI: clear `transitiond: FILE:LINE: …` errors
/// with sysexits codes, never a crash.
@Suite("CLI errors")
struct CLIErrorTests {
    static let header = """
    # EVEMU 1.3
    N: broken panel
    I: 0018 0000 0000 0000
    P: 02 00 00 00 00 00 00 00
    A: 2f 0 9 0 0 0
    A: 35 0 4095 0 0 0
    A: 36 0 2303 0 0 0
    A: 39 0 65535 0 0 0

    """

    @Test(arguments: [
        (["--device", "/dev/input/event3", "--device", "/dev/input/event3"], "--device /dev/input/event3 is given twice"),
        (["--device", "all", "--device", "/dev/input/event3"], "--device auto or all stands alone"),
        (["--mode", "exclusive"], "--mode must be shared, grab or filter"),
        (["--grab", "--mode", "shared"], "--grab and --mode shared disagree"),
    ])
    func badRunOptionsAreUsageErrors(_ arguments: [String], _ message: String) throws {
        let result = try runTransitiond(["run"] + arguments + ["--socket", try temporaryFile("usage", "") + ".sock"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/uinput"), "this machine has /dev/uinput"))
    func filterModeWithoutUinputDoesNotStart() throws {
        let result = try runTransitiond(["run", "--mode", "filter", "--socket", try temporaryFile("filter", "") + ".sock"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("filter mode needs to write /dev/uinput"), "\(result.stderr)")
    }

    @Test func malformedEventLineNamesFileAndLine() throws {
        let path = try temporaryFile("bad-line.events", Self.header + "E: 0.000000 0003 0039 0001\nE: 0.001000 0003 zz 5\n")
        let result = try runTransitiond(["replay", "--fast", path])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("transitiond: \(path):10: "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func missingRecordingIsNoInput() throws {
        let result = try runTransitiond(["replay", "--fast", "no/such/recording.events"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("no/such/recording.events"))
    }

    @Test func eventsWithoutDescriptionSaysHowToFixIt() throws {
        let path = try temporaryFile("orphan.events", "E: 1.000000 0003 0039 1\nE: 1.000000 0000 0000 0\n")
        let result = try runTransitiond(["replay", "--fast", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):1:"))
        #expect(result.stderr.contains("--description"))
    }

    @Test func degenerateAxisIsBadData() throws {
        let text = Self.header.replacingOccurrences(of: "A: 35 0 4095 0 0 0", with: "A: 35 100 100 0 0 0")
            + "E: 0.000000 0003 0039 0001\nE: 0.000000 0000 0000 0000\n"
        let path = try temporaryFile("degenerate.events", text)
        let result = try runTransitiond(["replay", "--fast", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains("ABS_MT_POSITION_X"))
    }

    @Test func truncatedAndRandomRecordingsNeverCrash() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.file("Recordings/back-flick-finish.events")))
        var rng = SeededRandom(seed: 0x7261_6e64)
        var inputs: [[UInt8]] = []
        for cut in stride(from: 1, to: original.count, by: max(1, original.count / 12)) {
            inputs.append(Array(original.prefix(cut)))
        }
        for _ in 0..<6 {
            inputs.append((0..<Int(rng.next() % 4000)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
        for (i, bytes) in inputs.enumerated() {
            let path = try temporaryFile("fuzz-\(i).events", bytes)
            let result = try runTransitiond(["replay", "--fast", path])
            // 0 (a valid prefix) or 65 with a message naming the file; a crash is a signal.
            #expect(result.status == 0 || result.status == 65, "input \(i): status \(result.status): \(result.stderr)")
            if result.status == 65 { #expect(result.stderr.hasPrefix("transitiond: \(path)")) }
        }
    }

    @Test func badConfigNamesFileLineAndKey() throws {
        let path = try temporaryFile("bad.toml", """
        frame_rate = 60

        [[transition]]
        name = "back"
        gesture = "edge-pan"
        edge = "lft"
        """)
        let result = try runTransitiond(["replay", "--fast", "--config", path, "Recordings/back-drag-finish.events"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(path):6:"), "\(result.stderr)")
        #expect(result.stderr.contains("edge"))
        let check = try runTransitiond(["check-config", path])
        #expect(check.status == 65)
    }

    @Test func checkConfigPrintsTheEffectiveConfig() throws {
        let result = try runTransitiond(["check-config", "config/example.toml"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("name = \"overview\""))
        #expect(result.stdoutText.contains("edge_margin"))
        // The printed config is itself a valid config.
        let path = try temporaryFile("effective.toml", result.stdoutText)
        let again = try runTransitiond(["check-config", path])
        #expect(again.status == 0)
        #expect(again.stdout == result.stdout)
    }

    @Test func usageErrorsExit64() throws {
        #expect(try runTransitiond(["replay", "--fast", "--speed", "2", "Recordings/back-drag-finish.events"]).status == 64)
        #expect(try runTransitiond(["replay", "--loop", "0", "Recordings/back-drag-finish.events"]).status == 64)
        #expect(try runTransitiond(["replay"]).status == 64)
    }
}
