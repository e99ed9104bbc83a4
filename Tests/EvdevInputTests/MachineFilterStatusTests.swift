import Testing
import TouchFilter
import Engine
import WireProtocol
@testable import EvdevInput
@testable import Inputs

/// Filter mode's status for `hello` and `state` (`filterStatus`), and the
/// touches the filter withholds, counted.
@Suite("Live input machine: the filter's status and its withheld touches")
struct MachineFilterStatusTests {
    let rules = FilterRules(maxContacts: 1, block: [.pinch], ghostTouches: .quarantine, stuckAfter: 600, palmMillimetres: 30,
                            transform: true, regions: [FilterRegion(x: 0...0.5, y: 0.5...1, maxContacts: 2),
                                                       FilterRegion(x: 0.5...1, y: 0...0.25, block: [])])

    @Test func theStatusCarriesTheRulesAndAConfirmedGhostPattern() throws {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = rules
        s.attach(grabbed: true)
        let before = try #require(s.machine.filterStatus())
        #expect(before == FilterStatus(hold: 0.08, maxContacts: 1, block: ["pinch"],
                                       regions: [FilterStatus.Region(x0: 0, x1: 0.5, y0: 0.5, y1: 1, maxContacts: 2),
                                                 FilterStatus.Region(x0: 0.5, x1: 1, y0: 0, y1: 0.25, block: [])],
                                       ghostTouches: "quarantine", stuckAfter: 600, palmMillimetres: 30, transform: true))
        // Three still taps 12.9 s apart at (2048, 1152): (128, 72) mm of the test panel.
        var input: [InputEvent] = []
        for k in 0..<3 { input += MachineGhostTests().tap(at: 1 + Double(k) * 12.9, id: Int32(k + 1), x: 2048, y: 1152) }
        s.play(Array(input.dropLast(9)))
        s.settle()
        #expect(s.machine.filterStatus()?.ghostPatterns == [], "two taps confirm nothing")
        s.play(Array(input.suffix(9)))
        s.settle()
        let patterns = try #require(s.machine.filterStatus()?.ghostPatterns)
        #expect(patterns.count == 1)
        let pattern = try #require(patterns.first)
        #expect(pattern.device == nil, "one panel: no device named")
        #expect(abs(pattern.period - 12.9) < 1e-6 && pattern.xMillimetres == 128 && pattern.yMillimetres == 72)
        #expect(pattern.taps == 3)
        // The rest is as before; and the pattern lapses three periods after its last tap.
        #expect(s.machine.filterStatus()?.maxContacts == 1 && s.machine.filterStatus()?.regions == before.regions)
        #expect(s.machine.filterStatus(at: 1 + 2 * 12.9 + 3 * 12.9 + 1)?.ghostPatterns == [])
    }

    @Test func withSeveralPanelsAPatternNamesItsPanel() throws {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.selectsSeveral = true
        s.machine.settings.filterRules = FilterRules(ghostTouches: .quarantine)
        s.attach("/dev/input/event4", grabbed: true, source: 0)
        s.attach("/dev/input/event5", grabbed: true, source: 1)
        var input: [InputEvent] = []
        for k in 0..<3 { input += MachineGhostTests().tap(at: 1 + Double(k) * 7.3, id: Int32(k + 1), x: 1000, y: 1000) }
        s.play(input, source: 1)
        s.settle()
        let status = try #require(s.machine.filterStatus())
        #expect(status.ghostPatterns.map(\.device) == ["/dev/input/event5"])
        #expect(status.maxContacts == nil && status.regions == [] && status.stuckAfter == nil && status.palmMillimetres == nil
                && !status.transform && status.ghostTouches == "quarantine")
    }

    @Test func outsideFilterModeThereIsNoStatus() {
        var s = MachineScript()
        s.machine.settings.filterRules = rules
        s.attach()
        #expect(s.machine.filterStatus() == nil)
    }

    @Test func aTouchWithheldForMaxContactsIsCounted() {
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = FilterRules(maxContacts: 1)
        s.attach(grabbed: true)
        s.play(MachineFilterRulesTests().twoFingers(start: 10_000_000))
        s.settle()
        #expect(s.written[0, default: []].begun.count == 1)
        #expect(s.machine.counters.touchesWithheldForMaxContacts == 1)
        s.play(MachineFilterRulesTests().twoFingers(start: 11_000_000))
        s.settle()
        #expect(s.machine.counters.touchesWithheldForMaxContacts == 2)
        #expect(s.machine.statistics.touchesWithheldForMaxContacts == 2)
        #expect(s.machine.statistics.palmsWithheld == 0)
    }

    @Test func aPalmIsCountedAndTwoFingersWithoutALimitAreNot() {
        var panel = SampleDevices.touchscreen()
        panel.absInfo[EventCode.ABS_MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: 255, resolution: 4)
        var s = MachineScript(filterHold: 0.08)
        s.machine.settings.filterRules = FilterRules(palmMillimetres: 30)
        s.attach("/dev/input/event4", panel, grabbed: true)
        s.play(MachineFilterRulesTests().twoFingers(start: 10_000_000))
        s.settle()
        #expect(s.machine.counters.touchesWithheldForMaxContacts == 0 && s.machine.counters.palmsWithheld == 0)
        // A big contact in the middle (a major axis of 200: 50 mm).
        var input = Array(drag(x0: 1500, x1: 2500, seconds: 0.3, end: 11_000_000))
        input.insert(InputEvent(time: input[0].time, type: 3, code: EventCode.ABS_MT_TOUCH_MAJOR, value: 200), at: 2)
        s.play(input)
        s.settle()
        #expect(s.machine.counters.palmsWithheld == 1)
        #expect(s.machine.statistics.palmsWithheld == 1)
        #expect(!s.written[0, default: []].contains { $0.code == EventCode.ABS_MT_POSITION_X && $0.value == 1500 })
    }
}
