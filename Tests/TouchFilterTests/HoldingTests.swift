import Testing
import Engine
@testable import TouchFilter

@Suite("Touches in a start area: held, then swallowed or released with their timing")
struct HoldingTests {
    let on = true, off = false

    @Test func aStartAreaTouchClaimedWithinTheHoldIsNeverOutput() {
        var h = FilterHarness()
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 9, x: 10, y: 500), [0: .startArea]) == [])
        #expect(h.filter.nextDeadline == 1.0 + 0.08)
        #expect(h.frame(1.02, [.x(30)], [0: .startArea]) == [])
        #expect(h.frame(1.04, [.x(60)], [0: .claimed]) == [])
        #expect(h.filter.nextDeadline == nil)
        // Swallowed for good: a later free verdict does not bring it back.
        #expect(h.frame(1.06, [.x(90)], [0: .free]) == [])
        #expect(h.run(until: 2.0) == [])
        #expect(h.frame(2.01, [.id(-1)]) == [])
        #expect(h.written == [])
    }

    @Test func anUndecidedTouchIsReleasedAtHoldExpiryWithItsOriginalTiming() {
        var h = FilterHarness()
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 9, x: 10, y: 500), [0: .startArea]) == [])
        #expect(h.frame(1.02, [.x(12)], [0: .startArea]) == [])
        #expect(h.frame(1.05, [.x(15)], [0: .startArea]) == [])
        let release = 1.0 + 0.08
        let lag = release - 1.0
        #expect(h.filter.nextDeadline == release)
        #expect(h.advance(release) == frames((release, cloneDown(slot: 0, id: 0, x: 10, y: 500)
                                                  + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(10), .absY(500)])))
        #expect(h.filter.nextDeadline == 1.02 + lag)
        // Live frames of a released touch keep the lag.
        #expect(h.frame(1.09, [.x(19)], [0: .startArea]) == [])
        #expect(h.run(until: 1.2) == frames((1.02 + lag, [.x(12), .absX(12)]),
                                            (1.05 + lag, [.x(15), .absX(15)]),
                                            (1.09 + lag, [.x(19), .absX(19)])))
        #expect(h.frame(1.2, [.id(-1)]) == [])
        #expect(h.filter.nextDeadline == 1.2 + lag)
        #expect(h.run(until: 1.3) == frames((1.2 + lag, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.filter.nextDeadline == nil)
    }

    @Test func aHeldTapThatLiftsWithinTheHoldComesOutAsDownAndUpWithTheOriginalGap() {
        var h = FilterHarness()
        #expect(h.frame(1.0, Ev.down(slot: 2, id: 5, x: 40, y: 50), [2: .startArea]) == [])
        let down = h.frame(1.03, [.id(-1)])
        #expect(down == frames((1.03, cloneDown(slot: 2, id: 0, x: 40, y: 50)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(40), .absY(50)])))
        let upDue = 1.03 + (1.03 - 1.0)
        #expect(h.filter.nextDeadline == upDue)
        let up = h.run(until: 1.5)
        #expect(up == frames((upDue, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(abs((up.frameDues[0] - down.frameDues[0]) - 0.03) < 1e-9)
    }

    @Test func aFreedHeldTouchIsReleasedAtOnceAndItsRecordedFramesFollow() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 9, x: 10, y: 500), [0: .startArea])
        h.frame(1.02, [.x(12)], [0: .startArea])
        // Unchanged frames are not recorded (they would write nothing).
        h.frame(1.03, [.x(12)], [0: .startArea])
        let freed = h.frame(1.04, [.x(14)], [0: .free])
        let lag = 1.04 - 1.0
        #expect(freed == frames((1.04, cloneDown(slot: 0, id: 0, x: 10, y: 500)
                                     + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(10), .absY(500)])))
        #expect(h.frame(1.05, [.x(16)], [0: .free]) == [])
        #expect(h.run(until: 1.2) == frames((1.02 + lag, [.x(12), .absX(12)]),
                                            (1.04 + lag, [.x(14), .absX(14)]),
                                            (1.05 + lag, [.x(16), .absX(16)])))
    }

    @Test func aReleasedTouchThatIsClaimedEndsAtOnceAndItsPendingFramesAreDropped() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 9, x: 10, y: 500), [0: .startArea])
        h.frame(1.02, [.x(12)], [0: .startArea])
        #expect(h.frame(1.04, [.x(14)], [0: .free]).events.contains(.id(0)))
        #expect(h.filter.nextDeadline == 1.02 + (1.04 - 1.0))
        let claimed = h.frame(1.05, [.x(16)], [0: .claimed])
        #expect(claimed == frames((1.05, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.filter.nextDeadline == nil)
        #expect(h.frame(1.06, [.x(18)], [0: .free]) == [])
        #expect(h.frame(1.07, [.id(-1)]) == [])
    }

    @Test func aLateDecideReleasesAnExpiredHoldAtItsDeadline() {
        var h = FilterHarness()
        // Slot 0 free, slot 1 in a start area; the caller never calls advance.
        let first = h.frame(1.0, Ev.down(slot: 0, id: 1, x: 100, y: 101) + Ev.down(slot: 1, id: 2, x: 200, y: 201), [1: .startArea])
        #expect(first == frames((1.0, cloneDown(slot: 0, id: 0, x: 100, y: 101)
                                     + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(100), .absY(101)])))
        #expect(h.frame(1.05, [.slot(0), .x(110)], [1: .startArea]) == frames((1.05, [.x(110), .absX(110)])))
        let late = h.frame(1.10, [.x(120)], [1: .startArea])
        let release = 1.0 + 0.08
        #expect(late == frames((release, cloneDown(slot: 1, id: 1, x: 200, y: 201)
                                          + [.key(Code.BTN_TOOL_FINGER, off), .key(Code.BTN_TOOL_DOUBLETAP, on)]),
                               (1.10, [.slot(0), .x(120), .absX(120)])))
        // From now on the released touch lags by the hold.
        #expect(h.frame(1.12, [.slot(1), .x(210)], [1: .startArea]) == [])
        #expect(h.filter.nextDeadline == 1.12 + (release - 1.0))
    }

    @Test func aZeroHoldForwardsStartAreaTouchesAtOnce() {
        var h = FilterHarness(hold: 0)
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 1, x: 1, y: 2), [0: .startArea]).events.contains(.id(0)))
        #expect(h.filter.nextDeadline == nil)
    }

    @Test func aHeldTouchIsReleasedWhenItsHistoryIsFull() {
        var h = FilterHarness(hold: 100)
        h.frame(1.0, Ev.down(slot: 0, id: 1, x: 0, y: 2), [0: .startArea])
        for k in 1..<(HeldTouch.frameLimit - 1) {
            #expect(h.frame(1.0 + Double(k) * 0.001, [.x(Int32(k))], [0: .startArea]) == [])
        }
        let full = h.frame(2.5, [.x(-1)], [0: .startArea])
        #expect(full == frames((2.5, cloneDown(slot: 0, id: 0, x: 0, y: 2)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(0), .absY(2)])))
        #expect(h.filter.nextDeadline == 1.001 + (2.5 - 1.0))
    }

    @Test func aTapReplacedInOneFrameIsStillADownAndAnUp() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 1, x: 10, y: 20), [0: .startArea])
        // A new tracking id without a lift: the held tap ends and is released,
        // then the new touch flushes it at once, one frame per step.
        let out = h.frame(1.02, [.id(2), .x(30)])
        #expect(out == frames((1.02, cloneDown(slot: 0, id: 0, x: 10, y: 20)
                                   + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(10), .absY(20)]),
                              (1.02, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)]),
                              (1.02, [.id(1), .x(30), .y(20), .pressure(50),
                                      .key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(30)])))
        #expect(h.filter.nextDeadline == nil)
    }
}
