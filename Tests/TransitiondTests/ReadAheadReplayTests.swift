import Foundation
import Recordings
import Replay
import TestSupport
import Testing
import TransitionConfig
import Engine

/// `replay --fast` of one recording starts while the file is still being
/// read (RecordingReadAhead): the replay takes the events as they come, and
/// nothing it does may depend on where the parts end, nor may a bad file
/// print anything.
@Suite("Replay while reading")
struct ReadAheadReplayTests {
    static let recording = "Recordings/back-drag-finish.events"

    func configuration() throws -> EngineConfiguration {
        try ConfigLoader.load(path: ProjectPaths.file("config/example.toml"))
    }

    /// The replay of `input` with its events handed over `part` at a time
    /// after the first `part`.
    func replayInParts(_ input: ReplayInput, part: Int, loops: Int) throws -> [TransitionEvent] {
        let events = input.events
        var first = input
        first.events = Array(events.prefix(part))
        var session = try ReplaySession(configuration: try configuration(), inputs: [first], loops: loops,
                                        readingEvents: true)
        var next = min(part, events.count)
        var asked = 0
        var all: [TransitionEvent] = []
        session.run(more: {
            asked += 1
            guard next < events.count else { return nil }
            let end = min(next + part, events.count)
            defer { next = end }
            return Array(events[next..<end])
        }) { all.append(contentsOf: $0) }
        #expect(session.isFinished)
        #expect(asked >= (events.count - min(part, events.count)) / part, "the events were asked for, part by part")
        return all
    }

    /// Played once, the session keeps only what it has not played of the
    /// parts; played twice, it keeps them all for the second time.
    @Test(arguments: [1, 2, 3, 7, 64, 1_000], [1, 2])
    func anyPartSizeGivesTheWholeReplay(part: Int, loops: Int) throws {
        let input = try replayInput(ProjectPaths.file(Self.recording))
        let whole = try replayAll(try configuration(), [input], loops: loops)
        #expect(whole.count > 20 * loops)
        #expect(try replayInParts(input, part: part, loops: loops) == whole)
    }

    @Test func aSessionWaitsForEventsInsteadOfEndingTheRecording() throws {
        let input = try replayInput(ProjectPaths.file(Self.recording))
        var first = input
        first.events = Array(input.events.prefix(input.events.count / 2))
        var session = try ReplaySession(configuration: try configuration(), inputs: [first], readingEvents: true)
        var out: [TransitionEvent] = []
        while !session.needsEvents && !session.isFinished { session.step(into: &out) }
        #expect(session.needsEvents)
        #expect(!out.contains { $0.reason == .deviceLost }, "the part's end is not the recording's")
        let before = out.count
        session.step(into: &out)
        #expect(out.count == before, "a step waits while it needs events")
        session.endOfEvents()
        while !session.isFinished { session.step(into: &out) }
        #expect(out.last?.kind == .cancelled, "now its end is the recording's: what was held is lost")
    }

    // MARK: Through the CLI

    /// `Recordings/back-drag-finish.events` tiled `copies` times, each copy
    /// 0.5 s after the one before: several of the reader's chunks.
    static func tiled(copies: Int) throws -> String {
        let text = try String(contentsOfFile: ProjectPaths.file(recording), encoding: .utf8)
        var header = "", events: [(micros: Int64, rest: Substring)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("E: "), let space = line.dropFirst(3).firstIndex(of: " ") else {
                if !line.isEmpty { header += line + "\n" }
                continue
            }
            let time = line[line.index(line.startIndex, offsetBy: 3)..<space].split(separator: ".")
            events.append((Int64(time[0])! * 1_000_000 + Int64(time[1])!, line[space...]))
        }
        let span = events.last!.micros - events.first!.micros + 500_000
        var out = header
        for copy in 0..<Int64(copies) {
            for event in events {
                let t = event.micros + copy * span
                out += "E: \(t / 1_000_000).\(String(1_000_000 + t % 1_000_000).dropFirst())\(event.rest)\n"
            }
        }
        return out
    }

    /// A small hold limit: the replay gets ahead of the reading, then waits.
    @Test(arguments: [nil, 4096])
    func aLargeRecordingReplaysAsWhenLoadedWhole(holdLimit: Int?) throws {
        let path = try temporaryFile("read-ahead-\(holdLimit ?? 0).events", Self.tiled(copies: 60))
        #expect(FileManager.default.fileSize(path) > 600_000, "more than two read chunks")
        let limit = holdLimit.map { ["--hold-limit", "\($0)"] } ?? []
        let streamed = try runTransitiond(["replay", "--fast", "--json", "--config", "config/example.toml", path] + limit)
        // --explain loads the recording whole; its events on stdout are the same stream.
        let whole = try runTransitiond(["replay", "--fast", "--json", "--explain", "--config", "config/example.toml", path])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(streamed.lines.filter { $0.contains("\"type\":\"finished\"") }.count == 60)
        #expect(streamed.stdout == whole.stdout)
    }

    @Test(arguments: [nil, 4096])
    func aBadLineDeepInALargeRecordingPrintsNothing(holdLimit: Int?) throws {
        let good = try Self.tiled(copies: 60)
        let lines = good.split(separator: "\n").count
        let path = try temporaryFile("read-ahead-bad-\(holdLimit ?? 0).events", good + "E: 99.000000 0003 0035\n")
        let limit = holdLimit.map { ["--hold-limit", "\($0)"] } ?? []
        let result = try runTransitiond(["replay", "--fast", "--json", path] + limit)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing of the replay that had started is printed")
        #expect(result.stderr.hasPrefix("transitiond: \(path):\(lines + 1): "), "\(result.stderr)")
    }
}

extension FileManager {
    func fileSize(_ path: String) -> Int {
        (try? attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
