import Foundation
import SystemSupport
import TestSupport
import Testing
import Engine
@testable import EvdevInput
@testable import Inputs

/// The device host on a real event loop, fed by a fake source: smoke tests
/// of the executor (batches in, events out, animation ticks on loop
/// timers, status, commands). The rules themselves are the machine's
/// (`MachineDeviceTests`).
@Suite("DeviceHost")
struct DeviceHostTests {
    @Test func liveEventsGiveWhatTheEngineGives() throws {
        let (description, events) = try liveRecording("back-drag-finish.events")
        let expected = try directRun(description, events)
        let h = HostHarness()
        defer { h.shutdown() }
        // In several reads, handed over at once (the recording's times are
        // past: a later hand-over would come after animation ticks at "now").
        var reports: [InputReport] = [.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false))]
        var rest = events[...]
        while !rest.isEmpty {
            reports.append(.events(Array(rest.prefix(97))))
            rest = rest.dropFirst(97)
        }
        h.source.push(all: reports)
        #expect(h.waitFor { $0.count >= expected.count })
        #expect(h.events == expected)
    }

    /// The server may carry out a command inside `emit` (a client whose
    /// write failed was driving a transition): it gets only its own events,
    /// and nothing the host was doing is done twice.
    @Test func aCommandInsideEmitGetsOnlyItsOwnEvents() throws {
        let (description, events) = try liveRecording("back-drag-finish.events", endingAgo: 0.2)
        let answered = Locked<[TransitionEvent]>([])
        let h = HostHarness { host, events in
            guard events.contains(where: { $0.kind == .began }) else { return }
            var answer: [TransitionEvent] = []
            _ = host.perform(.cancel, transition: 0, into: &answer)
            answered.withLock { $0 += answer }
        }
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)),
                      .events(Array(events.prefix(400))))
        #expect(h.waitFor { $0.contains { $0.kind == .began } })
        #expect(waitUntil(timeout: 5) { !answered.withLock { $0 }.isEmpty })
        let streamed = Set(h.events.map(\.seq))
        #expect(answered.withLock { $0 }.contains { $0.kind == .ended && $0.decision == .cancel })
        #expect(answered.withLock { $0 }.allSatisfy { !streamed.contains($0.seq) })
        #expect(h.logs.all.filter { $0.hasPrefix("info attached ") }.count == 1)
    }

    @Test func statusFollowsTheDevice() throws {
        let h = HostHarness()
        defer { h.shutdown() }
        let told = Locked<[String]>([])
        _ = h.onLoop { [h] in
            h.host.statusChanged = { text in told.withLock { $0.append(text) } }
            return 0
        }
        #expect(h.onLoop { h.host.inputStatus.fields.map(\.value) } == ["waiting", "a touchscreen"])
        h.source.push(.waiting("waiting for a touchscreen (cannot read /dev/input/event2: permission denied)"))
        #expect(h.waitForStatus(["waiting", "a touchscreen (cannot read /dev/input/event2: permission denied)"]))
        let panel = SampleDevices.touchscreen()
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: panel, grabbed: true)))
        #expect(h.waitForStatus(["attached", "/dev/input/event4", "Test Panel"]))
        #expect(h.onLoop { h.host.inputStatus.fields.map(\.key) } == ["input", "device", "device_name"])
        h.source.push(.lost(path: "/dev/input/event4", reason: "the device was removed"), .waiting("waiting for a touchscreen"))
        #expect(h.waitForStatus(["waiting", "a touchscreen"]))
        let lines = h.logs.all
        #expect(lines.contains("info attached /dev/input/event4 \"Test Panel\" (direct touch, multitouch (10 slots), grabbed)"))
        #expect(lines.contains("warning lost /dev/input/event4: the device was removed; 0 transitions cancelled"))
        #expect(lines.contains("info waiting for a touchscreen"))
        #expect(told.withLock { $0 }.suffix(2) == ["waiting for a touchscreen (cannot read /dev/input/event2: permission denied)",
                                                  "waiting for a touchscreen"])
    }

    @Test func commandDrivenTransitionsSurviveALostDevice() throws {
        let h = HostHarness()
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: SampleDevices.touchscreen(), grabbed: false)))
        let outcome = h.onLoop { () -> TransitionEngine.CommandOutcome in
            var events: [TransitionEvent] = []
            return h.host.perform(.drive(progress: 0.3), transition: 0, into: &events)
        }
        #expect(outcome == .done)
        h.source.push(.lost(path: "/dev/input/event4", reason: "the device was removed"))
        #expect(h.waitForStatus(["waiting", "a touchscreen"]))
        #expect(h.onLoop { h.host.snapshot().map(\.phase) } == [.interacting])
    }
}

extension HostHarness {
    /// Waits until the host's input status values are `values`.
    func waitForStatus(_ values: [String], timeout: Double = 5) -> Bool {
        waitUntil(timeout: timeout, pollingEvery: 0.002) { onLoop({ self.host.inputStatus.fields.map(\.value) }) == values }
    }
}
