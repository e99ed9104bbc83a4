#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Recordings
import Replay
import TransitionConfig
import Engine

/// `transitiond verify`: plays each recording as `replay --fast` does and
/// checks how its gestures end (transition, decision, reason, progress at
/// release) against an expectation file; `--write-expect` writes that file
/// from a run. For UI teams' CI: exit 0 when everything matches, 1 when
/// anything differs.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check how recordings' gestures end against an expectation file (for CI).",
        discussion: """
        Each recording is played on its own, as `replay --fast` plays it, and \
        every gesture it ends (an `ended` event) is compared, in order, with the \
        expectation file's [[recording]] of that path (as given here, else of the \
        same file name): transition, decision, reason, and progress within the \
        tolerance. Prints "ok" or "FAIL" and each recording, a line per \
        difference, then how many failed. Entries of the file for recordings \
        not given are noted on stderr and not checked. --write-expect writes \
        the file from this run instead (progress to 4 decimals, tolerance 0.01).
        Exit codes: 0 all match, 1 something differs or has no expectation, \
        65 a malformed expectation file, recording or config, 66 a file is missing, \
        74 --write-expect could not write the file.

        --corpus DIR --baseline OLD [--config NEW] checks a config before it \
        ships: every recording under DIR (and the folders under it; files \
        ending in .events, .evemu, .yml or .yaml; names starting with "." \
        passed over; anything else named in a note on stderr, never opened) \
        is played alone under each config; after the configs' config_hash, \
        each recording whose gestures \
        end otherwise is printed, sorted by path, a line per gesture that \
        changed: its transition, decision, reason or snap target differ, its \
        progress at release moved by more than --progress-tolerance (default \
        0.01), or one config ends a gesture the other does not. Then \
        "corpus: N recordings played, C changed, U unchanged" and the changed \
        gestures by kind. Exit 1 when more than --max-changes recordings \
        (default 0) changed, else 0; 65 a malformed recording or config, \
        66 a missing folder or config.
        """
    )

    @OptionGroup var input: RecordingInputOptions

    @Option(help: ArgumentHelp("The expectation file (TOML) to check against, or to write with --write-expect.",
                               valueName: "FILE"))
    var expect: String?

    @Flag(help: "Write the expectation file from this run (replacing it) instead of checking against it.")
    var writeExpect = false

    @OptionGroup var corpusOptions: CorpusOptions

    func validate() throws {
        if corpusOptions.corpus != nil {
            try corpusOptions.validate(with: input)
            if expect != nil || writeExpect { throw ValidationError("--corpus compares two configs; it takes no --expect") }
            return
        }
        try corpusOptions.requireNone()
        try input.requireRecordings()
        guard let expect else { throw ValidationError("give --expect FILE (or --corpus DIR --baseline FILE)") }
        try requireNames(["--expect": expect])
        if writeExpect, let repeated = input.recordings.first(where: { r in input.recordings.filter { $0 == r }.count > 1 }) {
            throw ValidationError("\(repeated) is given twice; an expectation file names each recording once")
        }
    }

    /// The expectation file; `validate` makes sure there is one unless --corpus is given.
    private var expectationPath: String { expect ?? "" }

    func run() throws {
        try reportingFailures {
            if let corpus = corpusOptions.corpus {
                try runCorpus(corpus)
                return
            }
            let expectations = writeExpect ? nil : try loadExpectations()
            let daemon = try loadDaemonConfiguration(input.config)
            let recordings = try input.recordings.map(input.load)
            var outcomes: [[GestureOutcome]] = []
            for recording in recordings {
                outcomes.append(try play(recording, daemon))
            }
            var out = StandardOutput()
            if let expectations {
                try check(outcomes, against: expectations, to: &out)
            } else {
                try write(outcomes, to: &out)
            }
        }
    }

    // MARK: - Checking

    /// Prints each recording's result and the summary; exit 1 when any failed.
    private func check(_ outcomes: [[GestureOutcome]], against expectations: ExpectationFile,
                       to out: inout StandardOutput) throws {
        var checks: [RecordingCheck] = []
        for (path, gestures) in zip(input.recordings, outcomes) {
            let check = RecordingCheck(recording: path, outcomes: gestures, expectation: expectations.expectation(for: path, others: input.recordings))
            out.write(check.report(expectations: expectationPath))
            checks.append(check)
        }
        out.write(RecordingCheck.summary(checks))
        for unused in expectations.unused(given: input.recordings) {
            let place = unused.line.map { "\(expectationPath):\($0)" } ?? expectationPath
            StandardError.write("transitiond: note: \(place): \(unused.file) was not given; not checked\n")
        }
        try checkOutput(out)
        if checks.contains(where: { !$0.passed }) { throw ExitCode.failure }
    }

    private func loadExpectations() throws -> ExpectationFile {
        guard fileExists(expectationPath) else { throw Failure(.noInput, "\(expectationPath): no such expectation file") }
        do {
            return try ExpectationReader.load(path: expectationPath)
        } catch {
            throw Failure(.dataError, error.description)
        }
    }

    // MARK: - Writing

    /// Writes the expectation file for `outcomes` and says what it wrote.
    private func write(_ outcomes: [[GestureOutcome]], to out: inout StandardOutput) throws {
        let file = ExpectationFile(recordings: zip(input.recordings, outcomes).map { path, gestures in
            RecordingExpectation(file: path, outcomes: gestures)
        })
        let source = input.config.map { "--config \($0)" } ?? "the embedded default config"
        let text = ExpectationRenderer.render(file, comment: [
            "Written by `transitiond verify --write-expect` with \(source);",
            "run that again to update it after an intended change.",
        ])
        try TextFile.write(text, to: expectationPath)
        let gestures = file.recordings.reduce(0) { $0 + $1.gestures.count }
        out.write("wrote \(expectationPath): \(file.recordings.count) recording\(file.recordings.count == 1 ? "" : "s"), "
                  + "\(gestures) gesture\(gestures == 1 ? "" : "s")\n")
        for recording in file.recordings {
            let what = recording.gestures.isEmpty ? "no gestures" : recording.gestures.map(\.description).joined(separator: "; ")
            out.write("  \(recording.file): \(what)\n")
        }
        try checkOutput(out)
    }

    // MARK: - Running

    /// The gestures `input` ends when played alone (a fresh engine), as
    /// `replay --fast` plays it.
    private func play(_ input: ReplayInput, _ daemon: DaemonConfiguration) throws -> [GestureOutcome] {
        try OutcomePlayer(daemon).outcomes(of: input)
    }

    private func checkOutput(_ out: StandardOutput) throws {
        try out.checkWritten()
    }
}
