import Testing
import TestSupport
import Engine
@testable import TouchFilter

@Suite("Claims, slot reuse, resync and a lost source")
struct ClaimAndSlotTests {
    let on = true, off = false

    // MARK: Claims

    @Test func aForwardedTouchThatBecomesClaimedEndsInTheOutputAndNothingMoreOfItIsWritten() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 3, x: 10, y: 20))
        #expect(h.frame(1.01, [.x(20)]) == frames((1.01, [.x(20), .absX(20)])))
        #expect(h.frame(1.02, [.x(30)], [0: .claimed]) == frames((1.02, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.frame(1.03, [.x(40)], [0: .free]) == [])
        #expect(h.frame(1.04, [.id(-1)]) == [])
        var v = MultitouchValidator()
        v.read(h.written)
        #expect(v.problems == [])
        #expect(v.isIdle)
    }

    @Test func twoFingersOneClaimedOneFree() {
        var h = FilterHarness()
        let down = h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100) + Ev.down(slot: 1, id: 11, x: 3000, y: 100),
                           [0: .startArea, 1: .free])
        #expect(down == frames((1.0, cloneDown(slot: 1, id: 0, x: 3000, y: 100)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(3000), .absY(100)])))
        let move = h.frame(1.02, [.slot(0), .x(200), .slot(1), .x(3010)], [0: .claimed, 1: .free])
        #expect(move == frames((1.02, [.x(3010), .absX(3010)])))
        #expect(h.run(until: 1.5) == [])
        let up = h.frame(1.6, [.slot(0), .id(-1), .slot(1), .id(-1)])
        #expect(up == frames((1.6, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
    }

    // MARK: Slots

    @Test func aSlotReusedWhileDelayedFramesPendFlushesThemAtOnce() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100), [0: .startArea])
        // Lifted while held: down now, up due at 1.04.
        #expect(h.frame(1.02, [.id(-1)]).events.contains(.id(0)))
        #expect(h.filter.nextDeadline == 1.02 + (1.02 - 1.0))
        // A new touch in the slot before then: the old touch's up goes out first, now.
        let reused = h.frame(1.03, [.id(11), .x(200)])
        #expect(reused == frames((1.03, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)]),
                                 (1.03, [.id(1), .x(200), .y(100), .pressure(50),
                                         .key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(200)])))
        #expect(h.filter.nextDeadline == nil)
    }

    @Test func delayedTouchesNeverNeedMoreSlotsThanTheSourceHas() {
        // Two slots: each slot's touch is held, lifts (its up is delayed) and the
        // slot gets a new touch at once, again and again.
        var h = FilterHarness(device: Panels.tenSlots(slots: 2))
        var t = 1.0
        var id: Int32 = 1
        for round in 0..<20 {
            for slot in Int32(0)..<2 {
                h.frame(t, Ev.down(slot: slot, id: id, x: id, y: 1), [Int(slot): round % 2 == 0 ? .startArea : .free])
                id += 1
                t += 0.01
            }
            for slot in Int32(0)..<2 {
                h.frame(t, [.slot(slot), .id(-1)])
                t += 0.01
            }
        }
        h.run(until: t + 1)
        var v = MultitouchValidator(slotCount: 2)
        v.read(h.written)
        #expect(v.problems == [])
        #expect(v.touchesBegun == 40)
        #expect(v.isIdle)
        #expect(h.filter.clone.lostBegins == 0)
    }

    @Test func trackingIDsWrapAndSkipTheOnesInUse() {
        var h = FilterHarness()
        // A long press in slot 0 keeps id 0 while 65535 taps in slot 1 take 1…65535.
        h.frame(0, Ev.down(slot: 0, id: 1, x: 1, y: 1))
        var t = 0.0
        for n in 0..<65535 {
            t += 0.001
            h.frame(t, Ev.down(slot: 1, id: Int32(n + 2), x: 2, y: 2))
            t += 0.001
            h.frame(t, [.slot(1), .id(-1)])
        }
        let next = h.frame(t + 0.001, Ev.down(slot: 1, id: 99, x: 2, y: 2))
        #expect(next.events.first == .id(1))
        let ids = h.written.events.filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value)
        #expect(ids.count == 65537)
        #expect(ids.prefix(3) == [0, 1, 2])
        #expect(ids.suffix(2) == [65535, 1])
    }

    // MARK: Resync

    @Test func aResyncEndsTheTouchesThatEndedDuringTheDropAndBeginsTheNewOnes() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100) + Ev.down(slot: 1, id: 11, x: 200, y: 200))
        // libevdev's delta: slot 0 lifted, slot 1 moved, slot 2 is new.
        let resync = h.frame(1.1, [.dropped, .slot(0), .id(-1), .slot(1), .x(999), .slot(2), .id(12), .x(5), .y(6), .pressure(7)])
        #expect(h.filter.activeSlots == [1, 2])
        #expect(resync == frames((1.1, [.slot(0), .id(-1), .slot(1), .x(999), .slot(2), .id(2), .x(5), .y(6), .pressure(7),
                                        .absX(999), .absY(200)])))
        var v = MultitouchValidator()
        v.read(h.written)
        #expect(v.problems == [])
        #expect(v.activeCount == 2)
    }

    @Test func aResyncDeltaWithANewTrackingIDInABusySlotIsANewTouch() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100))
        let resync = h.frame(1.1, [.dropped, .slot(0), .id(20), .x(150)])
        #expect(resync.events.contains(.id(-1)))
        #expect(resync.events.contains(.id(1)))
        var v = MultitouchValidator()
        v.read(h.written)
        #expect(v.problems == [])
        #expect(v.activeCount == 1)
        #expect(v.touchesBegun == 2)
    }

    // MARK: Losing the source

    @Test func aLostSourceEndsEveryTouchInOneFrame() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100) + Ev.down(slot: 1, id: 11, x: 200, y: 200)
                     + Ev.down(slot: 2, id: 12, x: 300, y: 300), [1: .startArea, 2: .startArea])
        h.run(until: 1.08)      // slot 1 and 2 released, lagging 0.08
        h.frame(1.09, [.slot(1), .x(210)], [1: .startArea, 2: .claimed])
        #expect(h.filter.nextDeadline != nil)
        let lost = h.lost(1.1)
        #expect(lost == frames((1.1, [.slot(0), .id(-1), .slot(1), .id(-1),
                                      .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_DOUBLETAP, off)])))
        #expect(h.filter.nextDeadline == nil)
        #expect(h.filter.activeSlots == [])
        // Nothing left to end.
        #expect(h.lost(1.2) == [])
        // A re-attached device starts clean (its slot 0 and tracking id 10 again).
        let again = h.frame(2.0, Ev.down(slot: 0, id: 10, x: 5, y: 5))
        #expect(again == frames((2.0, cloneDown(slot: 0, id: 3, x: 5, y: 5)
                                     + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(5), .absY(5)])))
        var v = MultitouchValidator()
        v.read(h.written)
        #expect(v.problems == [])
    }

    @Test func aLostSourceDropsHeldTouches() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100), [0: .startArea])
        #expect(h.lost(1.01) == [])
        #expect(h.filter.nextDeadline == nil)
        #expect(h.run(until: 2) == [])
    }
}
