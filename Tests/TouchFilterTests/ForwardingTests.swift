import Testing
import TestSupport
import Engine
@testable import TouchFilter

@Suite("Free touches: forwarded live, as diffs, with key bits and pointer emulation")
struct ForwardingTests {
    let on = true, off = false

    @Test func aFreeTouchIsForwardedFrameByFrame() {
        var h = FilterHarness()
        // Source key bits, EV_MSC and ABS_X are the source's: not forwarded.
        let first = h.frame(1.0, Ev.down(slot: 0, id: 100, x: 10, y: 20, pressure: 30)
                               + [.key(Code.BTN_TOUCH, true), .key(Code.BTN_TOOL_FINGER, true),
                                  Ev(type: Code.EV_MSC, code: 5, value: 1234), .absX(10), .absY(20)])
        #expect(h.filter.activeSlots == [0])
        #expect(first == frames((1.0, cloneDown(slot: 0, id: 0, x: 10, y: 20, pressure: 30)
                                     + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(10), .absY(20)])))
        #expect(h.frame(1.01, [.x(11)]) == frames((1.01, [.x(11), .absX(11)])))
        #expect(h.frame(1.02, [.y(25), .pressure(31)]) == frames((1.02, [.y(25), .pressure(31), .absY(25)])))
        // Nothing changed: no frame.
        #expect(h.frame(1.03, [.pressure(31)]) == [])
        #expect(h.frame(1.04, [.id(-1)]) == frames((1.04, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.filter.activeSlots == [])
        #expect(h.filter.nextDeadline == nil)
    }

    @Test func toolBitsFollowTheNumberOfTouchesUpToFiveAndNoneBeyond() {
        var h = FilterHarness()
        var keys: [[Ev]] = []
        func keyEvents(_ out: [TouchFilterMachine.Output]) -> [Ev] { out.events.filter { $0.type == Code.EV_KEY } }
        for n in 0..<7 {
            keys.append(keyEvents(h.frame(1.0 + Double(n) * 0.01, Ev.down(slot: Int32(n), id: Int32(50 + n), x: Int32(100 * n), y: 7))))
        }
        #expect(keys == [
            [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on)],
            [.key(Code.BTN_TOOL_FINGER, off), .key(Code.BTN_TOOL_DOUBLETAP, on)],
            [.key(Code.BTN_TOOL_DOUBLETAP, off), .key(Code.BTN_TOOL_TRIPLETAP, on)],
            [.key(Code.BTN_TOOL_TRIPLETAP, off), .key(Code.BTN_TOOL_QUADTAP, on)],
            [.key(Code.BTN_TOOL_QUADTAP, off), .key(Code.BTN_TOOL_QUINTTAP, on)],
            [.key(Code.BTN_TOOL_QUINTTAP, off)],   // six: BTN_TOUCH only, as the kernel reports
            [],                                    // seven: nothing changes
        ])
        keys = []
        for n in (0..<7).reversed() {
            keys.append(keyEvents(h.frame(2.0 + Double(n) * 0.01, [.slot(Int32(n)), .id(-1)])))
        }
        #expect(keys == [
            [],
            [.key(Code.BTN_TOOL_QUINTTAP, on)],
            // In the kernel's order: FINGER, DOUBLETAP, TRIPLETAP, QUADTAP, QUINTTAP.
            [.key(Code.BTN_TOOL_QUADTAP, on), .key(Code.BTN_TOOL_QUINTTAP, off)],
            [.key(Code.BTN_TOOL_TRIPLETAP, on), .key(Code.BTN_TOOL_QUADTAP, off)],
            [.key(Code.BTN_TOOL_DOUBLETAP, on), .key(Code.BTN_TOOL_TRIPLETAP, off)],
            [.key(Code.BTN_TOOL_FINGER, on), .key(Code.BTN_TOOL_DOUBLETAP, off)],
            [.key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)],
        ])
    }

    @Test func onlyTheKeysTheDeviceDeclaresAreWritten() {
        var h = FilterHarness(device: Panels.tenSlots(keys: [Code.BTN_TOUCH, Code.BTN_TOOL_DOUBLETAP]))
        var keys: [[Ev]] = []
        for n in 0..<3 {
            let out = h.frame(1.0 + Double(n) * 0.01, Ev.down(slot: Int32(n), id: Int32(n), x: 1, y: 1))
            keys.append(out.events.filter { $0.type == Code.EV_KEY })
        }
        #expect(keys == [[.key(Code.BTN_TOUCH, on)], [.key(Code.BTN_TOOL_DOUBLETAP, on)], [.key(Code.BTN_TOOL_DOUBLETAP, off)]])
    }

    @Test func pointerEmulationFollowsTheOldestOutputTouch() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 3, id: 7, x: 300, y: 30))
        // A second touch in a lower slot is younger: ABS_X/Y stay with the first.
        let second = h.frame(1.01, Ev.down(slot: 1, id: 8, x: 100, y: 10))
        #expect(second == frames((1.01, cloneDown(slot: 1, id: 1, x: 100, y: 10)
                                      + [.key(Code.BTN_TOOL_FINGER, off), .key(Code.BTN_TOOL_DOUBLETAP, on)])))
        // The oldest lifts: the pointer jumps to the other one.
        let lift = h.frame(1.02, [.slot(3), .id(-1)])
        #expect(lift == frames((1.02, [.slot(3), .id(-1), .key(Code.BTN_TOOL_FINGER, on), .key(Code.BTN_TOOL_DOUBLETAP, off),
                                       .absX(100), .absY(10)])))
        // Lifting the last one leaves ABS_X/Y where they were (the kernel does too).
        let last = h.frame(1.03, [.slot(1), .id(-1)])
        #expect(last == frames((1.03, [.slot(1), .id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
    }

    @Test func absPressureFollowsTheOldestTouchAndDropsToZero() {
        let device = Panels.tenSlots(extraAbs: [Code.ABS_PRESSURE: AbsInfo(minimum: 0, maximum: 255)], keys: [Code.BTN_TOUCH])
        var h = FilterHarness(device: device)
        let down = h.frame(1.0, Ev.down(slot: 0, id: 1, x: 5, y: 6, pressure: 70))
        #expect(down == frames((1.0, cloneDown(slot: 0, id: 0, x: 5, y: 6, pressure: 70)
                                    + [.key(Code.BTN_TOUCH, on), .absX(5), .absY(6),
                                       Ev(type: Code.EV_ABS, code: Code.ABS_PRESSURE, value: 70)])))
        let up = h.frame(1.01, [.id(-1)])
        #expect(up == frames((1.01, [.id(-1), .key(Code.BTN_TOUCH, off), Ev(type: Code.EV_ABS, code: Code.ABS_PRESSURE, value: 0)])))
    }

    @Test func aDeviceWithoutSingleTouchAxesGetsNone() {
        var abs = Panels.tenSlots().absInfo
        abs[Code.ABS_X] = nil
        abs[Code.ABS_Y] = nil
        let device = DeviceDescription(name: "MT only", codes: [Code.EV_ABS: Set(abs.keys)], absInfo: abs)
        var h = FilterHarness(device: device)
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 1, x: 5, y: 6)) == frames((1.0, cloneDown(slot: 0, id: 0, x: 5, y: 6))))
        #expect(h.frame(1.01, [.x(9)]) == frames((1.01, [.x(9)])))
        #expect(h.frame(1.02, [.id(-1)]) == frames((1.02, [.id(-1)])))
    }

    @Test func otherAxesOfAContactAreCarriedToo() {
        let device = Panels.tenSlots(extraAbs: [Code.ABS_MT_TOUCH_MAJOR: AbsInfo(minimum: 0, maximum: 100)], keys: [])
        var h = FilterHarness(device: device)
        let major = Ev(type: Code.EV_ABS, code: Code.ABS_MT_TOUCH_MAJOR, value: 12)
        let down = h.frame(1.0, Ev.down(slot: 0, id: 1, x: 5, y: 6) + [major])
        // POSITION_X and POSITION_Y first, then the other axes by code.
        #expect(down == frames((1.0, [.slot(0), .id(0), .x(5), .y(6), major, .pressure(50), .absX(5), .absY(6)])))
    }

    @Test func unknownSlotsInTheVerdictsAndStartAreaForAForwardedTouchAreIgnored() {
        var h = FilterHarness()
        let down = h.frame(1.0, Ev.down(slot: 0, id: 1, x: 5, y: 6), [7: .claimed, -3: .claimed, 1000: .claimed])
        #expect(down.events.contains(.id(0)))
        // Already forwarded: a start-area verdict keeps forwarding it.
        #expect(h.frame(1.01, [.x(6)], [0: .startArea]) == frames((1.01, [.x(6), .absX(6)])))
        #expect(h.filter.nextDeadline == nil)
    }

    @Test func outputSlotsPreferTheSourceSlotElseTheLowestFree() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 4, id: 1, x: 5, y: 6))
        // A new tracking id without a lift: a new touch. Slot 4 still shows the
        // old one until this frame, so the new touch takes the lowest free slot.
        let replaced = h.frame(1.01, [.id(2), .x(8)])
        // Slots are written in order, all in one frame.
        #expect(replaced == frames((1.01, [.slot(0), .id(1), .x(8), .y(6), .pressure(50), .slot(4), .id(-1), .absX(8)])))
        var v = MultitouchValidator()
        v.read(h.written)
        #expect(v.problems == [])
    }
}
