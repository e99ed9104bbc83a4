import Testing
import TouchFilter
import Engine
@testable import EvdevInput
@testable import Inputs

/// Filter mode's rules, input by input: the touches a transition claims
/// never reach the copy, the others do, a disabled transition's touches go
/// through, a lost panel's touches end; which copy a panel gets.
@Suite("Live input machine: filter mode")
struct MachineFilterTests {
    let copyName = UinputCopy.name(for: "Test Panel")

    @Test func aGrabbedPanelGetsACopyBeforeItsAttachIsDone() {
        var s = MachineScript(filterHold: 0.3)
        s.attach(grabbed: true)
        #expect(s.last == ["create-copy 0 Test Panel",
                           "log-info filter: the touches of /dev/input/event4 that no transition claims go to /dev/input/event90 \"\(copyName)\" (hold 0.3 s)",
                           "log-info attached /dev/input/event4 \"Test Panel\" (direct touch, multitouch (10 slots), grabbed)",
                           "status /dev/input/event4 \"Test Panel\""])
        #expect(s.machine.filterNodes == [0: "/dev/input/event90"])
    }

    @Test func aClaimedEdgeDragNeverReachesTheCopyAndAFreeDragDoes() {
        var s = MachineScript(filterHold: 0.3)
        s.attach(grabbed: true)
        // A left-edge drag: `back` claims it within the hold.
        s.play(drag(x0: 40, x1: 2800, trackingID: 7, end: 10_000_000))
        s.settle()
        #expect(s.events.contains { $0.kind == .finished })
        #expect(s.written[0, default: []].begun.isEmpty)
        // A drag in the middle: nobody's, forwarded live, every frame of it.
        let free = drag(x0: 1500, x1: 2500, trackingID: 8, end: 12_000_000)
        s.play(free)
        s.settle()
        let copy = s.written[0, default: []]
        #expect(copy.begun.count == 1 && copy.ended == 1)
        #expect(copy.first { $0.code == EventCode.ABS_MT_POSITION_X }?.value == 1500)
        #expect(copy.filter { $0.type == 0 }.count == free.filter { $0.type == 0 }.count)
    }

    @Test func aDisabledTransitionsTouchesGoThrough() {
        var s = MachineScript(filterHold: 0.3)
        s.attach(grabbed: true)
        #expect(s.perform(.setEnabled(false), at: 9) == .done)
        s.play(drag(x0: 40, x1: 2800, trackingID: 7, end: 10_000_000))
        s.settle()
        let copy = s.written[0, default: []]
        #expect(copy.begun.count == 1 && copy.ended == 1)
        #expect(copy.first { $0.code == EventCode.ABS_MT_POSITION_X }?.value == 40, "forwarded from its first frame, not held")
        #expect(s.events.isEmpty)
    }

    @Test func aTouchBeginningInAnExclusionRegionIsForwardedAtOnce() {
        // Without a region, a left-edge touch is held: its first frame does not reach the copy.
        var held = MachineScript(filterHold: 0.3)
        held.attach(grabbed: true)
        held.play(Array(drag(x0: 40, x1: 2800, trackingID: 7, end: 10_000_000).prefix(6)))
        #expect(held.written[0, default: []].begun.isEmpty, "held")
        // With the left edge's middle excluded (y 1100 of 2303 is 0.48), the
        // same touch goes to the UI with its first frame, and back never starts.
        var s = MachineScript(filterHold: 0.3)
        s.attach(grabbed: true)
        s.machine.setExclusions([ScreenRect(x0: 0, y0: 0.4, x1: 0.2, y1: 0.6)])
        #expect(!s.machine.engine.mayStartGesture(source: 0, x: 40.0 / 4095, y: 1100.0 / 2303))
        let events = drag(x0: 40, x1: 2800, trackingID: 7, end: 10_000_000)
        s.play(Array(events.prefix(6)))
        #expect(s.written[0, default: []].begun.count == 1, "forwarded at once, no hold")
        #expect(s.written[0, default: []].first { $0.code == EventCode.ABS_MT_POSITION_X }?.value == 40)
        s.play(Array(events.dropFirst(6)))
        s.settle()
        #expect(s.events.isEmpty, "no transition started: \(s.events.map(\.kind))")
        #expect(s.written[0, default: []].ended == 1)
        // Outside the region, the edge still works (and is held, then claimed).
        s.play(drag(x0: 40, x1: 2800, y: 300, trackingID: 8, end: 12_000_000))
        s.settle()
        #expect(s.events.contains { $0.kind == .began })
        #expect(s.written[0, default: []].begun.count == 1, "the claimed touch never reached the copy")
    }

    @Test func aHeldEdgeTouchThatIsNoGestureIsReleasedAfterTheHold() throws {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: true)
        // A tap at the left edge, lifted after 30 ms: held, then released whole.
        s.play(drag(x0: 40, x1: 40, seconds: 0.03, trackingID: 9, end: 10_000_000))
        s.settle()
        let copy = s.written[0, default: []]
        #expect(copy.begun.count == 1 && copy.ended == 1)
        let down = try #require(copy.first { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value >= 0 })
        let up = try #require(copy.first { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value < 0 })
        // The original gap between down and up (40 ms: 3 frames and the lift).
        #expect(abs((up.due - down.due) - 0.04) < 1e-6, "\(up.due - down.due)")
        #expect(s.events.isEmpty)
    }

    @Test func aLostPanelsForwardedTouchEndsOnTheCopy() {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: true)
        let events = drag(x0: 1500, x1: 2500, trackingID: 8, end: 10_000_000)
        s.play(Array(events.dropLast(3).prefix(60)))
        #expect(s.written[0, default: []].begun.count == 1 && s.written[0, default: []].ended == 0)
        s.lose(at: 10)
        #expect(s.last.first?.hasPrefix("write 0 ×") == true)
        #expect(s.written[0, default: []].ended == 1)
        #expect(s.written[0, default: []].last?.code == EventCode.SYN_REPORT)
    }

    @Test func aPanelNotGrabbedGetsNoCopy() {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: false)
        #expect(s.last == ["log-warning filter: /dev/input/event4 \"Test Panel\" is not grabbed: the UI reads it directly, gestures and all; no copy",
                           "log-info attached /dev/input/event4 \"Test Panel\" (direct touch, multitouch (10 slots))",
                           "status /dev/input/event4 \"Test Panel\""])
    }

    @Test func aPanelThatComesBackKeepsItsCopyAndAnotherGetsItsOwn() throws {
        var s = MachineScript(filterHold: 0.08)
        let portA = "/dev/input/by-path/pci-0000:00:14.0-usb-0:1:1.0-event"
        let portB = "/dev/input/by-path/pci-0000:00:14.0-usb-0:2:1.0-event"
        s.attach("/dev/input/event4", grabbed: true, source: 0, aliases: [portA])
        #expect(s.last.first == "create-copy 0 Test Panel")
        // A's panel goes; B (alike, another port) comes as source 0, A comes back as source 1.
        s.lose(source: 0, at: 1)
        s.attach("/dev/input/event5", grabbed: true, source: 0, aliases: [portB])
        #expect(s.last.first == "create-copy 1 Test Panel")
        s.attach("/dev/input/event6", grabbed: true, source: 1, aliases: [portA])
        #expect(!s.last.contains { $0.hasPrefix("create-copy") })
        #expect(s.machine.filterNodes == [0: "/dev/input/event91", 1: "/dev/input/event90"])
        // A's touches go to A's first copy, B's copy gets none.
        s.play(drag(x0: 1500, x1: 2500, trackingID: 8, end: 10_000_000), source: 1)
        #expect(s.written[0, default: []].ended == 1)
        #expect(s.written[1] == nil)
    }

    @Test func aCopyAtThePortOfAnotherKindOfPanelGoes() {
        var s = MachineScript(filterHold: 0.08)
        let port = "/dev/input/by-path/pci-0000:00:14.0-usb-0:1:1.0-event"
        s.attach("/dev/input/event4", grabbed: true, aliases: [port])
        s.lose(at: 1)
        s.attach("/dev/input/event4", SampleDevices.touchscreen(slots: 5), grabbed: true, aliases: [port])
        #expect(s.last.prefix(2) == ["remove-copy 0", "create-copy 1 Test Panel"])
    }

    @Test func aCopyThatCannotBeMadeLeavesThePanelUnfiltered() {
        var s = MachineScript(filterHold: 0.08)
        s.copiesFail = true
        s.attach(grabbed: true)
        #expect(s.last == ["create-copy 0 Test Panel",
                           "log-error filter: cannot make a copy of /dev/input/event4 \"Test Panel\": no uinput; the UI gets none of its touches",
                           "log-info attached /dev/input/event4 \"Test Panel\" (direct touch, multitouch (10 slots), grabbed)",
                           "status /dev/input/event4 \"Test Panel\""])
        s.play(drag(x0: 1500, x1: 2500, trackingID: 8, end: 10_000_000))
        #expect(s.written.isEmpty && s.machine.filterNodes.isEmpty)
    }

    @Test func theFirstRefusedWriteOfAPanelIsLogged() {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: true)
        s.run { $0.writeFailed(0, node: "/dev/input/event90", into: &$1) }
        #expect(s.last == ["log-warning filter: a write to /dev/input/event90 failed; the UI may miss touches"])
        s.run { $0.writeFailed(0, node: "/dev/input/event90", into: &$1) }
        #expect(s.last.isEmpty)
        // The panel comes back: its next refusal is news again.
        s.lose(at: 1)
        s.attach(grabbed: true)
        s.run { $0.writeFailed(0, node: nil, into: &$1) }
        #expect(s.last == ["log-warning filter: a write to the copy failed; the UI may miss touches"])
    }

    @Test func shutdownEndsTheUIsTouchesThenRemovesTheCopies() {
        var s = MachineScript(filterHold: 0.08)
        s.attach(grabbed: true)
        s.play(Array(drag(x0: 1500, x1: 2500, trackingID: 8, end: 10_000_000).prefix(60)))
        var ends: [TransitionEvent] = []
        s.run { $0.shutdown(at: 10, events: &ends, into: &$1) }
        #expect(s.last.count == 4)
        #expect(s.last.prefix(2) == ["no tick", "stop-input"] && s.last[2].hasPrefix("write 0 ×") && s.last[3] == "remove-copy 0")
        #expect(s.written[0, default: []].ended == 1)
    }

    @Test func aCopyNobodyAskedForIsABug() {
        var s = MachineScript(filterHold: 0.08)
        s.run { $0.copyCreated(7, node: nil, into: &$1) }
        #expect(s.last == ["log-error BUG: live input: copy 7 made, not asked for; ignored"])
        s.run { $0.copyFailed(7, error: "no", into: &$1) }
        #expect(s.last == ["log-error BUG: live input: copy 7 failed for no panel; ignored"])
    }
}
