import Testing
import Engine
@testable import EvdevInput
@testable import Inputs

@Suite("Live input: each panel's health (report rate while touched, degraded once)")
struct MachineHealthTests {
    /// One finger down at `start` (µs) moving every `1 / rate` s for `frames` frames, then lifted.
    static func stroke(start: Int64, rate: Double, frames: Int, trackingID: Int32 = 7) -> [InputEvent] {
        var events: [InputEvent] = []
        func add(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: t, type: type, code: code, value: value))
        }
        var t = start
        for k in 0..<frames {
            t = start + Int64((Double(k) / rate * 1e6).rounded())
            if k == 0 {
                add(t, 3, EventCode.ABS_MT_SLOT, 0)
                add(t, 3, EventCode.ABS_MT_TRACKING_ID, trackingID)
                add(t, 1, EventCode.BTN_TOUCH, 1)
            }
            add(t, 3, EventCode.ABS_MT_POSITION_X, 300 + Int32(k % 500))
            add(t, 3, EventCode.ABS_MT_POSITION_Y, 600)
            add(t, 0, EventCode.SYN_REPORT, 0)
        }
        add(t + 5_000, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(t + 5_000, 1, EventCode.BTN_TOUCH, 0)
        add(t + 5_000, 0, EventCode.SYN_REPORT, 0)
        return events
    }

    @Test func aPanelAt25HzIsLoggedDegradedOnceAndTheStatusSaysSo() {
        var s = MachineScript()
        s.attach()
        // 120 Hz: healthy, nothing logged about it.
        s.play(Self.stroke(start: 1_000_000, rate: 120, frames: 240))
        var status = s.machine.panelStatus
        #expect(status.count == 1)
        #expect(status.first?.path == "/dev/input/event4")
        #expect(status.first?.degraded == false)
        #expect(abs((status.first?.reportRate ?? 0) - 120) < 1)
        #expect(!s.log.contains { $0.contains("degraded") })

        // 25 Hz, in several strokes: degraded, said once.
        for k in 0..<4 {
            s.play(Self.stroke(start: 10_000_000 + Int64(k) * 5_000_000, rate: 25, frames: 60, trackingID: 8 + Int32(k)))
        }
        let said = s.log.filter { $0.contains("degraded") }
        #expect(said.count == 1)
        #expect(said.first?.hasPrefix("log-notice /dev/input/event4 reports at") == true)
        #expect(said.first?.contains("below min_report_rate 50.0 Hz") == true)
        status = s.machine.panelStatus
        #expect(status.first?.degraded == true)
        #expect(abs((status.first?.reportRate ?? 0) - 25) < 0.5)
        #expect(abs((status.first?.reportRateP5 ?? 0) - 25) < 0.5)
        #expect(s.machine.statistics.panels == status)

        // Back at 120 Hz: recovered, said once.
        s.play(Self.stroke(start: 40_000_000, rate: 120, frames: 240, trackingID: 20))
        #expect(s.log.filter { $0.contains("no longer degraded") }.count == 1)
        #expect(s.machine.panelStatus.first?.degraded == false)
    }

    @Test func resyncsAreCountedPerPanelAndALostPanelIsForgotten() {
        var s = MachineScript()
        s.attach()
        s.attach("/dev/input/event5", source: 1)
        s.batch([InputEvent(time: 1_000_000, type: 0, code: EventCode.SYN_DROPPED, value: 0),
                 InputEvent(time: 1_000_100, type: 0, code: EventCode.SYN_REPORT, value: 0)], source: 1)
        #expect(s.machine.panelStatus.map(\.resyncs) == [0, 1])
        #expect(s.machine.panelStatus.map(\.path) == ["/dev/input/event4", "/dev/input/event5"])
        s.lose("/dev/input/event5", source: 1, at: 2)
        #expect(s.machine.panelStatus.map(\.source) == [0])
    }

    @Test func theLimitIsTheSettings() {
        var s = MachineScript()
        s.machine.settings.health.minReportRate = 20
        s.attach()
        for k in 0..<4 {
            s.play(Self.stroke(start: 1_000_000 + Int64(k) * 5_000_000, rate: 25, frames: 60, trackingID: 8 + Int32(k)))
        }
        #expect(s.machine.panelStatus.first?.degraded == false)
        #expect(!s.log.contains { $0.contains("degraded") })
    }
}
