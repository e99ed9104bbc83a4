import Foundation
import Testing
import TestSupport

/// `replay --fast --explain` through the real binary: the reasons in words,
/// and with `--json` the same events as without it, the reasons on stderr.
@Suite("replay --explain")
struct ExplainReplayTests {
    @Test func theReasonsInWords() throws {
        let result = try runTransitiond(["replay", "--fast", "--explain", "--config", ProjectPaths.file("config/example.toml"),
                                         ProjectPaths.file("Recordings/back-flick-back-cancel.events")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.lines
        #expect(lines.first == "0.000  touch-down at (0.02, 0.5), panel 0")
        #expect(lines.contains("0.000    back: candidate"))
        #expect(lines.contains("0.000    forward: passed over: touch-down at x = 0.02, outside the right edge margin 0.05"))
        #expect(lines.last == "0.990  back: cancel by a flick at -2.359/s (flick velocity 1) (peak 0.74)", "\(lines)")
    }

    @Test func withJSONTheEventsAreUnchanged() throws {
        let recording = ProjectPaths.file("Recordings/swipe-up-3-fingers.events")
        let config = ProjectPaths.file("config/example.toml")
        let plain = try runTransitiond(["replay", "--fast", "--json", "--config", config, recording])
        let explained = try runTransitiond(["replay", "--fast", "--json", "--explain", "--config", config, recording])
        #expect(explained.status == 0)
        #expect(explained.stdout == plain.stdout)
        let notes = explained.stderr.split(separator: "\n")
        #expect(notes.allSatisfy { $0.hasPrefix("{\"type\":\"explain\",\"time\":") })
        #expect(notes.contains { $0.contains("\"transition\":\"close\",\"text\":\"close: passed over: 3 contacts down, the gesture takes 2\"") })
    }

    @Test func explainNeedsFast() throws {
        let result = try runTransitiond(["replay", "--explain", ProjectPaths.file("Recordings/back-drag-finish.events")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--explain works with --fast"))
    }
}
