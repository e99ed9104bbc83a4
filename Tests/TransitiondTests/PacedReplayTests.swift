import Clocks
import EngineDriving
import NIOCore
import NIOPosix
import Testing
import TestSupport
import TransitionEngine
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

    @Test func theTimelineMapsEngineTimeToTheClockAndBack() {
        let origin = MonotonicClock.Instant(seconds: 50)
        let timeline = EngineTimeline<ManualClock>(origin: origin, speed: 4)
        #expect(timeline.instant(of: 2) == MonotonicClock.Instant(seconds: 50.5))
        #expect(abs(timeline.engineTime(at: MonotonicClock.Instant(seconds: 51)) - 4) < 1e-12)
        let live = EngineTimeline<MonotonicClock>.live
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
