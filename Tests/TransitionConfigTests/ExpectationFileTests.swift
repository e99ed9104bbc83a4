import Testing
@testable import TransitionConfig
import Engine

/// Expectation files of `transitiond verify`: reading (errors at their
/// line, as the config's), writing, and comparing a run with them.
@Suite("Expectation files")
struct ExpectationFileTests {
    /// Lines 1–8: one recording with one gesture; the next key is on line 9.
    static let oneGesture = """
    tolerance = 0.02
    [[recording]]
    file = "Recordings/back-drag-finish.events"
    [[recording.gesture]]
    transition = "back"
    decision = "finish"
    reason = "released"
    progress = 0.66

    """

    static func parse(_ text: String) throws(ConfigError) -> ExpectationFile {
        try ExpectationReader.parse(text: text, file: "expect.toml")
    }

    /// Expects `text` to fail on `line`, about `key`, with a message containing `fragment`.
    static func expectError(_ text: String, line: Int, key: String?, _ fragment: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let file = try parse(text)
            Issue.record("expected a ConfigError, parsed \(file)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.file == "expect.toml", sourceLocation: sourceLocation)
            #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        }
    }

    static func back(_ decision: Decision, at progress: Double, reason: EndReason = .released) -> GestureOutcome {
        GestureOutcome(transition: "back", decision: decision, reason: reason, progress: progress)
    }

    static func expectBack(_ decision: Decision, at progress: Double, tolerance: Double = 0.01) -> GestureExpectation {
        GestureExpectation(transition: "back", decision: decision, reason: .released, progress: progress,
                           tolerance: tolerance)
    }

    // MARK: - Reading

    @Test func readsRecordingsAndGestures() throws {
        let file = try Self.parse(Self.oneGesture + """
        tolerance = 0.05
        [[recording.gesture]]
        transition = "back"
        decision = "cancel"
        reason = "device-lost"
        progress = 0

        [[recording]]
        file = "swipe.events"
        """)
        #expect(file.tolerance == 0.02)
        #expect(file.recordings.map(\.file) == ["Recordings/back-drag-finish.events", "swipe.events"])
        #expect(file.recordings.map(\.line) == [2, 16])
        #expect(file.recordings[0].gestures == [
            Self.expectBack(.finish, at: 0.66, tolerance: 0.05),
            GestureExpectation(transition: "back", decision: .cancel, reason: .deviceLost, progress: 0, tolerance: 0.02),
        ])
        #expect(file.recordings[1].gestures.isEmpty)
    }

    @Test func toleranceDefaultsToOneHundredth() throws {
        let file = try Self.parse("[[recording]]\nfile = \"a.events\"\n")
        #expect(file.tolerance == 0.01)
        #expect(try Self.parse("").recordings.isEmpty)
    }

    @Test func everyReasonIsAccepted() throws {
        for reason in ["released", "device-lost", "client-lost", "command", "shutdown", "reload", "palm", "stuck"] {
            let file = try Self.parse(Self.oneGesture.replacing("\"released\"", with: "\"\(reason)\""))
            #expect(file.recordings[0].gestures[0].reason.rawValue == reason)
        }
    }

    @Test func wrongTypeNamesItsLine() {
        Self.expectError(Self.oneGesture.replacing("progress = 0.66", with: "progress = \"0.66\""), line: 8,
                         key: "recording[1].gesture[1].progress", "expected a number, found a string (got \"0.66\")")
        Self.expectError("tolerance = true\n", line: 1, key: "tolerance", "expected a number, found a boolean")
        Self.expectError("[[recording]]\nfile = 3\n", line: 2, key: "recording[1].file",
                         "expected a string, found an integer (got 3)")
        Self.expectError("[recording]\nfile = \"a\"\n", line: 1, key: "recording",
                         "must be written as [[recording]] tables, found a table")
    }

    @Test func unknownKeySuggestsTheNearest() {
        Self.expectError(Self.oneGesture + "progres = 0.5\n", line: 9, key: "recording[1].gesture[1].progres",
                         "unknown key; did you mean 'progress'?")
        Self.expectError("tolerence = 0.1\n", line: 1, key: "tolerence", "unknown key; did you mean 'tolerance'?")
        Self.expectError("[[recordings]]\nfile = \"a\"\n", line: 1, key: "recordings",
                         "unknown key; did you mean 'recording'?")
        Self.expectError("[[recording]]\nfile = \"a\"\nframes = 3\n", line: 3, key: "recording[1].frames",
                         "unknown key; the keys of [[recording]] are file, gesture")
    }

    @Test func badDecisionAndReasonListTheValues() {
        Self.expectError(Self.oneGesture.replacing("\"finish\"", with: "\"finsh\""), line: 6,
                         key: "recording[1].gesture[1].decision", "must be one of finish, cancel, snap (got \"finsh\")")
        Self.expectError(Self.oneGesture.replacing("\"released\"", with: "\"lifted\""), line: 7,
                         key: "recording[1].gesture[1].reason",
                         "must be one of released, device-lost, client-lost, command, shutdown, reload, palm, stuck (got \"lifted\")")
        Self.expectError(Self.oneGesture.replacing("\"back\"", with: "\"a b\""), line: 5,
                         key: "recording[1].gesture[1].transition", "must contain only letters, digits")
    }

    @Test func missingRequiredKeyIsReportedAtItsTable() {
        Self.expectError(Self.oneGesture.replacing("decision = \"finish\"\n", with: ""), line: 4,
                         key: "recording[1].gesture[1].decision",
                         "required key is missing; expected one of finish, cancel")
        Self.expectError(Self.oneGesture.replacing("progress = 0.66\n", with: ""), line: 4,
                         key: "recording[1].gesture[1].progress", "required key is missing")
        Self.expectError("tolerance = 0.1\n\n[[recording]]\n", line: 3, key: "recording[1].file", "required key is missing")
    }

    @Test func negativeToleranceIsRefused() {
        Self.expectError("tolerance = -0.01\n", line: 1, key: "tolerance", "must be >= 0 and <= 1 (got -0.01)")
        Self.expectError(Self.oneGesture + "tolerance = -1\n", line: 9, key: "recording[1].gesture[1].tolerance",
                         "must be >= 0 and <= 1 (got -1)")
        // Numbers past what a progress can be are refused at their line, not trapped on.
        Self.expectError(Self.oneGesture.replacing("0.66", with: "1e14"), line: 8,
                         key: "recording[1].gesture[1].progress", "must be >= -10 and <= 10")
        Self.expectError(Self.oneGesture.replacing("0.66", with: "nan"), line: 8,
                         key: "recording[1].gesture[1].progress", "must be a finite number")
    }

    @Test func emptyAndRepeatedFilesAreRefused() {
        Self.expectError("[[recording]]\nfile = \"\"\n", line: 2, key: "recording[1].file", "must not be empty")
        Self.expectError("[[recording]]\nfile = \"a.events\"\n\n[[recording]]\nfile = \"a.events\"\n", line: 5,
                         key: "recording[2].file", "\"a.events\" is already expected at line 1")
    }

    @Test func syntaxErrorsNameTheirLine() {
        Self.expectError("tolerance = 0.01\n[[recording]\n", line: 2, key: nil, "expected ']]' to close the table header")
        Self.expectError(Self.oneGesture + "decision = \"cancel\"\n", line: 9, key: "recording[1].gesture[1].decision",
                         "duplicate key (first defined on line 6)")
    }

    @Test func errorTextReadsFileLineKey() {
        do {
            _ = try Self.parse(Self.oneGesture.replacing("\"finish\"", with: "\"finsh\""))
            Issue.record("parsed a bad decision")
        } catch {
            #expect(error.description
                == "expect.toml:6: key 'recording[1].gesture[1].decision': must be one of finish, cancel, snap (got \"finsh\")")
        }
    }

    // MARK: - Writing

    @Test func writtenFileReadsBackToTheSameOutcomes() throws {
        let runs: [(String, [GestureOutcome])] = [
            ("Recordings/back-drag-finish.events", [Self.back(.finish, at: 0.659829)]),
            ("/abs/path with \"quotes\".events", [Self.back(.cancel, at: 0.000012, reason: .deviceLost),
                                                  Self.back(.finish, at: 1)]),
            ("swipe.events", []),
        ]
        let written = ExpectationFile(recordings: runs.map { RecordingExpectation(file: $0.0, outcomes: $0.1) })
        let text = ExpectationRenderer.render(written, comment: ["made by a test"])
        #expect(text.hasPrefix("# transitiond verify: what each recording's gestures must do\n# made by a test\ntolerance = 0.01"))
        #expect(text.contains("progress = 0.6598\n"))
        let read = try Self.parse(text)
        #expect(read.tolerance == 0.01)
        #expect(read.recordings.map(\.file) == runs.map(\.0))
        #expect(read.recordings.map(\.gestures) == written.recordings.map(\.gestures))
        for (recording, run) in zip(read.recordings, runs) {
            #expect(ExpectationComparison.differences(expected: recording.gestures, actual: run.1).isEmpty)
        }
        // And writing what was read gives the same text.
        #expect(ExpectationRenderer.render(read, comment: ["made by a test"]) == text)
    }

    @Test func snapTargetsAreWrittenReadAndChecked() throws {
        let snap = GestureOutcome(transition: "drawer", decision: .snap, reason: .released, progress: 0.43, target: 0.5)
        let written = ExpectationFile(recordings: [RecordingExpectation(file: "d.events", outcomes: [snap])])
        let text = ExpectationRenderer.render(written)
        #expect(text.contains("progress = 0.43\n  target = 0.5\n"))
        let read = try Self.parse(text)
        #expect(read.recordings[0].gestures[0].target == 0.5)
        #expect(ExpectationComparison.differences(expected: read.recordings[0].gestures, actual: [snap]).isEmpty)
        var elsewhere = snap
        elsewhere.target = 1
        #expect(ExpectationComparison.differences(expected: read.recordings[0].gestures, actual: [elsewhere]).count == 1)
        // Without a target in the file, any target matches.
        var untargeted = read.recordings[0].gestures[0]
        untargeted.target = nil
        #expect(ExpectationComparison.differences(expected: [untargeted], actual: [elsewhere]).isEmpty)
    }

    @Test func ownToleranceIsWrittenWhereItDiffers() throws {
        let file = ExpectationFile(tolerance: 0.01, recordings: [
            RecordingExpectation(file: "a", gestures: [Self.expectBack(.finish, at: 0.5, tolerance: 0.1),
                                                       Self.expectBack(.finish, at: 0.5)]),
        ])
        let text = ExpectationRenderer.render(file)
        #expect(text.components(separatedBy: "  tolerance = ").count == 2)
        #expect(try Self.parse(text).recordings[0].gestures == file.recordings[0].gestures)
    }

    @Test func writtenProgressIsRoundedToFourDecimals() {
        let recording = RecordingExpectation(file: "a", outcomes: [Self.back(.finish, at: 0.123456),
                                                                   Self.back(.cancel, at: -0.00001)])
        #expect(recording.gestures.map(\.progress) == [0.1235, 0])
        #expect(recording.gestures[1].progress.sign == .plus)
        #expect(recording.gestures.map(\.tolerance) == [0.01, 0.01])
    }

    // MARK: - Matching recordings

    @Test func recordingsMatchByPathThenByUniqueFileName() {
        let file = ExpectationFile(recordings: [
            RecordingExpectation(file: "Recordings/a.events", gestures: []),
            RecordingExpectation(file: "one/b.events", gestures: []),
            RecordingExpectation(file: "two/b.events", gestures: []),
        ])
        #expect(file.expectation(for: "Recordings/a.events")?.file == "Recordings/a.events")
        #expect(file.expectation(for: "/repo/Recordings/a.events")?.file == "Recordings/a.events")
        #expect(file.expectation(for: "a.events")?.file == "Recordings/a.events")
        #expect(file.expectation(for: "two/b.events")?.file == "two/b.events")
        #expect(file.expectation(for: "three/b.events") == nil)
        #expect(file.expectation(for: "c.events") == nil)
        #expect(file.unused(given: ["./Recordings/a.events", "one/b.events"]).map(\.file) == ["two/b.events"])
        // A leading ./ is the same path; an entry another given path names exactly is not
        // borrowed by a namesake elsewhere.
        #expect(file.expectation(for: "./Recordings/a.events")?.file == "Recordings/a.events")
        #expect(file.expectation(for: "elsewhere/a.events", others: ["Recordings/a.events", "elsewhere/a.events"]) == nil)
        #expect(file.expectation(for: "elsewhere/a.events", others: ["elsewhere/a.events"])?.file == "Recordings/a.events")
    }

    // MARK: - Comparing

    static let comparisons: [(expected: [GestureExpectation], actual: [GestureOutcome], differences: [String])] = [
        ([expectBack(.finish, at: 0.66)], [back(.finish, at: 0.665)], []),
        ([expectBack(.finish, at: 0.66)], [back(.finish, at: 0.67)], []),
        ([expectBack(.finish, at: 0.66)], [back(.finish, at: 0.65)], []),
        ([], [], []),
        ([expectBack(.finish, at: 0.66)], [back(.cancel, at: 0.41)],
         ["gesture 1: expected back finish (released) at 0.66 ± 0.01, got back cancel (released) at 0.41"]),
        ([expectBack(.finish, at: 0.66)], [back(.finish, at: 0.6712)],
         ["gesture 1: expected back finish (released) at 0.66 ± 0.01, got back finish (released) at 0.6712"]),
        ([expectBack(.finish, at: 0.66)], [back(.finish, at: 0.670004)],
         ["gesture 1: expected back finish (released) at 0.66 ± 0.01, got back finish (released) at 0.670004"]),
        ([expectBack(.finish, at: 0.66)], [back(.finish, at: 0.66, reason: .deviceLost)],
         ["gesture 1: expected back finish (released) at 0.66 ± 0.01, got back finish (device-lost) at 0.66"]),
        ([expectBack(.finish, at: 0.66)],
         [GestureOutcome(transition: "forward", decision: .finish, reason: .released, progress: 0.66)],
         ["gesture 1: expected back finish (released) at 0.66 ± 0.01, got forward finish (released) at 0.66"]),
        ([expectBack(.finish, at: 0.5, tolerance: 0)], [back(.finish, at: 0.5001)],
         ["gesture 1: expected back finish (released) at 0.5 ± 0.0, got back finish (released) at 0.5001"]),
        ([expectBack(.finish, at: 0.66), expectBack(.cancel, at: 0.2), expectBack(.finish, at: 1)],
         [back(.finish, at: 0.66), back(.finish, at: 0.2)],
         ["gesture 2: expected back cancel (released) at 0.2 ± 0.01, got back finish (released) at 0.2",
          "gesture 3: expected back finish (released) at 1.0 ± 0.01, got nothing"]),
        ([expectBack(.finish, at: 0.66)], [back(.finish, at: 0.66), back(.cancel, at: 0.123456, reason: .deviceLost)],
         ["gesture 2: got back cancel (device-lost) at 0.1235, not expected"]),
        ([expectBack(.finish, at: 0.66)], [],
         ["gesture 1: expected back finish (released) at 0.66 ± 0.01, got nothing"]),
    ]

    @Test(arguments: 0..<ExpectationFileTests.comparisons.count)
    func comparison(_ index: Int) {
        let (expected, actual, want) = Self.comparisons[index]
        let differences = ExpectationComparison.differences(expected: expected, actual: actual)
        #expect(differences.map(\.description) == want)
    }

    @Test func recordingReports() {
        let expectation = RecordingExpectation(file: "Recordings/a.events", gestures: [Self.expectBack(.finish, at: 0.66)])
        let ok = RecordingCheck(recording: "Recordings/a.events", outcomes: [Self.back(.finish, at: 0.661)],
                                expectation: expectation)
        #expect(ok.passed)
        #expect(ok.report(expectations: "e.toml") == "ok  Recordings/a.events (1 gesture)\n")

        let none = RecordingCheck(recording: "b.events", outcomes: [], expectation: RecordingExpectation(file: "b.events", gestures: []))
        #expect(none.report(expectations: "e.toml") == "ok  b.events (0 gestures)\n")

        let failed = RecordingCheck(recording: "Recordings/a.events", outcomes: [Self.back(.cancel, at: 0.41)],
                                    expectation: expectation)
        #expect(!failed.passed)
        #expect(failed.report(expectations: "e.toml") == """
        FAIL Recordings/a.events
          gesture 1: expected back finish (released) at 0.66 ± 0.01, got back cancel (released) at 0.41

        """)

        let missing = RecordingCheck(recording: "c.events", outcomes: [Self.back(.finish, at: 0.7)], expectation: nil)
        #expect(!missing.passed)
        #expect(missing.report(expectations: "e.toml")
            == "FAIL c.events\n  no expectation for c.events in e.toml; it gave back finish (released) at 0.7\n")

        #expect(RecordingCheck.summary([ok, failed, missing]) == "verify: 3 recordings, 2 failed\n")
        #expect(RecordingCheck.summary([ok]) == "verify: 1 recording, 0 failed\n")
    }

    @Test func outcomesAreTheEndedEventsInOrder() {
        func event(_ kind: TransitionEvent.Kind, _ transition: Int, _ progress: Double,
                   _ decision: Decision? = nil, _ reason: EndReason? = nil) -> TransitionEvent {
            TransitionEvent(kind: kind, transition: transition, seq: 0, time: 0, progress: progress, velocity: 0,
                            decision: decision, reason: reason)
        }
        let events = [
            event(.began, 0, 0.02), event(.changed, 0, 0.3), event(.ended, 0, 0.31, .cancel, .released),
            event(.animating, 0, 0.2), event(.began, 1, 0.1), event(.ended, 1, 0.9, .finish, .deviceLost),
            event(.finished, 1, 1), event(.cancelled, 0, 0),
        ]
        #expect(GestureOutcome.outcomes(of: events, names: ["back", "forward"]) == [
            Self.back(.cancel, at: 0.31),
            GestureOutcome(transition: "forward", decision: .finish, reason: .deviceLost, progress: 0.9),
        ])
    }

    @Test func numbersAreWrittenWithoutExponents() {
        #expect(ExpectationNumber.text(0.66, decimals: 4) == "0.66")
        #expect(ExpectationNumber.text(0.659829, decimals: 4) == "0.6598")
        #expect(ExpectationNumber.text(1, decimals: 4) == "1.0")
        #expect(ExpectationNumber.text(0.00001, decimals: 6) == "0.00001")
        #expect(ExpectationNumber.text(-0.0412, decimals: 4) == "-0.0412")
        #expect(ExpectationNumber.text(-0.00001, decimals: 4) == "0.0")
    }
}
