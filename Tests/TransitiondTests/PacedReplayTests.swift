import SystemSupport
import Inputs
import NIOCore
import NIOPosix
import Testing
import TestSupport
import Engine
import Replay

/// Paced replay is `ReplayHost` on an `EngineDriver`, the same for the
/// socket and for stdout; here on a manual clock: the same events as
/// `--fast`, each step taken when its recording time divided by the speed
/// is due, and the whole replay as long as the recording divided by the speed.
@Suite("Paced replay")
struct PacedReplayTests {
    /// Runs a replay host to its end on a loop; each batch it emitted with
    /// the clock's time then.
    func play(_ session: ReplaySession, clock: ManualClock, speed: Double) throws
        -> [(at: MonotonicClock.Instant, events: [TransitionEvent])] {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let host = ReplayHost(loop: loop, session: session, clock: clock, speed: speed)
        let done = loop.makePromise(of: Void.self)
        let batches = Batches()
        try loop.submit {
            host.start(emit: { batches.items.append((clock.now, $0)) }, finished: { done.succeed(()) })
        }.wait()
        try done.futureResult.wait()
        return batches.items
    }

    final class Batches: @unchecked Sendable {
        var items: [(at: MonotonicClock.Instant, events: [TransitionEvent])] = []
    }

    @Test(arguments: [1.0, 2.5])
    func pacedEqualsFastAndRunsOnSchedule(_ speed: Double) throws {
        let input = try replayInput(ProjectPaths.file("Recordings/back-drag-finish.events"))
        let fast = try replayAll(.standard, [input])
        let start = MonotonicClock.Instant(seconds: 100)
        let clock = ManualClock(start: start)
        let batches = try play(try ReplaySession(configuration: .standard, inputs: [input]), clock: clock, speed: speed)
        #expect(batches.flatMap(\.events) == fast)
        // The clock never goes back, and no event is handed on before its time is due.
        #expect(zip(batches, batches.dropFirst()).allSatisfy { $0.at <= $1.at })
        for batch in batches {
            let due = start.duration(to: batch.at).seconds * speed
            #expect(batch.events.allSatisfy { $0.time <= due + 1e-9 })
        }
        // The whole replay takes the recording's length divided by the speed.
        let last = try #require(fast.last)
        #expect(abs(start.duration(to: clock.now).seconds - last.time / speed) < 1e-9)
    }

    /// Commands run at the replay time that corresponds to now: on the
    /// manual clock, the time of the last step taken (not the next one's),
    /// and before the replay starts, its time 0; what a command starts
    /// before then is sent once there is somewhere to send it.
    @Test func commandsRunAtTheReplayTimeOfNow() throws {
        // A recording that drives nothing of the default config, so only the
        // commands' events are seen.
        let input = try replayInput(ProjectPaths.file("Recordings/pinch-in-2-fingers.events"))
        let end = Double(input.events.last!.time - input.events.first!.time) * 1e-6
        let clock = ManualClock(start: MonotonicClock.Instant(seconds: 7))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let host = ReplayHost(loop: loop, session: try ReplaySession(configuration: .standard, inputs: [input]), clock: clock)
        let batches = Batches()
        let done = loop.makePromise(of: Void.self)
        let early = try loop.submit { () -> [TransitionEvent] in
            var events: [TransitionEvent] = []
            #expect(host.perform(.drive(progress: 0.3), transition: 0, into: &events) == .done)
            #expect(host.perform(.cancel, transition: 0, into: &events) == .done)
            host.start(emit: { batches.items.append((clock.now, $0)) }, finished: { done.succeed(()) })
            return events
        }.wait()
        #expect(early.map(\.kind) == [.began, .ended])
        #expect(early.allSatisfy { $0.time == 0 })
        try done.futureResult.wait()
        let emitted = batches.items.flatMap(\.events)
        #expect(emitted.map(\.kind) == Array(repeating: .animating, count: emitted.count - 1) + [.cancelled],
                "the cancel's animation back, sent once the replay started")
        // After the end: a command runs at the replay's last step, not later.
        let late = try loop.submit { () -> [TransitionEvent] in
            var events: [TransitionEvent] = []
            _ = host.perform(.drive(progress: 0.5), transition: 0, into: &events)
            return events
        }.wait()
        let began = try #require(late.first)
        #expect(began.kind == .began)
        #expect(abs(began.time - end) < 1e-9, "at \(began.time), the recording ends at \(end)")
    }

    @Test func theTimelineMapsEngineTimeToTheClockAndBack() {
        let origin = MonotonicClock.Instant(seconds: 50)
        let timeline = EngineTimeline(origin: origin, speed: 4)
        #expect(timeline.instant(of: 2) == MonotonicClock.Instant(seconds: 50.5))
        #expect(abs(timeline.engineTime(at: MonotonicClock.Instant(seconds: 51)) - 4) < 1e-12)
        let live = EngineTimeline.live
        #expect(live.instant(of: 12.25) == MonotonicClock.Instant(seconds: 12.25))
    }

    @Test func loopsContinueTheTimeLine() throws {
        let input = try replayInput(ProjectPaths.file("Recordings/back-drag-cancel.events"))
        let once = try replayAll(.standard, [input])
        let thrice = try replayAll(.standard, [input], loops: 3)
        #expect(thrice.count == once.count * 3)
        #expect(thrice.map(\.seq) == Array(1...UInt64(thrice.count)))
        // The second loop starts after the first has settled.
        let firstEnd = once.last!.time
        #expect(thrice[once.count].time > firstEnd)
        // And repeats the same progress values.
        let again = thrice[once.count..<(2 * once.count)]
        #expect(again.map(\.kind) == once.map(\.kind))
        #expect(zip(again, once).allSatisfy { abs($0.progress - $1.progress) < 1e-9 })
    }
}
