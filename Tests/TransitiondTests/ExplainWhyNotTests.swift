import Foundation
import Testing
import TestSupport

/// `replay --fast --explain` about transitions that never even looked at a
/// touch-down (a finger count that never matched), and, when nothing began,
/// why — the same words as text and as `--json` explain lines on stderr.
@Suite("replay --explain: why not")
struct ExplainWhyNotTests {
    static func config(edgeMargin: Double) throws -> String {
        try temporaryFile("why-not-\(edgeMargin).toml", """
            [[transition]]
            name = "back"
            gesture = "edge-pan"
            edge = "left"
            edge_margin = \(edgeMargin)

            [[transition]]
            name = "zoom"
            gesture = "pinch"
            direction = "in"
            """)
    }

    static let recording = ProjectPaths.file("Recordings/back-drag-finish.events")

    /// The `text` of each explain line on stderr, with its transition.
    func notes(_ stderr: String) -> [(transition: String?, text: String)] {
        stderr.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["type"] as? String == "explain", let text = object["text"] as? String else { return nil }
            return (object["transition"] as? String, text)
        }
    }

    @Test func aPinchOnAOneFingerRecordingSaysWhyItNeverLooked() throws {
        let config = try Self.config(edgeMargin: 0.05)
        let text = try runTransitiond(["replay", "--fast", "--explain", "--config", config, Self.recording])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.lines.contains("0.000    zoom: not considered: it takes 2 fingers; 1 was down"), "\(text.lines)")
        #expect(text.lines.contains("0.000    back: candidate"))
        // Something began: no summary of why nothing did.
        #expect(!text.lines.contains { $0.contains("no transition began") })

        let json = try runTransitiond(["replay", "--fast", "--json", "--explain", "--config", config, Self.recording])
        #expect(json.status == 0)
        #expect(notes(json.stderr).contains { $0.transition == "zoom" && $0.text == "zoom: not considered: it takes 2 fingers; 1 was down" })
    }

    @Test func whenNothingBeganTheLastLinesSayWhyForEachTransition() throws {
        let config = try Self.config(edgeMargin: 0.01)
        let text = try runTransitiond(["replay", "--fast", "--explain", "--config", config, Self.recording])
        #expect(text.status == 0, "\(text.stderr)")
        let why = ["no transition began: 1 touch-down",
                   "back: the touch-down was not within the left edge margin 0.01 (nearest at x = 0.02)",
                   "zoom: pinch 'zoom' takes 2 fingers; at most 1 was down"]
        #expect(Array(text.lines.suffix(3)) == ["1.305  " + why[0], "1.305    " + why[1], "1.305    " + why[2]], "\(text.lines)")

        let json = try runTransitiond(["replay", "--fast", "--json", "--explain", "--config", config, Self.recording])
        let said = notes(json.stderr)
        #expect(said.suffix(3).map(\.text) == why)
        #expect(said.suffix(3).map(\.transition) == [nil, "back", "zoom"])
    }
}
