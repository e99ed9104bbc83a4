import Foundation
import TestSupport
import Testing

/// What the default and the example config do with each of the project's
/// recordings (Recordings/README.md says the same in words).
@Suite("Outcomes of Recordings/")
struct RecordingOutcomeTests {
    static let expected: [(String, String?, [String])] = [
        ("back-drag-finish", nil, ["back:began", "back:finish", "back:finished"]),
        ("back-drag-cancel", nil, ["back:began", "back:cancel", "back:cancelled"]),
        ("back-flick-finish", nil, ["back:began", "back:finish", "back:finished"]),
        ("back-flick-back-cancel", nil, ["back:began", "back:cancel", "back:cancelled"]),
        ("swipe-up-3-fingers", nil, []),
        ("pinch-in-2-fingers", nil, []),
        ("forward-edge-right-spring", nil, []),
        ("back-drag-finish", "config/example.toml", ["back:began", "back:finish", "back:finished"]),
        ("swipe-up-3-fingers", "config/example.toml", ["overview:began", "overview:finish", "overview:finished"]),
        ("pinch-in-2-fingers", "config/example.toml", ["close:began", "close:finish", "close:finished"]),
        ("forward-edge-right-spring", "config/example.toml", ["forward:began", "forward:finish", "forward:finished"]),
    ]

    @Test(arguments: 0..<RecordingOutcomeTests.expected.count)
    func outcome(_ index: Int) throws {
        let (name, config, want) = Self.expected[index]
        var arguments = ["replay", "--fast", "Recordings/\(name).events"]
        if let config { arguments += ["--config", config] }
        let result = try runTransitiond(arguments)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try decodeStream(result.stdout)
        #expect(lines.first?.type == "hello")
        #expect(outcomes(lines) == want, "\(name) with \(config ?? "the default config")")
    }

    @Test func flickFinishesBelowHalfAndFlickBackCancelsAboveHalf() throws {
        let flick = try decodeStream(runTransitiond(["replay", "--fast", "Recordings/back-flick-finish.events"]).stdout)
        let ended = try #require(flick.first { $0.type == "ended" })
        #expect(ended.progress < 0.5)
        #expect(ended.velocity >= 1)
        let back = try decodeStream(runTransitiond(["replay", "--fast", "Recordings/back-flick-back-cancel.events"]).stdout)
        let ended2 = try #require(back.first { $0.type == "ended" })
        #expect(ended2.progress >= 0.5)
        #expect(ended2.velocity <= -1)
    }

    @Test func streamInvariants() throws {
        // Every line: seq rising by one, times never going back, animation
        // ending exactly on target, keyframe values present.
        for name in ProjectPaths.ownRecordings {
            let lines = try decodeStream(runTransitiond(["replay", "--fast", "--loop", "2",
                                                         "--config", "config/example.toml", "Recordings/\(name)"]).stdout)
            let events = lines.dropFirst()
            #expect(events.map(\.seq) == Array(1...max(1, events.count)).prefix(events.count).map { $0 })
            var last = -Double.infinity
            for e in events {
                #expect(e.time >= last, "\(name): time went back at seq \(e.seq)")
                last = e.time
                #expect(e.fields["values"] is [String: Any])
                if e.type == "finished" { #expect(e.progress == 1) }
                if e.type == "cancelled" { #expect(e.progress == 0) }
            }
            // Looping twice doubles every outcome.
            let once = try decodeStream(runTransitiond(["replay", "--fast", "--config", "config/example.toml",
                                                        "Recordings/\(name)"]).stdout)
            #expect(outcomes(Array(lines)) == outcomes(once) + outcomes(once))
        }
    }
}
