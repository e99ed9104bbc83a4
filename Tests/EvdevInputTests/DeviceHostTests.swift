import Foundation
import TestSupport
import Testing
import TransitionConfig
import TransitionEngine
@testable import EvdevInput
@testable import LiveInput

/// The device host on a real event loop, fed by a fake source: frames,
/// resyncs, losses, the input status, animation ticks on loop timers.
@Suite("DeviceHost")
struct DeviceHostTests {
    @Test(arguments: ["back-drag-finish.events", "back-flick-back-cancel.events", "swipe-up-3-fingers.events"])
    func liveEventsGiveWhatTheEngineGives(name: String) throws {
        let (description, events) = try liveRecording(name)
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

    @Test func statusFollowsTheDevice() throws {
        let h = HostHarness()
        defer { h.shutdown() }
        #expect(h.onLoop { h.host.inputStatus.map(\.value) } == ["waiting", "a touchscreen"])
        h.source.push(.waiting("waiting for a touchscreen (cannot read /dev/input/event2: permission denied)"))
        #expect(h.waitForStatus(["waiting", "a touchscreen (cannot read /dev/input/event2: permission denied)"]))
        let panel = SampleDevices.touchscreen()
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: panel, grabbed: true)))
        #expect(h.waitForStatus(["attached", "/dev/input/event4", "Test Panel"]))
        #expect(h.onLoop { h.host.inputStatus.map(\.key) } == ["input", "device", "device_name"])
        h.source.push(.lost(path: "/dev/input/event4", reason: "the device was removed"), .waiting("waiting for a touchscreen"))
        #expect(h.waitForStatus(["waiting", "a touchscreen"]))
        let lines = h.logs.all
        #expect(lines.contains("info attached /dev/input/event4 \"Test Panel\" (direct touch, multitouch (10 slots), grabbed)"))
        #expect(lines.contains("warning lost /dev/input/event4: the device was removed; 0 transitions cancelled"))
        #expect(lines.contains("info waiting for a touchscreen"))
    }

    @Test func lostDeviceCancelsTheGestureAndAnimatesBack() throws {
        let (description, events) = try liveRecording("back-drag-finish.events", endingAgo: 0.2)
        let h = HostHarness()
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)))
        h.source.push(.events(Array(events.prefix(400))))
        #expect(h.waitFor { $0.contains { $0.kind == .began } })
        h.source.push(.lost(path: "/dev/input/event4", reason: "the device was removed"))
        #expect(h.waitFor { $0.last?.kind == .cancelled })
        let kinds = h.events.map(\.kind)
        let ended = try #require(h.events.first { $0.kind == .ended })
        #expect(ended.decision == .cancel && ended.reason == .deviceLost)
        #expect(kinds.filter { $0 == .animating }.count > 1)
        #expect(h.events.last?.progress == 0)
        #expect(h.logs.all.contains("warning lost /dev/input/event4: the device was removed; 1 transition cancelled"))
        // The next device works.
        let (_, again) = try liveRecording("back-drag-finish.events", endingAgo: 0.1)
        let before = h.events.count
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event5", description: description, grabbed: false)))
        h.source.push(.events(again))
        #expect(h.waitFor { $0.count > before && $0.last?.kind == .finished })
        #expect(h.events[before...].contains { $0.kind == .ended && $0.decision == .finish && $0.reason == .released })
    }

    @Test func twoPanelsEachDriveTheirOwnGestureAndALostOneCancelsOnlyItsOwn() throws {
        // Both start at the same moment: forward's finger is down while back's panel goes.
        let (left, back) = try liveRecording("back-drag-finish.events", endingAgo: 0.7)
        let (right, forward) = try liveRecording("forward-edge-right-spring.events", endingAgo: 1.4)
        let config = try ConfigLoader.load(path: ProjectPaths.file("config/example.toml"))
        let h = HostHarness(configuration: config)
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: left, grabbed: false, source: 0)),
                      .attached(AttachedDevice(path: "/dev/input/event5", description: right, grabbed: false, source: 1)))
        // Both panels' events, interleaved by time, in reads of a few events.
        var merged: [(Int, InputEvent)] = back.prefix(400).map { (0, $0) } + forward.map { (1, $0) }
        merged.sort { $0.1.time < $1.1.time }
        var lostSent = false
        var k = 0
        while k < merged.count {
            let source = merged[k].0
            var chunk: [InputEvent] = []
            while k < merged.count && merged[k].0 == source && chunk.count < 8 { chunk.append(merged[k].1); k += 1 }
            h.source.push(.events(chunk, source: source))
            if !lostSent && source == 0 && !merged[k...].contains(where: { $0.0 == 0 }) {
                h.source.push(.lost(path: "/dev/input/event4", reason: "the device was removed", source: 0))
                lostSent = true
            }
        }
        #expect(h.waitFor { events in events.filter { $0.kind == .finished || $0.kind == .cancelled }.count >= 2 })
        let ended = h.events.filter { $0.kind == .ended }.map { (config.transitions[$0.transition].name, $0.decision, $0.reason) }
        #expect(ended.count == 2)
        #expect(ended.contains { $0.0 == "back" && $0.1 == .cancel && $0.2 == .deviceLost }, "\(ended)")
        #expect(ended.contains { $0.0 == "forward" && $0.1 == .finish && $0.2 == .released }, "\(ended)")
        #expect(h.logs.all.contains("warning lost /dev/input/event4: the device was removed; 1 transition cancelled"))
        // The two fingers overlapped in time.
        #expect(back[399].time > forward.first!.time + 300_000)
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

    @Test func resyncThatLosesTheFingerCancels() throws {
        let (description, events) = try liveRecording("back-drag-finish.events", endingAgo: 0.2)
        let h = HostHarness()
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)))
        let head = Array(events.prefix(400))
        h.source.push(.events(head))
        #expect(h.waitFor { $0.contains { $0.kind == .began } })
        // SYN_DROPPED, then libevdev's delta: slot 0's touch has ended.
        let t = head.last!.time + 5000
        h.source.push(.events([
            InputEvent(time: t, type: 0, code: EventCode.SYN_DROPPED, value: 0),
            InputEvent(time: t, type: 3, code: EventCode.ABS_MT_SLOT, value: 0),
            InputEvent(time: t, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: -1),
            InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0),
        ]))
        #expect(h.waitFor { $0.last?.kind == .cancelled })
        let ended = try #require(h.events.first { $0.kind == .ended })
        #expect(ended.reason == .deviceLost && ended.decision == .cancel)
        #expect(h.onLoop { h.host.counters.resyncs } == 1)
        #expect(h.logs.all.contains { $0.hasPrefix("notice SYN_DROPPED on /dev/input/event4") })
    }

    @Test func resyncThatKeepsTheFingerGoesOn() throws {
        let (description, events) = try liveRecording("back-drag-finish.events", endingAgo: 0.2)
        let expectedFinal = try directRun(description, events).last
        let h = HostHarness()
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)))
        // A SYN_DROPPED with an empty delta (nothing changed) in mid-gesture.
        let cut = 400
        let t = events[cut - 1].time
        h.source.push(.events(Array(events.prefix(cut))
                              + [InputEvent(time: t, type: 0, code: EventCode.SYN_DROPPED, value: 0),
                                 InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)]
                              + Array(events.dropFirst(cut))))
        #expect(h.waitFor { $0.last?.kind == .finished || $0.last?.kind == .cancelled })
        #expect(!h.events.contains { $0.reason == .deviceLost })
        #expect(h.events.last?.kind == expectedFinal?.kind)
    }
}

extension HostHarness {
    /// Waits until the host's input status values are `values`.
    func waitForStatus(_ values: [String], timeout: Double = 5) -> Bool {
        waitUntil(timeout: timeout, pollingEvery: 0.002) { onLoop({ self.host.inputStatus.map(\.value) }) == values }
    }
}
