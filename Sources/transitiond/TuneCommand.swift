import ArgumentParser
import Engine
import Recordings
import Replay
import TransitionConfig

/// `transitiond tune`: the values of finish_threshold, flick_velocity and
/// edge_margin that get labelled recordings right, with the widest margin
/// (the rule is `TuningSearch`'s); this command loads, plays and prints.
struct TuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Suggest finish_threshold, flick_velocity and edge_margin values that agree with labelled recordings.",
        discussion: """
        The labels are an expectation file, as `verify` reads it: each \
        recording's gestures (transition, decision, reason, progress within \
        the tolerance, and target when given). For every transition the file \
        names, finish_threshold, flick_velocity and (an edge-pan's, not one in \
        millimetres) edge_margin are searched, starting from --config (default: \
        the embedded config), every other key kept: one key at a time, the \
        others held, over a grid of its valid range (velocities in \
        logarithms), refined by bisection at the ends of the widest interval \
        where the most recordings are right; the key takes that interval's \
        centre, the value farthest from where any recording's outcome \
        changes; rounds repeat until none moves (at most 3). Prints the values \
        as config lines under their [[transition]] name, each with how many \
        recordings it gets right and over which interval. Exit codes: 0 the \
        values get every recording right, 1 none found do (it prints the \
        recordings that still conflict and how, and suggests nothing), 65 a \
        malformed expectation file, recording or config, or a transition the \
        config does not have, 66 a file is missing.
        """
    )

    @OptionGroup var input: RecordingInputOptions

    @Option(help: ArgumentHelp("The expectation file (TOML) whose gestures label the recordings.", valueName: "FILE"))
    var expect: String

    func validate() throws {
        try input.requireRecordings()
        try requireNames(["--expect": expect])
    }

    func run() throws {
        try reportingFailures {
            let labels = try loadLabels()
            let daemon = try loadDaemonConfiguration(input.config)
            let recordings = try input.recordings.map(input.load)
            let expected = try input.recordings.map { path in
                guard let entry = labels.expectation(for: path, others: input.recordings) else {
                    throw Failure(.dataError, "\(expect): no [[recording]] for \(path): tune needs every recording labelled")
                }
                return entry.gestures
            }
            let tuning: TuningProblem
            do {
                tuning = try TuningProblem(engine: daemon.engine, labels: expected.flatMap { $0.map(\.transition) })
            } catch {
                throw Failure(.dataError, "\(expect): \(error)")
            }
            let player = OutcomePlayer(daemon)
            func differences(_ values: [Double]) throws -> [[GestureDifference]] {
                let engine = tuning.engine(with: values)
                return try zip(recordings, expected).map { recording, gestures in
                    ExpectationComparison.differences(expected: gestures, actual: try player.outcomes(of: recording, engine: engine))
                }
            }
            // The search's closure cannot throw; a recording that played once plays again.
            var failure: Error? = nil
            let result = TuningSearch(parameters: tuning.parameters).run(start: tuning.base) { values in
                do {
                    return try differences(values).filter(\.isEmpty).count
                } catch {
                    failure = failure ?? error
                    return 0
                }
            }
            if let failure { throw failure }
            let wrong = zip(input.recordings, try differences(result.values)).filter { !$0.1.isEmpty }
            let report = TuningReport(parameters: tuning.parameters, base: tuning.base,
                                      baseRight: try differences(tuning.base).filter(\.isEmpty).count,
                                      result: result, recordings: input.recordings,
                                      wrong: wrong.map { (recording: $0.0, differences: $0.1) })
            var out = StandardOutput()
            out.write(report.text)
            try out.checkWritten()
            if !report.agrees { throw ExitCode.failure }
        }
    }

    private func loadLabels() throws -> ExpectationFile {
        guard fileExists(expect) else { throw Failure(.noInput, "\(expect): no such expectation file") }
        do {
            return try ExpectationReader.load(path: expect)
        } catch {
            throw Failure(.dataError, error.description)
        }
    }
}
