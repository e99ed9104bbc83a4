import Testing
import TestSupport
import Engine
@testable import TouchFilter

extension FilterHarness {
    /// The touch in source slot `slot` is stuck at `t` (`slotStuck`).
    @discardableResult
    mutating func stuck(_ slot: Int, at t: Double) -> [TouchFilterMachine.Output] {
        var out: [TouchFilterMachine.Output] = []
        filter.slotStuck(slot, at: t, into: &out)
        written += out
        return out
    }
}

@Suite("Stuck contacts end cleanly on the copy")
struct StuckTests {
    let on = true, off = false

    func wellFormed(_ h: FilterHarness) -> [String] {
        var v = MultitouchValidator()
        v.read(h.written)
        return v.problems + (v.isIdle ? [] : ["touches left down"])
    }

    @Test func aStuckTouchLiftsOnTheCopyAndItsLaterReportsAreIgnored() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 2, id: 40, x: 300, y: 30))
        h.frame(1.01, [.x(310)])
        // Silent for a while: the stuck timer fires.
        #expect(h.stuck(2, at: 6.01) == frames((6.01, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        // The finger was there after all: its moves and its lift reach nobody.
        #expect(h.frame(7.0, [.slot(2), .x(500)]) == [])
        #expect(h.frame(7.01, [.y(60)]) == [])
        #expect(h.frame(7.02, [.id(-1)]) == [])
        #expect(h.run(until: 8) == [])
        // The slot's next touch is a touch of the copy's again.
        let next = h.frame(8.0, Ev.down(slot: 2, id: 41, x: 100, y: 10))
        // (slot 2 is still the one selected on the copy: no ABS_MT_SLOT)
        #expect(next == frames((8.0, Array(cloneDown(slot: 2, id: 1, x: 100, y: 10).dropFirst())
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(100), .absY(10)])))
        h.frame(8.01, [.id(-1)])
        #expect(wellFormed(h) == [])
    }

    @Test func anotherTouchGoesOnAndTakesThePointer() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 1, x: 300, y: 30))
        h.frame(1.01, Ev.down(slot: 1, id: 2, x: 100, y: 10))
        let out = h.stuck(0, at: 6.0)
        #expect(out == frames((6.0, [.slot(0), .id(-1), .key(Code.BTN_TOOL_FINGER, on), .key(Code.BTN_TOOL_DOUBLETAP, off),
                                     .absX(100), .absY(10)])))
        // The other touch moves on, the stuck one's reports change nothing.
        #expect(h.frame(6.5, [.slot(1), .x(120), .slot(0), .x(900)]) == frames((6.5, [.slot(1), .x(120), .absX(120)])))
        h.frame(6.6, [.slot(1), .id(-1)])
        h.frame(6.7, [.slot(0), .id(-1)])
        #expect(wellFormed(h) == [])
    }

    @Test func aStuckTouchNoLongerTakesRoomUnderMaxContacts() {
        var h = FilterHarness(rules: FilterRules(maxContacts: 1))
        h.frame(1.0, Ev.down(slot: 0, id: 1, x: 300, y: 30))
        h.stuck(0, at: 6.0)
        // The panel still has slot 0's touch; a new one in slot 1 is the copy's only touch.
        let second = h.frame(7.0, Ev.down(slot: 1, id: 2, x: 100, y: 10))
        #expect(second.events.contains(.id(1)))
        h.frame(7.1, [.slot(1), .id(-1), .slot(0), .id(-1)])
        #expect(wellFormed(h) == [])
    }

    @Test func aHeldTouchThatIsStuckIsNeverOutput() {
        var h = FilterHarness(hold: 10)
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 1, x: 5, y: 100), [0: .startArea]) == [])
        #expect(h.stuck(0, at: 6.0) == [])
        #expect(h.filter.nextDeadline == nil)
        #expect(h.run(until: 20) == [])
        #expect(h.frame(21, [.id(-1)]) == [])
        #expect(h.written == [])
    }

    @Test func aReleasedTouchLosesItsDelayedFrames() {
        // Held 0.08 s, then free: its frames follow with that lag.
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 1, x: 5, y: 100), [0: .startArea])
        h.frame(1.05, [.x(50)], [0: .free])
        #expect(h.filter.nextDeadline != nil)
        let out = h.stuck(0, at: 1.06)
        // What was due by then came first; the end follows at once and nothing is left.
        #expect(out.events.suffix(4) == [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off), .report])
        #expect(h.filter.nextDeadline == nil)
        #expect(h.run(until: 3) == [])
        #expect(wellFormed(h) == [])
    }

    @Test func nothingForAnEmptySwallowedOrUnknownSlot() {
        var h = FilterHarness()
        #expect(h.stuck(0, at: 1.0) == [])
        #expect(h.stuck(-1, at: 1.0) == [])
        #expect(h.stuck(99, at: 1.0) == [])
        #expect(h.frame(1.1, Ev.down(slot: 0, id: 1, x: 5, y: 100), [0: .claimed]) == [])
        #expect(h.stuck(0, at: 2.0) == [])
        #expect(h.written == [])
    }
}
