import Testing
import TouchFilter
import Engine
@testable import EvdevInput
@testable import Inputs

/// `block` and the UI's regions (`filter_regions`) on the live input
/// machine: a pinch no transition claims never reaches the copy as one.
@Suite("Live input machine: blocked gestures and the UI's regions")
struct MachineBlockTests {
    /// Two fingers 10 ms apart in the middle of the panel, spreading apart
    /// 60 units a side every 10 ms for 50 ms, then lifting; from `start` (µs).
    func pinch(start: Int64, trackingIDs: (Int32, Int32) = (7, 8)) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ dt: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: start + dt, type: type, code: code, value: value))
        }
        add(0, 3, EventCode.ABS_MT_SLOT, 0)
        add(0, 3, EventCode.ABS_MT_TRACKING_ID, trackingIDs.0)
        add(0, 3, EventCode.ABS_MT_POSITION_X, 1500)
        add(0, 3, EventCode.ABS_MT_POSITION_Y, 1152)
        add(0, 1, EventCode.BTN_TOUCH, 1)
        add(0, 0, EventCode.SYN_REPORT, 0)
        add(10_000, 3, EventCode.ABS_MT_SLOT, 1)
        add(10_000, 3, EventCode.ABS_MT_TRACKING_ID, trackingIDs.1)
        add(10_000, 3, EventCode.ABS_MT_POSITION_X, 2600)
        add(10_000, 3, EventCode.ABS_MT_POSITION_Y, 1152)
        add(10_000, 0, EventCode.SYN_REPORT, 0)
        for k in 1...5 {
            let t = 10_000 + Int64(k) * 10_000
            add(t, 3, EventCode.ABS_MT_SLOT, 0)
            add(t, 3, EventCode.ABS_MT_POSITION_X, 1500 - Int32(k) * 60)
            add(t, 3, EventCode.ABS_MT_SLOT, 1)
            add(t, 3, EventCode.ABS_MT_POSITION_X, 2600 + Int32(k) * 60)
            add(t, 0, EventCode.SYN_REPORT, 0)
        }
        add(70_000, 3, EventCode.ABS_MT_SLOT, 0)
        add(70_000, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(70_000, 3, EventCode.ABS_MT_SLOT, 1)
        add(70_000, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(70_000, 1, EventCode.BTN_TOUCH, 0)
        add(70_000, 0, EventCode.SYN_REPORT, 0)
        return events
    }

    @Test func aPinchReachesTheCopyAsOneFingerAndIsCountedAndSaid() {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = FilterRules(block: [.pinch])
        s.attach(grabbed: true)
        s.play(pinch(start: 10_000_000))
        s.settle()
        let written = s.written[0, default: []]
        #expect(written.begun.count == 1 && written.ended == 1)
        #expect(!written.contains { $0.code == EventCode.ABS_MT_POSITION_X && $0.value >= 2600 })
        #expect(s.machine.statistics.touchesWithheldForBlock == 1)
        #expect(s.machine.filterStatus()?.block == ["pinch"])
    }

    @Test func theUIsRegionsReplaceTheConfigsAndGoBack() {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = FilterRules(block: [.pinch])
        s.attach(grabbed: true)
        // The map page: pinches pass on the whole screen while it is shown.
        s.run { machine, out in
            machine.setFilterRegions([FilterRegion(x: 0...1, y: 0...1, block: [])], into: &out)
        }
        #expect(s.logged == ["log-debug filter: 1 region in force, the UI's (filter_regions)"])
        // The same again changes nothing, and says nothing.
        s.run { machine, out in
            machine.setFilterRegions([FilterRegion(x: 0...1, y: 0...1, block: [])], into: &out)
        }
        #expect(s.logged == [])
        #expect(s.machine.filterStatus()?.regions.first?.block == [])
        s.play(pinch(start: 10_000_000))
        s.settle()
        #expect(s.written[0, default: []].begun.count == 2, "the pinch went through")
        #expect(s.machine.statistics.touchesWithheldForBlock == 0)
        // Back to the config's: the next pinch is kept from the copy.
        s.run { machine, out in machine.setFilterRegions(nil, into: &out) }
        #expect(s.logged == ["log-debug filter: 0 regions in force, the config's again"])
        #expect(s.machine.filterStatus()?.regions == [])
        s.written = [:]
        s.play(pinch(start: 12_000_000, trackingIDs: (9, 10)))
        s.settle()
        #expect(s.written[0, default: []].begun.count == 1)
        #expect(s.machine.statistics.touchesWithheldForBlock == 1)
    }

    @Test func afterShutdownTheRegionsChangeNothing() {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: true)
        s.run { machine, out in machine.setFilterRegions([FilterRegion(x: 0...1, y: 0...1, block: [])], into: &out) }
        var events: [TransitionEvent] = []
        s.run { machine, out in machine.shutdown(at: 20, events: &events, into: &out) }
        // The owner's going brings the config's back: after the stop, nothing to say.
        s.run { machine, out in machine.setFilterRegions(nil, into: &out) }
        #expect(s.logged == [])
    }

    @Test func outsideFilterModeTheRegionsChangeNothing() {
        var s = MachineScript()
        s.run { machine, out in machine.setFilterRegions([], into: &out) }
        #expect(s.logged == [])
        #expect(s.machine.configRegions == nil)
    }
}
