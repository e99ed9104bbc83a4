import Testing
import TestSupport
import TransitionEngine
import Replay

/// Paced replay on an injected clock: the same events as `--fast`, each
/// step waited for at its recording time divided by the speed.
@Suite("Paced replay")
struct PacedReplayTests {
    @Test(arguments: [1.0, 2.5])
    func pacedEqualsFastAndWaitsOnSchedule(_ speed: Double) throws {
        let input = try replayInput(ProjectPaths.file("Recordings/back-drag-finish.events"))
        let fast = try replayAll(.standard, [input])

        var session = try ReplaySession(configuration: .standard, inputs: [input])
        var pacer = ReplayPacer(clock: VirtualClock(start: 100), speed: speed)
        var paced: [TransitionEvent] = []
        var steps: [(due: Double, events: [TransitionEvent])] = []
        while let t = session.nextTime {
            pacer.wait(until: t)
            var batch: [TransitionEvent] = []
            session.step(into: &batch)
            steps.append((t, batch))
            paced += batch
        }
        #expect(paced == fast)
        let waits = pacer.clock.waits
        #expect(waits.count == steps.count)
        // Waits never go back, and each event is emitted no earlier than its time is due.
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $0 <= $1 })
        for (wait, step) in zip(waits, steps) {
            for e in step.events {
                #expect(abs((wait - 100) * speed - e.time) < 1e-9)
            }
        }
        // The whole replay takes the recording's length divided by the speed.
        let last = try #require(paced.last)
        #expect(abs((pacer.clock.now() - 100) - last.time / speed) < 1e-9)
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
