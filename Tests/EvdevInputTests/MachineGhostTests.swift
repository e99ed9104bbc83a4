import Testing
import TouchFilter
import Engine
@testable import EvdevInput
@testable import Inputs

/// `ghost_touches = "quarantine"` through the live machine: each pattern
/// logged once, every quarantined tap counted, none on the copy.
@Suite("Live input machine: ghost touches")
struct MachineGhostTests {
    /// A still tap of 20 ms at (x, y) (the test panel: 16 units per mm),
    /// down at `t` seconds.
    func tap(at t: Double, id: Int32, x: Int32, y: Int32) -> [InputEvent] {
        let start = Int64((t * 1e6).rounded())
        var events: [InputEvent] = []
        func add(_ dt: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: start + dt, type: type, code: code, value: value))
        }
        add(0, 3, EventCode.ABS_MT_SLOT, 0)
        add(0, 3, EventCode.ABS_MT_TRACKING_ID, id)
        add(0, 3, EventCode.ABS_MT_POSITION_X, x)
        add(0, 3, EventCode.ABS_MT_POSITION_Y, y)
        add(0, 1, EventCode.BTN_TOUCH, 1)
        add(0, 0, EventCode.SYN_REPORT, 0)
        add(20_000, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(20_000, 1, EventCode.BTN_TOUCH, 0)
        add(20_000, 0, EventCode.SYN_REPORT, 0)
        return events
    }

    @Test func eachPatternIsLoggedOnceAndEveryQuarantinedTapCounted() {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = FilterRules(ghostTouches: .quarantine)
        s.attach(grabbed: true)
        // A every 12.9 s at (2048, 1152): (128, 72) mm; B every 7.3 s at
        // (1000, 1000): (62.5, 62.5) mm; both in the middle (no start area).
        var taps: [(t: Double, x: Int32, y: Int32)] = []
        for k in 0..<6 { taps.append((1 + Double(k) * 12.9, 2048, 1152)) }
        for k in 0..<9 { taps.append((3 + Double(k) * 7.3, 1000, 1000)) }
        taps.sort { $0.t < $1.t }
        var input: [InputEvent] = []
        for (i, tap) in taps.enumerated() { input += self.tap(at: tap.t, id: Int32(i + 1), x: tap.x, y: tap.y) }
        s.play(input)
        s.settle()
        #expect(s.log.filter { $0.contains("ghost touches on") } == [
            "log-notice filter: ghost touches on /dev/input/event4: a still tap every 7.3 s at (62.5, 62.5) mm of the panel, 3 so far; quarantined from now on (ghost_touches)",
            "log-notice filter: ghost touches on /dev/input/event4: a still tap every 12.9 s at (128.0, 72.0) mm of the panel, 3 so far; quarantined from now on (ghost_touches)",
        ])
        // From each pattern's third tap on: 4 of A, 7 of B.
        #expect(s.machine.counters.ghostTouches == 11)
        #expect(s.machine.statistics.ghostTouches == 11)
        // The copy got the first two of each, whole.
        let written = s.written[0, default: []]
        #expect(written.begun.count == 4 && written.ended == 4)
    }

    /// Frames (time in s, slot, its values) as events, in time order.
    func frames(_ list: [(t: Double, slot: Int32, values: [(UInt16, Int32)])]) -> [InputEvent] {
        list.sorted { $0.t < $1.t }.flatMap { f -> [InputEvent] in
            let time = Int64((f.t * 1e6).rounded())
            return [InputEvent(time: time, type: 3, code: EventCode.ABS_MT_SLOT, value: f.slot)]
                + f.values.map { InputEvent(time: time, type: 3, code: $0.0, value: $0.1) }
                + [InputEvent(time: time, type: 0, code: EventCode.SYN_REPORT, value: 0)]
        }
    }

    /// Three ghost taps at the middle every 12.9 s (the third quarantined),
    /// then the fourth in slot 1 at 39.7 s while a finger in slot 0 lands
    /// at the left edge 10 ms later and swipes `back`: does it begin?
    func backBeginsBesideAGhost(_ rules: FilterRules) -> Bool {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = rules
        s.attach(grabbed: true)
        var input: [InputEvent] = []
        for k in 0..<3 { input += tap(at: 1 + Double(k) * 12.9, id: Int32(k + 1), x: 2048, y: 1152) }
        var list: [(t: Double, slot: Int32, values: [(UInt16, Int32)])] = [
            (39.7, 1, [(EventCode.ABS_MT_TRACKING_ID, 60), (EventCode.ABS_MT_POSITION_X, 2048), (EventCode.ABS_MT_POSITION_Y, 1152)]),
            (39.72, 1, [(EventCode.ABS_MT_TRACKING_ID, -1)]),
            (39.71, 0, [(EventCode.ABS_MT_TRACKING_ID, 50), (EventCode.ABS_MT_POSITION_X, 40), (EventCode.ABS_MT_POSITION_Y, 1100)]),
        ]
        for k in 1...40 { list.append((39.71 + Double(k) * 0.01, 0, [(EventCode.ABS_MT_POSITION_X, 40 + Int32(k) * 69)])) }
        list.append((40.13, 0, [(EventCode.ABS_MT_TRACKING_ID, -1)]))
        input += frames(list)
        s.play(input)
        s.settle()
        #expect(s.machine.counters.ghostTouches == (rules.ghostTouches == .quarantine ? 2 : 0))
        return s.events.contains { $0.kind == .began }
    }

    @Test func aGhostTapHeldFromTheEngineStopsNoGestureStartingBesideIt() {
        // With the rule, the engine never sees the ghost: back begins.
        #expect(backBeginsBesideAGhost(FilterRules(ghostTouches: .quarantine)))
        // Without it, the ghost is a second contact as the finger lands:
        // back is refused (what the rule spares).
        #expect(!backBeginsBesideAGhost(.none))
    }

    @Test func offByDefaultEveryTapReachesTheCopy() {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: true)
        var input: [InputEvent] = []
        for k in 0..<6 { input += tap(at: 1 + Double(k) * 12.9, id: Int32(k + 1), x: 2048, y: 1152) }
        s.play(input)
        s.settle()
        #expect(!s.log.contains { $0.contains("ghost") })
        #expect(s.machine.counters.ghostTouches == 0)
        #expect(s.written[0, default: []].begun.count == 6)
    }
}
