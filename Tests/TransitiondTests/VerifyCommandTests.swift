import Foundation
import TestSupport
import Testing
import TransitionConfig

/// `transitiond verify` through the real binary (run in the repository
/// root): the project's expectation files, a mismatch and its diff, a
/// malformed file, missing files, and `--write-expect`.
@Suite("verify")
struct VerifyCommandTests {
    /// `Recordings/NAME.events` for each of the project's recordings, as the
    /// expectation files name them.
    static let recordings = ProjectPaths.ownRecordings.map { "Recordings/\($0)" }

    static let expectations: [(file: String, config: String?)] = [
        ("Tests/Expectations/default.toml", nil),
        ("Tests/Expectations/example.toml", "config/example.toml"),
    ]

    static func arguments(_ expectations: String, config: String?, _ recordings: [String] = recordings) -> [String] {
        ["verify"] + recordings + ["--expect", expectations] + (config.map { ["--config", $0] } ?? [])
    }

    // MARK: - The project's own expectations

    @Test(arguments: 0..<VerifyCommandTests.expectations.count)
    func projectRecordingsMatchTheirExpectations(_ index: Int) throws {
        let (file, config) = Self.expectations[index]
        let result = try runTransitiond(Self.arguments(file, config: config))
        #expect(result.status == 0, "stdout: \(result.stdoutText)\nstderr: \(result.stderr)")
        #expect(result.stderr.isEmpty, "every recording of \(file) is checked: \(result.stderr)")
        #expect(result.lines.count == Self.recordings.count + 1)
        for (line, recording) in zip(result.lines, Self.recordings) {
            #expect(line.hasPrefix("ok  \(recording) ("), "\(line)")
        }
        #expect(result.lines.last == "verify: \(Self.recordings.count) recordings, 0 failed")
    }

    @Test func defaultExpectationsSayWhatEachRecordingDoes() throws {
        let result = try runTransitiond(Self.arguments("Tests/Expectations/default.toml", config: nil,
                                                       ["Recordings/back-drag-finish.events",
                                                        "Recordings/swipe-up-3-fingers.events"]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines == [
            "ok  Recordings/back-drag-finish.events (1 gesture)",
            "ok  Recordings/swipe-up-3-fingers.events (0 gestures)",
            "verify: 2 recordings, 0 failed",
        ])
        // The two recordings not given are noted, not failed.
        #expect(result.stderr.contains("transitiond: note: Tests/Expectations/default.toml:"))
        #expect(result.stderr.contains("Recordings/back-drag-cancel.events was not given; not checked"))
    }

    @Test func absolutePathsFindTheirExpectationByFileName() throws {
        let path = ProjectPaths.file("Recordings/back-flick-finish.events")
        let result = try runTransitiond(Self.arguments(ProjectPaths.file("Tests/Expectations/default.toml"),
                                                       config: nil, [path]))
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderr)")
        #expect(result.lines.first == "ok  \(path) (1 gesture)")
    }

    // MARK: - Differences

    @Test func mismatchPrintsTheDiffAndExits1() throws {
        let path = try temporaryFile("verify-mismatch.toml", """
        tolerance = 0.01

        [[recording]]
        file = "Recordings/back-drag-finish.events"
          [[recording.gesture]]
          transition = "back"
          decision = "cancel"
          reason = "released"
          progress = 0.41

        [[recording]]
        file = "Recordings/back-flick-finish.events"
          [[recording.gesture]]
          transition = "back"
          decision = "finish"
          reason = "released"
          progress = 0.28
          tolerance = 0.05

        [[recording]]
        file = "Recordings/swipe-up-3-fingers.events"
          [[recording.gesture]]
          transition = "overview"
          decision = "finish"
          reason = "released"
          progress = 0.62

        [[recording]]
        file = "Recordings/back-drag-cancel.events"
          [[recording.gesture]]
          transition = "back"
          decision = "cancel"
          reason = "released"
          progress = 0.27
          tolerance = 0.5

        """)
        let result = try runTransitiond(Self.arguments(path, config: nil, [
            "Recordings/back-drag-finish.events", "Recordings/back-flick-finish.events",
            "Recordings/swipe-up-3-fingers.events", "Recordings/pinch-in-2-fingers.events",
        ]))
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdoutText == """
        FAIL Recordings/back-drag-finish.events
          gesture 1: expected back cancel (released) at 0.41 ± 0.01, got back finish (released) at 0.6598
        ok  Recordings/back-flick-finish.events (1 gesture)
        FAIL Recordings/swipe-up-3-fingers.events
          gesture 1: expected overview finish (released) at 0.62 ± 0.01, got nothing
        FAIL Recordings/pinch-in-2-fingers.events
          no expectation for Recordings/pinch-in-2-fingers.events in \(path); it gave no gestures
        verify: 4 recordings, 3 failed

        """)
        #expect(result.stderr == "transitiond: note: \(path):28: Recordings/back-drag-cancel.events was not given; not checked\n")
    }

    @Test func anUnexpectedGestureFails() throws {
        let path = try temporaryFile("verify-unexpected.toml", """
        [[recording]]
        file = "Recordings/back-drag-finish.events"
        """)
        let result = try runTransitiond(Self.arguments(path, config: nil, ["Recordings/back-drag-finish.events"]))
        #expect(result.status == 1)
        #expect(result.lines == [
            "FAIL Recordings/back-drag-finish.events",
            "  gesture 1: got back finish (released) at 0.6598, not expected",
            "verify: 1 recording, 1 failed",
        ])
    }

    // MARK: - Bad input

    @Test func malformedExpectationsNameFileLineAndKeyAndExit65() throws {
        let path = try temporaryFile("verify-malformed.toml", """
        tolerance = 0.01

        [[recording]]
        file = "Recordings/back-drag-finish.events"
          [[recording.gesture]]
          transition = "back"
          decision = "finsh"
          reason = "released"
          progress = 0.66
        """)
        let result = try runTransitiond(Self.arguments(path, config: nil, ["Recordings/back-drag-finish.events"]))
        #expect(result.status == 65)
        #expect(result.stderr == "transitiond: \(path):7: key 'recording[1].gesture[1].decision': must be one of finish, cancel, snap (got \"finsh\")\n")
        #expect(result.stdout.isEmpty)

        let unknown = try temporaryFile("verify-unknown-key.toml", "tolerence = 0.1\n")
        let second = try runTransitiond(Self.arguments(unknown, config: nil, ["Recordings/back-drag-finish.events"]))
        #expect(second.status == 65)
        #expect(second.stderr == "transitiond: \(unknown):1: key 'tolerence': unknown key; did you mean 'tolerance'?\n")
    }

    @Test func malformedRecordingIsBadData() throws {
        let recording = try temporaryFile("verify-bad.events", "E: 0.000000 0003 zz 5\n")
        let result = try runTransitiond(Self.arguments("Tests/Expectations/default.toml", config: nil, [recording]))
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("transitiond: \(recording)"), "\(result.stderr)")
    }

    @Test func missingFilesAreNoInput() throws {
        let recording = try runTransitiond(Self.arguments("Tests/Expectations/default.toml", config: nil,
                                                          ["Recordings/back-drag-finish.events", "no/such/recording.events"]))
        #expect(recording.status == 66)
        #expect(recording.stderr == "transitiond: no/such/recording.events: no such recording\n")
        #expect(recording.stdout.isEmpty)

        let expectations = try runTransitiond(Self.arguments("no/such/expect.toml", config: nil,
                                                             ["Recordings/back-drag-finish.events"]))
        #expect(expectations.status == 66)
        #expect(expectations.stderr == "transitiond: no/such/expect.toml: no such expectation file\n")

        let config = try runTransitiond(Self.arguments("Tests/Expectations/default.toml", config: "no/such/config.toml",
                                                       ["Recordings/back-drag-finish.events"]))
        #expect(config.status == 66)
    }

    @Test func usageErrorsExit64() throws {
        #expect(try runTransitiond(["verify", "Recordings/back-drag-finish.events"]).status == 64)
        #expect(try runTransitiond(["verify", "--expect", "Tests/Expectations/default.toml"]).status == 64)
        let twice = try runTransitiond(["verify", "--write-expect", "--expect", try temporaryFile("verify-twice.toml", ""),
                                        "Recordings/back-drag-finish.events", "Recordings/back-drag-finish.events"])
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("Recordings/back-drag-finish.events is given twice"), "\(twice.stderr)")
    }

    // MARK: - Writing

    @Test func writeExpectRoundTrips() throws {
        let directory = TemporaryDirectory(prefix: "verify-write")
        defer { directory.remove() }
        let path = directory.path + "/example.toml"
        let arguments = Self.arguments(path, config: "config/example.toml")
        let written = try runTransitiond(arguments + ["--write-expect"])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.lines.first == "wrote \(path): \(Self.recordings.count) recordings, \(Self.recordings.count) gestures")
        #expect(written.lines.contains("  Recordings/back-drag-finish.events: back finish (released) at 0.6598 ± 0.01"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["example.toml"])

        // It reads back to what the run did: verify passes, and it holds what
        // the committed file of the same run holds.
        let verified = try runTransitiond(arguments)
        #expect(verified.status == 0, "\(verified.stdoutText)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("tolerance = 0.01"))
        let read = try ExpectationReader.parse(text: text, file: path)
        let committed = try ExpectationReader.load(path: ProjectPaths.file("Tests/Expectations/example.toml"))
        #expect(read.recordings.map(\.file) == Self.recordings)
        #expect(read.recordings.map(\.gestures) == committed.recordings.map(\.gestures))

        // Writing over an existing file replaces it (how a team updates it).
        try "tolerance = 0.5\n".write(toFile: path, atomically: false, encoding: .utf8)
        let again = try runTransitiond(arguments + ["--write-expect"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["example.toml"])
    }

    @Test func eventsWithADescriptionAreReadAsReplayReadsThem() throws {
        let directory = TemporaryDirectory(prefix: "verify-description")
        defer { directory.remove() }
        let whole = try String(contentsOfFile: ProjectPaths.file("Recordings/back-drag-finish.events"), encoding: .utf8)
        let lines = whole.split(separator: "\n", omittingEmptySubsequences: false)
        let description = directory.file("panel.desc", lines.filter { !$0.hasPrefix("E:") }.joined(separator: "\n"))
        let events = directory.file("back-drag-finish.events", lines.filter { $0.hasPrefix("E:") }.joined(separator: "\n") + "\n")

        // Found by its file name in the project's expectations.
        let result = try runTransitiond(Self.arguments("Tests/Expectations/default.toml", config: nil, [events])
                                        + ["--description", description])
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderr)")
        #expect(result.lines.first == "ok  \(events) (1 gesture)")

        let withoutIt = try runTransitiond(Self.arguments("Tests/Expectations/default.toml", config: nil, [events]))
        #expect(withoutIt.status == 65)
        #expect(withoutIt.stderr.contains("--description"), "\(withoutIt.stderr)")
        let missing = try runTransitiond(Self.arguments("Tests/Expectations/default.toml", config: nil, [events])
                                         + ["--description", directory.path + "/none.desc"])
        #expect(missing.status == 66)
    }

    @Test func writeExpectIntoAMissingDirectoryIsAnIOError() throws {
        let result = try runTransitiond(["verify", "--write-expect", "--expect", "no/such/dir/expect.toml",
                                         "Recordings/back-drag-finish.events"])
        #expect(result.status == 74)
        #expect(result.stderr.hasPrefix("transitiond: no/such/dir/expect.toml: cannot write"), "\(result.stderr)")
    }
}
