import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `transitiond verify --corpus` and `transitiond tune` through the real
/// binary, in the repository root, on the project's recordings.
@Suite("verify --corpus and tune")
struct CorpusCommandTests {
    /// The embedded default's `back`, without its keyframe (outcomes do not depend on it).
    static let back = """
    [[transition]]
    name = "back"
    gesture = "edge-pan"
    edge = "left"

    """

    /// The baseline, and a config whose lower threshold finishes what the
    /// baseline cancels at 0.27 and 0.44 but nothing else.
    static func configs(_ tag: String) throws -> (baseline: String, new: String) {
        (try temporaryFile("corpus-\(tag)-baseline.toml", back),
         try temporaryFile("corpus-\(tag)-new.toml", back + "finish_threshold = 0.25\n"))
    }

    static func corpus(_ folder: String, _ configs: (baseline: String, new: String), _ more: [String] = []) -> [String] {
        ["verify", "--corpus", folder, "--baseline", configs.baseline, "--config", configs.new] + more
    }

    // MARK: - verify --corpus

    @Test func reportsExactlyTheRecordingsWhoseDecisionsDiffer() throws {
        let result = try runTransitiond(Self.corpus("Recordings", try Self.configs("exact")))
        #expect(result.status == 1, "\(result.stderr)")
        // First the two configs' hashes, as the daemons report them.
        #expect(result.lines.first?.hasPrefix("baseline ") == true)
        #expect(result.lines.first?.contains("; new ") == true)
        #expect(result.lines.dropFirst().joined(separator: "\n") + "\n" == """
        changed Recordings/back-drag-cancel.events
          gesture 1: back cancel (released) at 0.2652  ⇒  back finish (released) at 0.2652  [decision]
        changed Recordings/snap/drawer-half-open.events
          gesture 1: back cancel (released) at 0.44  ⇒  back finish (released) at 0.44  [decision]
        corpus: 18 recordings played, 2 changed, 16 unchanged
        changed gestures by kind: decision 2

        """)
        // What is not a recording is named, one note each, sorted.
        #expect(result.stderr.contains("transitiond: note: Recordings/README.md: not a recording"))
        #expect(result.stderr.contains("transitiond: note: Recordings/snap/drawer.toml: not a recording"))
    }

    @Test func maxChangesSetsTheExitStatus() throws {
        let configs = try Self.configs("max")
        #expect(try runTransitiond(Self.corpus("Recordings", configs, ["--max-changes", "2"])).status == 0)
        #expect(try runTransitiond(Self.corpus("Recordings", configs, ["--max-changes", "1"])).status == 1)
        // A config compared with itself changes nothing.
        let same = try runTransitiond(Self.corpus("Recordings", (configs.baseline, configs.baseline)))
        #expect(same.status == 0)
        #expect(same.lines.dropFirst() == ["corpus: 18 recordings played, 0 changed, 18 unchanged"])
        // The same config hashes alike on both sides.
        let hashes = (same.lines.first ?? "").components(separatedBy: "config_hash ").dropFirst().map { $0.prefix(16) }
        #expect(hashes.count == 2 && hashes.first == hashes.last, "\(same.lines)")
    }

    @Test func aMalformedRecordingIsNamedAndAFifoNeverRead() throws {
        let folder = TemporaryDirectory(prefix: "transitiond-corpus")
        defer { folder.remove() }
        let good = try Data(contentsOf: URL(fileURLWithPath: ProjectPaths.file("Recordings/back-drag-cancel.events")))
        folder.file("good.events", Array(good))
        #expect(mkfifo(folder.path + "/waiting.events", 0o600) == 0)
        let configs = try Self.configs("fifo")
        let played = try runTransitiond(Self.corpus(folder.path, configs), timeout: 30)
        #expect(played.status == 1, "\(played.stderr)")
        #expect(played.lines.dropFirst().first == "changed \(folder.path)/good.events")
        #expect(played.stderr.contains("\(folder.path)/waiting.events: not a regular file; skipped"))

        folder.file("broken.events", Array("E: 0.000 0003 0035 nonsense\n".utf8))
        let broken = try runTransitiond(Self.corpus(folder.path, configs), timeout: 30)
        #expect(broken.status == 65)
        #expect(broken.stdoutText.isEmpty)
        #expect(broken.stderr.contains("\(folder.path)/broken.events"), "\(broken.stderr)")
    }

    @Test func aMissingFolderOrOptionIsSaidSo() throws {
        let configs = try Self.configs("missing")
        let missing = try runTransitiond(Self.corpus("no-such-folder", configs))
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no-such-folder: no such corpus folder"))
        let noBaseline = try runTransitiond(["verify", "--corpus", "Recordings"])
        #expect(noBaseline.status == 64)
        #expect(noBaseline.stderr.contains("--baseline"))
        let stray = try runTransitiond(["verify", "Recordings/back-drag-finish.events", "--expect", "x.toml",
                                        "--max-changes", "3"])
        #expect(stray.status == 64)
    }

    // MARK: - tune

    @Test func tuneFindsValuesThatGetEveryLabelledRecordingRight() throws {
        let recordings = ProjectPaths.ownRecordings.map { "Recordings/\($0)" }
        let result = try runTransitiond(["tune"] + recordings + ["--expect", "Tests/Expectations/default.toml"])
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderr)")
        #expect(result.lines.contains("suggested: \(recordings.count) of \(recordings.count) right"))
        // The suggested lines, comments dropped, make a config that verify passes.
        let keys = result.lines.filter { $0.hasPrefix("finish_threshold") || $0.hasPrefix("flick_velocity")
            || $0.hasPrefix("edge_margin") }.map { String($0.prefix { $0 != "#" }) }
        #expect(keys.count == 3)
        let tuned = try temporaryFile("tune-suggested.toml", Self.back + keys.joined(separator: "\n") + "\n")
        let check = try runTransitiond(["verify"] + recordings
            + ["--expect", "Tests/Expectations/default.toml", "--config", tuned])
        #expect(check.status == 0, "\(check.stdoutText)")
    }

    @Test func tuneRefusesWhenTheLabelsConflict() throws {
        // Labels that want the drag to 0.66 cancelled and the one to 0.27 finished.
        let labels = try temporaryFile("tune-conflict.toml", """
        [[recording]]
        file = "Recordings/back-drag-finish.events"
          [[recording.gesture]]
          transition = "back"
          decision = "cancel"
          reason = "released"
          progress = 0.6598

        [[recording]]
        file = "Recordings/back-drag-cancel.events"
          [[recording.gesture]]
          transition = "back"
          decision = "finish"
          reason = "released"
          progress = 0.2652

        """)
        let result = try runTransitiond(["tune", "Recordings/back-drag-finish.events",
                                         "Recordings/back-drag-cancel.events", "--expect", labels])
        #expect(result.status == 1)
        #expect(result.stdoutText.contains("no values agree with every recording"))
        #expect(result.stdoutText.contains("best found (not a suggestion)"))
        #expect(!result.stdoutText.contains("suggested:"))
        let wrong = result.lines.drop { !$0.contains("stays wrong") }.dropFirst().first
        let conflict = result.lines.first { $0.hasPrefix("conflicting with ") }
        // One of the two is right at the best values; the other is named against it.
        #expect(Set([wrong?.trimmingCharacters(in: .whitespaces), conflict?.dropFirst("conflicting with ".count).description])
            == Set(["Recordings/back-drag-finish.events", "Recordings/back-drag-cancel.events"]))
    }

    @Test func tuneNeedsEveryRecordingLabelledAndTransitionKnown() throws {
        let labels = try temporaryFile("tune-unknown.toml", """
        [[recording]]
        file = "Recordings/back-drag-finish.events"
          [[recording.gesture]]
          transition = "zoom"
          decision = "finish"
          reason = "released"
          progress = 0.66

        """)
        let unknown = try runTransitiond(["tune", "Recordings/back-drag-finish.events", "--expect", labels])
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("transition 'zoom'"))
        let unlabelled = try runTransitiond(["tune", "Recordings/back-drag-cancel.events", "--expect", labels])
        #expect(unlabelled.status == 65)
        #expect(unlabelled.stderr.contains("no [[recording]] for Recordings/back-drag-cancel.events"))
    }
}
