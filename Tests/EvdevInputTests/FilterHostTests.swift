import Foundation
import Clocks
import SystemSupport
import Testing
import TestSupport
import TouchFilter
import TransitionEngine
@testable import EvdevInput
@testable import LiveInput

/// Filter mode in the device host, with the copy's writes captured: the
/// touches a transition claims never reach the copy, the others do, a
/// disabled transition's touches go through, a lost panel's touches end.
@Suite("DeviceHost in filter mode")
struct FilterHostTests {
    /// A copy that keeps what was written to it.
    final class CapturedCopy: FilterOutputDevice, @unchecked Sendable {
        let written = Locked<[TouchFilter.Output]>([])
        var node: String? { "/dev/input/event99" }
        func write(_ events: ArraySlice<TouchFilter.Output>) -> Bool {
            written.withLock { $0.append(contentsOf: events) }
            return true
        }
        func remove() {}
        /// Tracking ids begun on the copy.
        var begun: [Int32] {
            written.withLock { $0.filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value) }
        }
        var ended: Int {
            written.withLock { $0.filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value < 0 }.count }
        }
        /// The first x written to the copy.
        var firstX: Int32? {
            written.withLock { $0.first { $0.code == EventCode.ABS_MT_POSITION_X }?.value }
        }
    }

    func harness(hold: Double) -> (HostHarness, CapturedCopy) {
        let copy = CapturedCopy()
        let h = HostHarness()
        _ = h.onLoop { [h] in
            h.host.filterHold = hold
            h.host.makeFilterOutput = { _ in copy }
            return 0
        }
        return (h, copy)
    }

    /// One finger from (x0, y) to (x1, y) over `seconds`, at 100 Hz, ending `endingAgo` before now.
    func drag(x0: Int32, x1: Int32, y: Int32 = 1100, seconds: Double = 0.4, trackingID: Int32 = 7,
              endingAgo: Double = 0.05) -> [InputEvent] {
        let n = Int(seconds * 100)
        let end = Int64((MonotonicClock.seconds - endingAgo) * 1e6)
        let start = end - Int64(seconds * 1e6)
        var events: [InputEvent] = []
        func add(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: t, type: type, code: code, value: value))
        }
        for k in 0...n {
            let t = start + Int64(k) * 10_000
            if k == 0 {
                add(t, 3, EventCode.ABS_MT_SLOT, 0)
                add(t, 3, EventCode.ABS_MT_TRACKING_ID, trackingID)
                add(t, 1, EventCode.BTN_TOUCH, 1)
            }
            add(t, 3, EventCode.ABS_MT_POSITION_X, x0 + Int32(Double(x1 - x0) * Double(k) / Double(n)))
            add(t, 3, EventCode.ABS_MT_POSITION_Y, y)
            add(t, 0, EventCode.SYN_REPORT, 0)
        }
        let t = end + 10_000
        add(t, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(t, 1, EventCode.BTN_TOUCH, 0)
        add(t, 0, EventCode.SYN_REPORT, 0)
        return events
    }

    @Test func aClaimedEdgeDragNeverReachesTheCopyAndAFreeDragDoes() throws {
        let (h, copy) = harness(hold: 0.3)
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: true)))
        // A left-edge drag: `back` claims it within the hold.
        h.source.push(.events(drag(x0: 40, x1: 2800, trackingID: 7, endingAgo: 1.0)))
        #expect(h.waitFor { $0.contains { $0.kind == .finished } })
        #expect(copy.begun.isEmpty, "the claimed drag reached the copy: \(copy.begun)")
        // A drag in the middle: nobody's, forwarded live.
        let free = drag(x0: 1500, x1: 2500, trackingID: 8, endingAgo: 0.05)
        h.source.push(.events(free))
        #expect(waitUntil(timeout: 5) { copy.ended == 1 })
        #expect(copy.begun.count == 1)
        #expect(copy.firstX == 1500)
        // Live: every frame of it went to the copy (each moved; the last lifts).
        let sourceFrames = free.filter { $0.type == 0 }.count
        let copyFrames = copy.written.withLock { $0.filter { $0.type == 0 }.count }
        #expect(copyFrames == sourceFrames, "\(copyFrames) frames on the copy for \(sourceFrames) of the panel")
        #expect(h.logs.all.contains { $0.contains("filter: the touches of /dev/input/event4 that no transition claims go to /dev/input/event99") })
    }

    @Test func aDisabledTransitionsTouchesGoThrough() throws {
        let (h, copy) = harness(hold: 0.3)
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: true)))
        _ = h.onLoop { [h] in
            var none: [TransitionEvent] = []
            return h.host.perform(.setEnabled(false), transition: 0, into: &none) == .done
        }
        h.source.push(.events(drag(x0: 40, x1: 2800, trackingID: 7, endingAgo: 0.05)))
        #expect(waitUntil(timeout: 5) { copy.ended == 1 })
        #expect(copy.begun.count == 1)
        #expect(copy.firstX == 40, "forwarded from its first frame, not held")
        #expect(h.events.isEmpty)
    }

    @Test func aHeldEdgeTouchThatIsNoGestureIsReleasedAfterTheHold() throws {
        let (h, copy) = harness(hold: 0.08)
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: true)))
        // A tap at the left edge, lifted after 30 ms: held, then released whole.
        let events = drag(x0: 40, x1: 40, seconds: 0.03, trackingID: 9, endingAgo: 0.0)
        h.source.push(.events(events))
        #expect(waitUntil(timeout: 5) { copy.ended == 1 })
        #expect(copy.begun.count == 1)
        let written = copy.written.withLock { $0 }
        let down = try #require(written.first { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value >= 0 })
        let up = try #require(written.first { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value < 0 })
        // The original gap between down and up (40 ms: 3 frames and the lift).
        #expect(abs((up.due - down.due) - 0.04) < 1e-6, "\(up.due - down.due)")
        #expect(h.events.isEmpty)
    }

    @Test func aLostPanelsForwardedTouchEndsOnTheCopy() throws {
        let (h, copy) = harness(hold: 0.08)
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: true)))
        let events = drag(x0: 1500, x1: 2500, trackingID: 8, endingAgo: 0.05)
        h.source.push(.events(Array(events.dropLast(3).prefix(60))))
        #expect(waitUntil(timeout: 5) { copy.begun.count == 1 })
        #expect(copy.ended == 0)
        h.source.push(.lost(path: "/dev/input/event4", reason: "the device was removed"))
        #expect(waitUntil(timeout: 5) { copy.ended == 1 })
        let last = copy.written.withLock { $0.suffix(3).map(\.code) }
        #expect(last.last == EventCode.SYN_REPORT)
    }

    @Test func aPanelNotGrabbedGetsNoCopy() throws {
        let made = Locked(0)
        let h = HostHarness()
        defer { h.shutdown() }
        _ = h.onLoop { [h] in
            h.host.filterHold = 0.08
            h.host.makeFilterOutput = { _ in made.withLock { $0 += 1 }; return CapturedCopy() }
            return 0
        }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: false)))
        #expect(h.waitForStatus(["attached", "/dev/input/event4", "Test Panel"]))
        #expect(made.withLock { $0 } == 0)
        #expect(h.logs.all.contains { $0.contains("is not grabbed: the UI reads it directly") })
    }

    @Test func aPanelThatComesBackKeepsItsCopyAndAnotherGetsItsOwn() throws {
        let made = Locked<[CapturedCopy]>([])
        let h = HostHarness()
        defer { h.shutdown() }
        _ = h.onLoop { [h] in
            h.host.filterHold = 0.08
            h.host.makeFilterOutput = { _ in
                let copy = CapturedCopy()
                made.withLock { $0.append(copy) }
                return copy
            }
            return 0
        }
        let panel = SampleDevices.touchscreen()
        let portA = "/dev/input/by-path/pci-0000:00:14.0-usb-0:1:1.0-event"
        let portB = "/dev/input/by-path/pci-0000:00:14.0-usb-0:2:1.0-event"
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: panel, grabbed: true, source: 0, aliases: [portA])))
        #expect(waitUntil(timeout: 5) { made.withLock { $0.count } == 1 })
        // A's panel goes; B (alike, another port) comes as source 0, A comes back as source 1.
        h.source.push(.lost(path: "/dev/input/event4", reason: "the device was removed", source: 0))
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event5", description: panel, grabbed: true, source: 0, aliases: [portB])),
                      .attached(AttachedDevice(path: "/dev/input/event6", description: panel, grabbed: true, source: 1, aliases: [portA])))
        #expect(h.waitForStatus(["attached", "/dev/input/event5", "Test Panel"]))
        #expect(waitUntil(timeout: 5) { made.withLock { $0.count } == 2 })
        // A's touches go to A's first copy, B's to the new one.
        let (_, events) = try liveRecording("back-drag-finish.events", endingAgo: 0.2)
        let middle = events.map { e -> InputEvent in
            var e = e
            if e.code == EventCode.ABS_MT_POSITION_X { e.value = 2000 + e.value / 4 }
            return e
        }
        h.source.push(.events(middle, source: 1))
        let copies = made.withLock { $0 }
        #expect(waitUntil(timeout: 5) { copies[0].ended == 1 })
        #expect(copies[1].begun.isEmpty)
    }

    @Test func millimetresFromAReloadAreResolvedForTheAttachedPanel() throws {
        let h = HostHarness()
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: false)))
        #expect(h.waitForStatus(["attached", "/dev/input/event4", "Test Panel"]))
        var spec = EngineConfiguration.standard
        spec.transitions[0].physical = PhysicalLengths(edgeMarginMM: 8)
        let reloaded = spec
        let margin = h.onLoop { [h] () -> Double in
            _ = h.host.reload(reloaded)
            guard case .edgePan(_, _, let margin, _) = h.host.configuration.transitions[0].gesture else { return -1 }
            return margin
        }
        // 8 mm of a 4096-unit axis at 16 units/mm.
        #expect(abs(margin - 8.0 / (4095.0 / 16.0)) < 1e-3, "\(margin)")
    }
}
