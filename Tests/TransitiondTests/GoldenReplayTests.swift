import Foundation
import TestSupport
import Testing

/// Golden files: `replay --fast` of each of the project's recordings, with the
/// embedded default config and with config/example.toml, must equal the
/// committed NDJSON byte for byte. `TRANSITIOND_UPDATE_GOLDEN=1 swift test`
/// rewrites them (then review the diff).
@Suite("Golden replays of Recordings/")
struct GoldenReplayTests {
    static let cases: [(recording: String, config: String?)] =
        ProjectPaths.ownRecordings.flatMap { [($0, nil as String?), ($0, "config/example.toml")] }

    static func goldenPath(_ recording: String, _ config: String?) -> String {
        let stem = recording.replacingOccurrences(of: ".events", with: "")
        return ProjectPaths.file("Tests/Golden/\(stem).\(config == nil ? "default" : "example").ndjson")
    }

    @Test func everyExpectedRecordingIsThere() {
        let names = Set(ProjectPaths.ownRecordings)
        for expected in ["back-drag-finish.events", "back-drag-cancel.events", "back-flick-finish.events",
                         "back-flick-back-cancel.events", "swipe-up-3-fingers.events", "pinch-in-2-fingers.events"] {
            #expect(names.contains(expected), "Recordings/\(expected) is missing")
        }
    }

    @Test(arguments: GoldenReplayTests.cases.map { "\($0.recording)|\($0.config ?? "")" })
    func replayMatchesGolden(_ key: String) throws {
        let parts = key.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let recording = parts[0], config: String? = parts[1].isEmpty ? nil : parts[1]
        var arguments = ["replay", "--fast", "--json", "Recordings/\(recording)"]
        if let config { arguments += ["--config", config] }
        let first = try runTransitiond(arguments)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let second = try runTransitiond(arguments)
        #expect(first.stdout == second.stdout, "replay --fast is not deterministic for \(key)")

        let golden = Self.goldenPath(recording, config)
        if ProcessInfo.processInfo.environment["TRANSITIOND_UPDATE_GOLDEN"] == "1" {
            try first.stdout.write(to: URL(fileURLWithPath: golden))
        }
        let expected = try Data(contentsOf: URL(fileURLWithPath: golden))
        #expect(first.stdout == expected, "output differs from \(golden)")
    }
}
