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
        """
    )

    @OptionGroup var input: RecordingInputOptions

    @Option(help: ArgumentHelp("The expectation file (TOML) to check against, or to write with --write-expect.",
                               valueName: "FILE"))
    var expect: String

    @Flag(help: "Write the expectation file from this run (replacing it) instead of checking against it.")
    var writeExpect = false

    func validate() throws {
        try requireNames(["--expect": expect])
        if writeExpect, let repeated = input.recordings.first(where: { r in input.recordings.filter { $0 == r }.count > 1 }) {
            throw ValidationError("\(repeated) is given twice; an expectation file names each recording once")
        }
    }

    func run() throws {
        try reportingFailures {
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
            out.write(check.report(expectations: expect))
            checks.append(check)
        }
        out.write(RecordingCheck.summary(checks))
        for unused in expectations.unused(given: input.recordings) {
            let place = unused.line.map { "\(expect):\($0)" } ?? expect
            StandardError.write("transitiond: note: \(place): \(unused.file) was not given; not checked\n")
        }
        try checkOutput(out)
        if checks.contains(where: { !$0.passed }) { throw ExitCode.failure }
    }

    private func loadExpectations() throws -> ExpectationFile {
        guard fileExists(expect) else { throw Failure(.noInput, "\(expect): no such expectation file") }
        do {
            return try ExpectationReader.load(path: expect)
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
        try TextFile.write(text, to: expect)
        let gestures = file.recordings.reduce(0) { $0 + $1.gestures.count }
        out.write("wrote \(expect): \(file.recordings.count) recording\(file.recordings.count == 1 ? "" : "s"), "
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
        var session: ReplaySession
        do {
            session = try ReplaySession(configuration: daemon.engine, inputs: [input], geometry: daemon.input.geometry(),
                                        palmMillimetres: daemon.filter.palmMillimetres)
        } catch {
            throw Failure(.dataError, error.description)
        }
        let names = daemon.engine.transitions.map(\.name)
        var outcomes: [GestureOutcome] = []
        session.run { events in outcomes += GestureOutcome.outcomes(of: events, names: names) }
        return outcomes
    }

    /// The recording at `path`, read as `replay` reads it.
    private func checkOutput(_ out: StandardOutput) throws {
        try out.checkWritten()
    }
}
