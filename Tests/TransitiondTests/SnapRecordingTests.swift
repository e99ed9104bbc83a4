import Foundation
import TestSupport
import Testing

/// The snap points' recordings (Recordings/snap/, made by
/// Recordings/snap_recordings.py) through the real binary's `replay --fast`
/// with the configs beside them: several recordings given to one replay play
/// one after another on one engine, so where a transition rests carries
/// over. Recordings/README.md says the same in words. The exact streams of
/// the sequences are the goldens Tests/Golden/snap/NAME.ndjson
/// (`TRANSITIOND_UPDATE_GOLDEN=1 swift test` rewrites them: then review the diff).
@Suite("The snap points' recordings")
struct SnapRecordingTests {
    static let carousel = "Recordings/snap/carousel.toml"
    static let drawer = "Recordings/snap/drawer.toml"

    /// The sequences, by golden name: config, recordings in play order, and
    /// the snap point each gesture settles on.
    static let sequences: [(name: String, config: String, recordings: [String], targets: [Double])] = [
        // From rest 0: the slow swipe of 0.64 widths (0.32 of progress)
        // pages once, to 0.5; played again from 0.5 it reaches 0.82 and pages
        // to 1; the slow swipe right from 1 reaches 0.68 and goes back a page,
        // to 0.5; the flick travels 0.07 only (to 0.57) but at ~1.5/s, over
        // the flick velocity, so it leaves 0.5 for the next page, 1. Each
        // gesture is held to one page from where it began, and rests carry over.
        ("carousel-sequence", carousel,
         ["carousel-page-left", "carousel-page-left", "carousel-page-right", "carousel-flick-left"],
         [0.5, 1, 0.5, 1]),
        // The drag from the edge to 0.44 rests half open (0.5, the nearer
        // point); resting there, a swipe left from mid-screen (the edge rule
        // holds at 0 only) brings it to 0.05 and it closes.
        ("drawer-sequence", drawer, ["drawer-half-open", "drawer-close-from-middle"], [0.5, 0]),
    ]

    static func arguments(config: String?, _ recordings: [String]) -> [String] {
        var arguments = ["replay", "--fast", "--json"]
        if let config { arguments += ["--config", config] }
        return arguments + recordings.map { "Recordings/snap/\($0).events" }
    }

    static func replay(config: String?, _ recordings: [String]) throws -> (bytes: Data, lines: [StreamLine]) {
        let result = try runTransitiond(arguments(config: config, recordings))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        return (result.stdout, try decodeStream(result.stdout))
    }

    static func number(_ line: StreamLine, _ key: String) -> Double? {
        (line.fields[key] as? NSNumber)?.doubleValue
    }

    /// A recording added to Recordings/snap/ needs its place here.
    @Test func everySnapRecordingIsPlayed() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: ProjectPaths.file("Recordings/snap"))
        let played = Set(Self.sequences.flatMap(\.recordings)).union(Self.alone.map(\.recording))
        #expect(Set(files.filter { $0.hasSuffix(".events") }) == Set(played.map { "\($0).events" }))
    }

    @Test(arguments: SnapRecordingTests.sequences.map(\.name))
    func sequenceSettlesOnEachTarget(_ name: String) throws {
        let sequence = try #require(Self.sequences.first { $0.name == name })
        let (_, lines) = try Self.replay(config: sequence.config, sequence.recordings)
        let events = lines.dropFirst()
        #expect(lines.first?.type == "hello")
        let transition = sequence.config == Self.carousel ? "carousel" : "drawer"
        let points = [0, 0.5, 1.0]
        #expect(outcomes(Array(events)) == sequence.targets.flatMap { _ in
            ["\(transition):began", "\(transition):snap", "\(transition):finished"]
        })
        #expect(!events.contains { $0.type == "cancelled" })

        // Gesture by gesture: began … ended … finished, each from the point
        // the one before settled on.
        var rest = 0.0
        var gestures: [[StreamLine]] = []
        for line in events {
            if line.type == "began" { gestures.append([]) }
            if !gestures.isEmpty { gestures[gestures.count - 1].append(line) }
        }
        try #require(gestures.count == sequence.targets.count)
        for (k, (gesture, target)) in zip(gestures, sequence.targets).enumerated() {
            let what = "\(name), gesture \(k + 1) (\(sequence.recordings[k])) from rest \(rest)"
            #expect(gesture.allSatisfy { $0.transition == transition })
            let ended = try #require(gesture.first { $0.type == "ended" }, "\(what)")
            #expect(ended.decision == "snap", "\(what)")
            #expect(Self.number(ended, "target") == target, "\(what)")
            #expect(Self.number(ended, "index") == points.firstIndex(of: target).map(Double.init), "\(what)")
            for animating in gesture where animating.type == "animating" {
                #expect(Self.number(animating, "target") == target, "\(what)")
            }
            let last = try #require(gesture.last)
            #expect(last.type == "finished" && last.progress == target, "\(what): ends \(last.type) at \(last.progress)")
            // The carousel moves one page (0.5) at most per gesture; the
            // drawer (long swipes) anywhere in 0…1. Neither leaves those
            // bounds, rubber band or not, while it is driven or animates.
            let reach = transition == "carousel" ? 0.5 : 1
            let low = max(-reach, rest - reach) - 1e-9, high = min(1 + reach, rest + reach) + 1e-9
            for line in gesture {
                #expect(line.progress >= low && line.progress <= high,
                        "\(what): \(line.type) at progress \(line.progress)")
            }
            if transition == "drawer" {
                #expect(gesture.allSatisfy { $0.progress >= -1e-9 && $0.progress <= 1 + 1e-9 }, "\(what)")
            }
            rest = target
        }
    }

    @Test(arguments: SnapRecordingTests.sequences.map(\.name))
    func sequenceMatchesGolden(_ name: String) throws {
        let sequence = try #require(Self.sequences.first { $0.name == name })
        let arguments = Self.arguments(config: sequence.config, sequence.recordings)
        let first = try runTransitiond(arguments)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let second = try runTransitiond(arguments)
        #expect(first.stdout == second.stdout, "replay --fast is not deterministic for \(name)")
        let golden = ProjectPaths.file("Tests/Golden/snap/\(name).ndjson")
        if ProcessInfo.processInfo.environment["TRANSITIOND_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: ProjectPaths.file("Tests/Golden/snap"),
                                                    withIntermediateDirectories: true)
            try first.stdout.write(to: URL(fileURLWithPath: golden))
        }
        let expected = try Data(contentsOf: URL(fileURLWithPath: golden))
        #expect(first.stdout == expected, "output differs from \(golden)")
    }

    /// Each recording alone (rest 0) with its snap config, and with the
    /// default and the example config: what Recordings/README.md says.
    static let alone: [(recording: String, snap: String, withSnap: [String], target: Double?,
                        default: [String], example: [String])] = [
        ("carousel-page-left", carousel, ["carousel:began", "carousel:snap", "carousel:finished"], 0.5, [], []),
        // Travel 0.07 only, but a flick: from 0 it pages to 0.5.
        ("carousel-flick-left", carousel, ["carousel:began", "carousel:snap", "carousel:finished"], 0.5, [], []),
        // At 0 a swipe right pulls past the first page (rubber band) and goes back to 0.
        ("carousel-page-right", carousel, ["carousel:began", "carousel:snap", "carousel:finished"], 0, [], []),
        // From the left edge: `back` (default and example) begins and cancels, p 0.44 with v 0.
        ("drawer-half-open", drawer, ["drawer:began", "drawer:snap", "drawer:finished"], 0.5,
         ["back:began", "back:cancel", "back:cancelled"], ["back:began", "back:cancel", "back:cancelled"]),
        // Far from the edge: nothing begins at rest 0, in any config.
        ("drawer-close-from-middle", drawer, [], nil, [], []),
    ]

    @Test(arguments: 0..<SnapRecordingTests.alone.count)
    func recordingAlone(_ index: Int) throws {
        let case_ = Self.alone[index]
        let snap = try Self.replay(config: case_.snap, [case_.recording]).lines
        #expect(outcomes(snap) == case_.withSnap, "\(case_.recording) with \(case_.snap)")
        if let target = case_.target {
            let ended = try #require(snap.first { $0.type == "ended" })
            #expect(Self.number(ended, "target") == target)
            #expect(snap.last?.type == "finished" && snap.last?.progress == target)
        }
        let byDefault = try Self.replay(config: nil, [case_.recording]).lines
        #expect(outcomes(byDefault) == case_.default, "\(case_.recording) with the default config")
        let example = try Self.replay(config: "config/example.toml", [case_.recording]).lines
        #expect(outcomes(example) == case_.example, "\(case_.recording) with config/example.toml")
    }

    /// Played alone at rest 0, the swipe right is shown past the first page,
    /// damped (rubber band), and never more than a page of travel.
    @Test func pageRightAloneRubberBands() throws {
        let lines = try Self.replay(config: Self.carousel, ["carousel-page-right"]).lines
        let least = lines.filter { $0.type == "changed" }.map(\.progress).min() ?? 0
        // 0.32 of raw travel past 0, damped: 1 − 1 / (0.32 · 0.55 + 1) ≈ 0.15.
        #expect(least < -0.1 && least > -0.2, "least progress \(least)")
    }

    /// The flick's travel is short of half a page (it pages by its speed).
    @Test func flickPagesOnShortTravel() throws {
        let lines = try Self.replay(config: Self.carousel, ["carousel-page-left", "carousel-flick-left"]).lines
        let ended = try #require(lines.last { $0.type == "ended" })
        #expect(ended.progress - 0.5 < 0.25 && ended.velocity >= 1, "p \(ended.progress), v \(ended.velocity)")
        #expect(Self.number(ended, "target") == 1)
    }
}
