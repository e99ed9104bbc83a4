import Testing
import TouchFilter
import Engine
@testable import EvdevInput
@testable import Inputs

/// The `[filter]` rules reach each panel's filter and its copy.
@Suite("Live input machine: filter rules")
struct MachineFilterRulesTests {
    let copyName = UinputCopy.name(for: "Test Panel")
    let rules = FilterRules(maxContacts: 1, transform: true)

    /// Two fingers in the middle of the panel, 10 ms apart, from `start` (µs).
    func twoFingers(start: Int64) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ dt: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: start + dt, type: type, code: code, value: value))
        }
        add(0, 3, EventCode.ABS_MT_SLOT, 0)
        add(0, 3, EventCode.ABS_MT_TRACKING_ID, 7)
        add(0, 3, EventCode.ABS_MT_POSITION_X, 2048)
        add(0, 3, EventCode.ABS_MT_POSITION_Y, 1152)
        add(0, 1, EventCode.BTN_TOUCH, 1)
        add(0, 0, EventCode.SYN_REPORT, 0)
        add(10_000, 3, EventCode.ABS_MT_SLOT, 1)
        add(10_000, 3, EventCode.ABS_MT_TRACKING_ID, 8)
        add(10_000, 3, EventCode.ABS_MT_POSITION_X, 2500)
        add(10_000, 3, EventCode.ABS_MT_POSITION_Y, 1500)
        add(10_000, 0, EventCode.SYN_REPORT, 0)
        add(20_000, 3, EventCode.ABS_MT_SLOT, 0)
        add(20_000, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(20_000, 0, EventCode.SYN_REPORT, 0)
        add(30_000, 3, EventCode.ABS_MT_SLOT, 1)
        add(30_000, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(30_000, 1, EventCode.BTN_TOUCH, 0)
        add(30_000, 0, EventCode.SYN_REPORT, 0)
        return events
    }

    @Test func theRulesAndThePanelsGeometryReachItsFilterAndItsCopy() throws {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = rules
        s.attach(grabbed: true, geometry: ScreenGeometry(rotation: .quarter))
        #expect(s.last.prefix(2) == [
            "create-copy 0 Test Panel",
            "log-info filter: the touches of /dev/input/event4 that no transition claims go to /dev/input/event90 \"\(copyName)\" (hold 0.08 s; max_contacts 1, transform)",
        ])
        #expect(s.machine.filters[0]?.filter.rules == rules)
        // The copy is made with the screen's axes: X 0…2303, Y 0…4095.
        let panel = SampleDevices.touchscreen()
        let copy = try #require(s.created[0])
        #expect(copy.absInfo[EventCode.ABS_MT_POSITION_X] == panel.absInfo[EventCode.ABS_MT_POSITION_Y])
        #expect(copy.absInfo[EventCode.ABS_MT_POSITION_Y] == panel.absInfo[EventCode.ABS_MT_POSITION_X])
        #expect(copy.absInfo[EventCode.ABS_X] == panel.absInfo[EventCode.ABS_Y])

        s.play(twoFingers(start: 10_000_000))
        s.settle()
        let written = s.written[0, default: []]
        // One touch, not the second; its position is the screen's: at 90°,
        // panel (2048, 1152) is (1 − 1152/2303, 2048/4095) of the screen.
        #expect(written.begun.count == 1 && written.ended == 1)
        #expect(written.first { $0.code == EventCode.ABS_MT_POSITION_X }?.value == 1151)
        #expect(written.first { $0.code == EventCode.ABS_MT_POSITION_Y }?.value == 2048)
        #expect(!written.contains { $0.code == EventCode.ABS_MT_POSITION_X && $0.value == 2500 })
    }

    @Test func withoutRulesTheFilterAndCopyAreAsBefore() {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: true, geometry: ScreenGeometry(rotation: .quarter))
        #expect(s.machine.filters[0]?.filter.rules == FilterRules.none)
        #expect(s.created[0] == SampleDevices.touchscreen())
        s.play(twoFingers(start: 10_000_000))
        s.settle()
        let written = s.written[0, default: []]
        #expect(written.begun.count == 2 && written.ended == 2)
        #expect(written.first { $0.code == EventCode.ABS_MT_POSITION_X }?.value == 2048)
    }

    @Test func aPanelBackWithAnotherGeometryGetsACopyOfItsOwnShape() {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = rules
        let port = "/dev/input/by-path/pci-0000:00:14.0-usb-0:1:1.0-event"
        s.attach("/dev/input/event4", grabbed: true, aliases: [port], geometry: ScreenGeometry(rotation: .quarter))
        s.lose(at: 1)
        // Back at the same port with the same geometry: its copy.
        s.attach("/dev/input/event4", grabbed: true, aliases: [port], geometry: ScreenGeometry(rotation: .quarter))
        #expect(!s.last.contains { $0.hasPrefix("create-copy") })
        s.lose(at: 2)
        // Mounted upright now: the copy's axes differ, so a new copy.
        s.attach("/dev/input/event4", grabbed: true, aliases: [port], geometry: .identity)
        #expect(s.last.prefix(2) == ["remove-copy 0", "create-copy 1 Test Panel"])
        #expect(s.created[1] == SampleDevices.touchscreen())
    }
}
