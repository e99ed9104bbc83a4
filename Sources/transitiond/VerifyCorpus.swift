import ArgumentParser
import TransitionConfig

/// `verify --corpus`'s own options: a folder of recordings played under two
/// configs (`--config`, the new one, and `--baseline`).
struct CorpusOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A folder of recordings (and the folders under it) to play under --baseline and --config, printing what changes.",
                               valueName: "DIR"))
    var corpus: String?

    @Option(help: ArgumentHelp("With --corpus: the config the new one (--config) is compared with.", valueName: "FILE"))
    var baseline: String?

    @Option(help: ArgumentHelp("With --corpus: how many recordings may change before the exit status is 1 (default 0).",
                               valueName: "N"))
    var maxChanges: Int?

    @Option(help: ArgumentHelp("With --corpus: how far a gesture's progress at release may move and not count as a change (default 0.01).",
                               valueName: "X"))
    var progressTolerance: Double?

    static let defaultProgressTolerance = ExpectationFile.defaultTolerance

    /// With --corpus: the baseline is required, no recordings are given, the numbers are sane.
    func validate(with input: RecordingInputOptions) throws {
        try requireNames(["--corpus": corpus, "--baseline": baseline])
        if baseline == nil { throw ValidationError("--corpus needs --baseline FILE, the config to compare --config with") }
        if !input.recordings.isEmpty {
            throw ValidationError("--corpus plays the recordings under DIR; give no recordings besides")
        }
        if let maxChanges, maxChanges < 0 { throw ValidationError("--max-changes must be 0 or more") }
        if let progressTolerance, !(progressTolerance >= 0 && progressTolerance <= 1) {
            throw ValidationError("--progress-tolerance must be from 0 to 1")
        }
    }

    /// Without --corpus, none of its options means anything.
    func requireNone() throws {
        let given = [baseline.map { _ in "--baseline" }, maxChanges.map { _ in "--max-changes" },
                     progressTolerance.map { _ in "--progress-tolerance" }].compactMap { $0 }
        if let first = given.first { throw ValidationError("\(first) goes with --corpus DIR") }
    }
}

extension VerifyCommand {
    /// Plays every recording under `folder` under both configs and prints
    /// what changed; exit 1 when more recordings changed than --max-changes.
    func runCorpus(_ folder: String) throws {
        let scan = try CorpusFolder(scanning: folder)
        for (path, why) in scan.skipped {
            StandardError.write("transitiond: note: \(path): \(why); skipped\n")
        }
        guard !scan.recordings.isEmpty else {
            throw Failure(.noInput, "\(folder): no recordings (\(CorpusFolder.extensions.joined(separator: ", "))) in it or under it")
        }
        let baseline = try loadDaemonConfiguration(corpusOptions.baseline)
        let candidate = try loadDaemonConfiguration(input.config)
        let old = OutcomePlayer(baseline), new = OutcomePlayer(candidate)
        let tolerance = corpusOptions.progressTolerance ?? CorpusOptions.defaultProgressTolerance
        var comparisons: [RecordingComparison] = []
        for path in scan.recordings {
            let recording = try input.load(path)
            comparisons.append(RecordingComparison(recording: path, baseline: try old.outcomes(of: recording),
                                                   candidate: try new.outcomes(of: recording), tolerance: tolerance))
        }
        let report = CorpusReport(comparisons)
        var out = StandardOutput()
        // The hashes the daemons report (hello, metrics, dumps): which configs of a fleet these are.
        let source = input.config ?? "the embedded default config"
        out.write("baseline \(corpusOptions.baseline ?? ""): config_hash \(ConfigDigest.hash(of: baseline)); "
                  + "new \(source): config_hash \(ConfigDigest.hash(of: candidate))\n")
        out.write(report.text)
        try out.checkWritten()
        if report.changed.count > corpusOptions.maxChanges ?? 0 { throw ExitCode.failure }
    }
}
