import Testing
import TestSupport
import Engine
@testable import TouchFilter

@Suite("Palms never reach the copy")
struct PalmTests {
    let on = true, off = false

    /// The test panel with ABS_MT_TOUCH_MAJOR 0…255 (`resolution` units per
    /// mm, 0: none declared) and ABS_MT_TOOL_TYPE 0…2.
    static func panel(resolution: Int32) -> DeviceDescription {
        Panels.tenSlots(extraAbs: [Code.ABS_MT_TOUCH_MAJOR: AbsInfo(minimum: 0, maximum: 255, resolution: resolution),
                                   Code.ABS_MT_TOOL_TYPE: AbsInfo(minimum: 0, maximum: 2)])
    }

    /// A touch going down with its major axis and tool.
    static func down(slot: Int32, id: Int32, x: Int32, y: Int32, major: Int32, tool: Int32 = 0) -> [Ev] {
        Ev.down(slot: slot, id: id, x: x, y: y) + [.major(major), .tool(tool)]
    }

    /// The copy's form of such a touch beginning (axes by code after X and Y).
    static func cloneDown(slot: Int32, id: Int32, x: Int32, y: Int32, major: Int32, tool: Int32 = 0) -> [Ev] {
        [.slot(slot), .id(id), .x(x), .y(y), .major(major), .tool(tool), .pressure(50)]
    }

    func wellFormed(_ h: FilterHarness) -> [String] {
        var v = MultitouchValidator()
        v.read(h.written)
        return v.problems + (v.isIdle ? [] : ["touches left down"])
    }

    @Test(arguments: [FilterRules.none, FilterRules(palmMillimetres: 20)])
    func aPalmByToolTypeNeverAppears(_ rules: FilterRules) {
        var h = FilterHarness(device: Self.panel(resolution: 10), rules: rules)
        #expect(h.frame(1.0, Self.down(slot: 0, id: 10, x: 100, y: 100, major: 30, tool: 2)) == [])
        #expect(h.frame(1.01, [.x(150)]) == [])
        // A finger beside it goes through.
        let finger = h.frame(1.02, Self.down(slot: 1, id: 11, x: 2000, y: 2000, major: 30))
        #expect(finger == frames((1.02, Self.cloneDown(slot: 1, id: 0, x: 2000, y: 2000, major: 30)
                                         + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(2000), .absY(2000)])))
        // The palm lifts its tool type: still not a touch of the copy's.
        #expect(h.frame(1.03, [.slot(0), .tool(0), .x(200)]) == [])
        #expect(h.frame(1.04, [.slot(0), .id(-1)]) == [])
        h.frame(1.05, [.slot(1), .id(-1)])
        #expect(wellFormed(h) == [])
        #expect(!h.written.events.contains(.x(100)) && !h.written.events.contains(.x(200)))
    }

    @Test func aPalmInAStartAreaIsNotHeldButSwallowed() {
        var h = FilterHarness(device: Self.panel(resolution: 10))
        #expect(h.frame(1.0, Self.down(slot: 0, id: 10, x: 5, y: 100, major: 30, tool: 2), [0: .startArea]) == [])
        #expect(h.filter.nextDeadline == nil)
        #expect(h.frame(1.01, [.id(-1)]) == [])
        #expect(h.run(until: 2) == [])
    }

    @Test func aPalmBySizeNeverAppearsWithAResolution() {
        // 10 units per mm: palm_mm 20 is a major axis over 200.
        var h = FilterHarness(device: Self.panel(resolution: 10), rules: FilterRules(palmMillimetres: 20))
        #expect(h.frame(1.0, Self.down(slot: 0, id: 10, x: 100, y: 100, major: 201)) == [])
        #expect(h.frame(1.01, [.x(150), .major(120)]) == [])
        #expect(h.frame(1.02, [.id(-1)]) == [])
        // 20 mm itself is a finger.
        let finger = h.frame(1.1, Self.down(slot: 0, id: 11, x: 300, y: 300, major: 200))
        #expect(finger.events.contains(.id(0)))
        h.frame(1.2, [.id(-1)])
        #expect(wellFormed(h) == [])
    }

    @Test func withoutAResolutionTheSizeRuleDoesNotApply() {
        var h = FilterHarness(device: Self.panel(resolution: 0), rules: FilterRules(palmMillimetres: 20))
        let big = h.frame(1.0, Self.down(slot: 0, id: 10, x: 100, y: 100, major: 255))
        #expect(big == frames((1.0, Self.cloneDown(slot: 0, id: 0, x: 100, y: 100, major: 255)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(100), .absY(100)])))
        // …while MT_TOOL_PALM still does.
        #expect(h.frame(1.01, [.tool(2)]) == frames((1.01, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
    }

    @Test func aPanelWithoutThePalmAxesHasNoPalms() {
        var h = FilterHarness(rules: FilterRules(palmMillimetres: 20))
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100)).events.contains(.id(0)))
    }

    @Test func aTouchThatBecomesAPalmMidTouchEndsCleanly() {
        var h = FilterHarness(device: Self.panel(resolution: 10), rules: FilterRules(palmMillimetres: 20))
        h.frame(1.0, Self.down(slot: 0, id: 10, x: 100, y: 100, major: 50))
        h.frame(1.01, Self.down(slot: 1, id: 11, x: 2000, y: 2000, major: 50))
        // The first finger's contact grows into a palm: it ends on the copy,
        // the second becomes the only touch (and the pointer).
        let grown = h.frame(1.02, [.slot(0), .major(240), .x(110)])
        #expect(grown == frames((1.02, [.slot(0), .id(-1), .key(Code.BTN_TOOL_FINGER, on), .key(Code.BTN_TOOL_DOUBLETAP, off),
                                        .absX(2000), .absY(2000)])))
        // It stays swallowed, also when it shrinks again.
        #expect(h.frame(1.03, [.slot(0), .major(50), .x(120)]) == [])
        #expect(h.frame(1.04, [.slot(1), .x(2010)]) == frames((1.04, [.slot(1), .x(2010), .absX(2010)])))
        #expect(h.frame(1.05, [.slot(0), .id(-1)]) == [])
        // The second, reported as a palm by its tool: the copy's last touch ends.
        let palm = h.frame(1.06, [.slot(1), .tool(2)])
        #expect(palm == frames((1.06, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.frame(1.07, [.slot(1), .id(-1)]) == [])
        #expect(wellFormed(h) == [])
    }

    @Test func aHeldTouchThatBecomesAPalmIsNeverReleased() {
        var h = FilterHarness(device: Self.panel(resolution: 10))
        h.frame(1.0, Self.down(slot: 0, id: 10, x: 5, y: 100, major: 50), [0: .startArea])
        #expect(h.frame(1.02, [.tool(2)], [0: .startArea]) == [])
        #expect(h.run(until: 1.5) == [])
        #expect(h.frame(1.6, [.id(-1)]) == [])
        #expect(h.written.isEmpty)
    }

    @Test func aReleasedTouchWithDelayedFramesThatBecomesAPalmEndsWithoutThem() {
        var h = FilterHarness(device: Self.panel(resolution: 10))
        h.frame(1.0, Self.down(slot: 0, id: 10, x: 5, y: 100, major: 50), [0: .startArea])
        h.frame(1.02, [.x(10)], [0: .startArea])
        // Freed at 1.04: output from then with a lag of 40 ms.
        h.frame(1.04, [.x(20)], [0: .free])
        h.frame(1.05, [.tool(2)], [0: .free])
        h.run(until: 2)
        #expect(!h.written.events.contains(.x(20)))
        #expect(wellFormed(h) == [])
        #expect(h.filter.nextDeadline == nil)
    }

    @Test(arguments: [0.0, -1, Double.nan, Double.infinity])
    func palmMillimetresMustBeAFiniteNumberOverZero(_ mm: Double) {
        #expect(throws: TouchFilterError.self) {
            _ = try TouchFilterMachine(device: Self.panel(resolution: 10), rules: FilterRules(palmMillimetres: mm))
        }
    }
}
