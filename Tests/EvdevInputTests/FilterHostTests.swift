import Foundation
import SystemSupport
import Testing
import TestSupport
import TouchFilter
import Engine
import ServerPorts
import WireProtocol
@testable import EvdevInput
@testable import Inputs

/// Filter mode in the device host, with the copy's writes captured: smoke
/// tests of the executor's part (a copy made, written, refusing writes).
/// The rules themselves are the machine's (`MachineFilterTests`).
@Suite("DeviceHost in filter mode")
struct FilterHostTests {
    /// A copy that keeps what was written to it.
    final class CapturedCopy: FilterOutputDevice, @unchecked Sendable {
        let written = Locked<[TouchFilterMachine.Output]>([])
        /// Whether it refuses every write (after keeping it).
        let refuses: Bool
        init(refuses: Bool = false) { self.refuses = refuses }
        var node: String? { "/dev/input/event99" }
        func write(_ events: ArraySlice<TouchFilterMachine.Output>) -> Bool {
            written.withLock { $0.append(contentsOf: events) }
            return !refuses
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

    func harness(hold: Double, refuses: Bool = false) -> (HostHarness, CapturedCopy) {
        let copy = CapturedCopy(refuses: refuses)
        let h = HostHarness()
        _ = h.onLoop { [h] in
            h.host.filterHold = hold
            h.host.makeFilterOutput = { _ in copy }
            return 0
        }
        return (h, copy)
    }

    /// A drag (`drag`) lifted `endingAgo` seconds before now.
    func drag(x0: Int32, x1: Int32, trackingID: Int32, endingAgo: Double) -> [InputEvent] {
        EvdevInputTests.drag(x0: x0, x1: x1, trackingID: trackingID, end: Int64((MonotonicClock.seconds - endingAgo) * 1e6))
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

    /// The server reads the filter's status through `EngineHost` (not the
    /// protocol's default, nil): filter mode's rules; nil in other modes.
    @Test func theHostGivesTheServerItsFiltersStatus() throws {
        let (h, _) = harness(hold: 0.08)
        defer { h.shutdown() }
        let status = h.onLoop { [h] () -> FilterStatus? in
            h.host.filterRules = FilterRules(maxContacts: 1, palmMillimetres: 30)
            return (h.host as any EngineHost).filterStatus
        }
        #expect(status == FilterStatus(hold: 0.08, maxContacts: 1, palmMillimetres: 30))
        let direct = HostHarness()
        defer { direct.shutdown() }
        let none = direct.onLoop { [direct] () -> FilterStatus? in (direct.host as any EngineHost).filterStatus }
        #expect(none == nil)
    }

    @Test func aRefusedWriteIsLoggedOnce() throws {
        let (h, copy) = harness(hold: 0.08, refuses: true)
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: true)))
        h.source.push(.events(drag(x0: 1500, x1: 2500, trackingID: 8, endingAgo: 0.05)))
        #expect(waitUntil(timeout: 5) { copy.ended == 1 })
        #expect(h.onLoop { h.host.counters.frames } > 1)
        let warnings = h.logs.all.filter { $0.contains("failed; the UI may miss touches") }
        #expect(warnings == ["warning filter: a write to /dev/input/event99 failed; the UI may miss touches"])
    }
}
