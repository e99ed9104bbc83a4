import Testing
import TouchFilter
import Engine
@testable import EvdevInput
@testable import Inputs

/// `[filter] stuck_after` and `palm_mm` in the live machine: a contact the
/// panel stops reporting ends in the engine and on the copy, and is counted.
@Suite("Live input machine: stuck contacts and palms")
struct MachineStuckTests {
    let rules = FilterRules(stuckAfter: 2)

    /// A machine in filter mode with `rules`, its panel attached and grabbed.
    func script(_ rules: FilterRules, filterHold: Double? = 0.08) -> MachineScript {
        var s = MachineScript(filterHold: filterHold)
        s.machine.settings.filterRules = rules
        s.attach(grabbed: filterHold != nil)
        return s
    }

    /// A finger put down at (x, 1100) at `t` µs in `slot`, not lifted.
    func down(_ t: Int64, x: Int32, slot: Int32 = 0, id: Int32) -> [InputEvent] {
        [InputEvent(time: t, type: 3, code: EventCode.ABS_MT_SLOT, value: slot),
         InputEvent(time: t, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: id),
         InputEvent(time: t, type: 3, code: EventCode.ABS_MT_POSITION_X, value: x),
         InputEvent(time: t, type: 3, code: EventCode.ABS_MT_POSITION_Y, value: 1100),
         InputEvent(time: t, type: 1, code: EventCode.BTN_TOUCH, value: 1),
         InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)]
    }

    /// Slot `slot` moves to x at `t` µs.
    func move(_ t: Int64, x: Int32, slot: Int32 = 0) -> [InputEvent] {
        [InputEvent(time: t, type: 3, code: EventCode.ABS_MT_SLOT, value: slot),
         InputEvent(time: t, type: 3, code: EventCode.ABS_MT_POSITION_X, value: x),
         InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)]
    }

    /// Slot `slot` lifts at `t` µs.
    func lift(_ t: Int64, slot: Int32 = 0, last: Bool = true) -> [InputEvent] {
        [InputEvent(time: t, type: 3, code: EventCode.ABS_MT_SLOT, value: slot),
         InputEvent(time: t, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: -1)]
            + (last ? [InputEvent(time: t, type: 1, code: EventCode.BTN_TOUCH, value: 0)] : [])
            + [InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)]
    }

    /// A frame with nothing but the panel's own timestamp (MSC_TIMESTAMP).
    func timestamp(_ t: Int64) -> [InputEvent] {
        [InputEvent(time: t, type: 4, code: 5, value: Int32(t % 1_000_000)),
         InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)]
    }

    /// The copy's last BTN_TOUCH, and whether every touch it began ended.
    func copyIsIdle(_ written: [TouchFilterMachine.Output]) -> Bool {
        let touch = written.last { $0.type == 1 && $0.code == EventCode.BTN_TOUCH }?.value
        return written.begun.count == written.ended && (touch ?? 0) == 0
    }

    @Test func aStuckDragEndsWithReasonStuckAfterItsPanelsSilence() {
        var s = script(rules)
        // From the left edge to the middle, 0.3 s, the finger never lifts.
        let input = Array(drag(x0: 50, x1: 2500, seconds: 0.3, end: 10_000_000).dropLast(3))
        s.play(input)
        #expect(s.events.contains { $0.kind == .began })
        #expect(!s.events.contains { $0.kind == .ended })
        // The timer is at the last event + stuck_after.
        #expect(s.tickAt == 12.0)
        s.settle(until: 11.999)
        #expect(s.machine.counters.stuckContacts == 0)
        s.settle()
        let ended = s.events.filter { $0.kind == .ended }
        #expect(ended.count == 1)
        #expect(ended.first?.reason == .stuck)
        #expect(ended.first?.decision == .cancel)
        #expect(ended.first?.time == 12.0)
        #expect(s.events.last?.kind == .cancelled)
        #expect(s.machine.counters.stuckContacts == 1)
        #expect(s.machine.statistics.stuckContacts == 1)
        #expect(s.log.contains { $0.hasPrefix("log-notice /dev/input/event4: 1 contact stuck") })
        // The copy never had the edge touch (the transition claimed it): it
        // is well formed and idle.
        #expect(copyIsIdle(s.written[0, default: []]))
        #expect(s.tickAt == nil)
    }

    @Test func aStuckTouchOfTheUIsEndsOnTheCopy() {
        var s = script(rules)
        s.play(down(10_000_000, x: 2048, id: 5) + move(10_010_000, x: 2060))
        s.settle(until: 11)
        let before = s.written[0, default: []]
        #expect(before.begun.count == 1 && before.ended == 0)
        s.settle()
        let written = s.written[0, default: []]
        #expect(written.ended == 1)
        #expect(copyIsIdle(written))
        #expect(written.last?.due == 12.01)
        #expect(s.machine.counters.stuckContacts == 1)
        #expect(!s.events.contains { $0.kind == .began })
    }

    @Test func itDoesNotEndWhileThePanelSendsOtherEvents() {
        var s = script(rules)
        var input = down(10_000_000, x: 2048, id: 5)
        // 5 s of the panel's timestamps every 0.5 s, and another finger
        // moving: slot 0 says nothing all that time.
        for k in 1...10 { input += timestamp(10_000_000 + Int64(k) * 500_000) }
        input += down(15_100_000, x: 1000, slot: 1, id: 6)
        for k in 1...4 { input += move(15_100_000 + Int64(k) * 400_000, x: 1000 + Int32(k) * 10, slot: 1) }
        s.play(input)
        s.settle(until: 17.5)
        #expect(s.machine.counters.stuckContacts == 0)
        #expect(s.written[0, default: []].ended == 0)
        #expect(s.written[0, default: []].begun.count == 2)
        // Then the panel goes silent: both touches end, 2 s after its last event.
        #expect(s.tickAt == 18.7)
        s.settle()
        #expect(s.machine.counters.stuckContacts == 2)
        #expect(copyIsIdle(s.written[0, default: []]))
    }

    @Test func aFingerThatMovesAgainLaterIsHarmless() {
        var s = script(rules)
        let input = Array(drag(x0: 50, x1: 2500, seconds: 0.3, end: 10_000_000).dropLast(3))
        s.play(input)
        s.settle()
        #expect(s.machine.counters.stuckContacts == 1)
        let events = s.events.count
        let written = s.written[0, default: []].count
        // The finger was there all along: it moves back to the edge and out
        // again (as a new edge pan would), and lifts.
        var later: [InputEvent] = []
        for k in 0...30 { later += move(20_000_000 + Int64(k) * 10_000, x: k < 10 ? 2500 - Int32(k) * 245 : 50 + Int32(k - 10) * 120) }
        s.play(later)
        // The engine's frames do not have it: it is no contact any more.
        #expect(s.machine.assemblers[0]?.frame.contacts.isEmpty == true)
        #expect(s.machine.assemblers[0]?.frame.time == 20.3)
        s.play(lift(20_400_000))
        s.settle()
        #expect(s.events.count == events)
        #expect(s.written[0, default: []].count == written)
        #expect(s.machine.counters.stuckContacts == 1)
        #expect(s.tickAt == nil)
        // The slot's next touch is a touch again: the copy gets it.
        s.play(down(21_000_000, x: 2048, id: 9) + lift(21_050_000))
        s.settle()
        let after = s.written[0, default: []]
        #expect(after.begun.count == 1 && copyIsIdle(after))
    }

    @Test func aLateTimerStillEndsTheContactsBeforeThePanelsNextEvents() {
        var s = script(rules)
        s.play(Array(drag(x0: 50, x1: 2500, seconds: 0.3, end: 10_000_000).dropLast(3)))
        #expect(s.tickAt == 12.0)
        // The panel speaks again at 13 s, before the timer fired.
        s.batch(move(13_000_000, x: 2600))
        let ended = s.events.filter { $0.kind == .ended }
        #expect(ended.map(\.reason) == [.stuck])
        #expect(ended.first?.time == 12.0)
        #expect(s.machine.counters.stuckContacts == 1)
    }

    @Test func offByDefault() {
        var s = script(.none)
        s.play(down(10_000_000, x: 2048, id: 5))
        s.settle()
        #expect(s.tickAt == nil)
        #expect(s.machine.counters.stuckContacts == 0)
        #expect(s.written[0, default: []].ended == 0)
    }

    @Test func inSharedModeTheEngineStillEndsAStuckDrag() {
        var s = script(rules, filterHold: nil)
        s.play(Array(drag(x0: 50, x1: 2500, seconds: 0.3, end: 10_000_000).dropLast(3)))
        s.settle()
        #expect(s.events.filter { $0.kind == .ended }.map(\.reason) == [.stuck])
        #expect(s.machine.counters.stuckContacts == 1)
    }

    @Test func palmMillimetresReachTheEnginesFramesInEveryMode() {
        var panel = SampleDevices.touchscreen()
        panel.absInfo[EventCode.ABS_MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: 255, resolution: 4)
        var s = MachineScript()
        s.machine.settings.filterRules = FilterRules(palmMillimetres: 30)
        s.attach("/dev/input/event4", panel)
        #expect(s.machine.assemblers[0]?.palmRule.majorOver == 120)
        // A big contact dragged from the edge starts nothing.
        var input = Array(drag(x0: 50, x1: 2500, seconds: 0.3, end: 10_000_000))
        input.insert(InputEvent(time: input[0].time, type: 3, code: EventCode.ABS_MT_TOUCH_MAJOR, value: 200), at: 2)
        s.play(input)
        s.settle()
        #expect(s.events.isEmpty)
    }
}
