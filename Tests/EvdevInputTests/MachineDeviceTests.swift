import Recordings
import Testing
import TestSupport
import TransitionConfig
import Engine
@testable import EvdevInput
@testable import Inputs

/// The live input's rules, input by input: frames, resyncs, losses, the
/// input status, animation ticks. No loop, no waits: the script's time.
@Suite("Live input machine: devices")
struct MachineDeviceTests {
    @Test(arguments: ["back-drag-finish.events", "back-flick-back-cancel.events", "swipe-up-3-fingers.events"])
    func eventsGiveWhatTheEngineGives(name: String) throws {
        let (description, events) = try recording(name)
        var s = MachineScript()
        s.attach("/dev/input/event4", description)
        s.batch(events, read: 97)
        s.settle()
        #expect(s.events == (try directRun(description, events)))
        #expect(s.machine.counters.inputEvents == events.count && s.machine.counters.batches == 1)
    }

    @Test func aBatchIsOneEmitThenTheNextTick() throws {
        let (description, events) = try recording("back-drag-finish.events")
        var s = MachineScript()
        s.attach("/dev/input/event4", description)
        s.batch(Array(events.prefix(400)))
        #expect(s.last.filter { $0.hasPrefix("emit") } == ["emit input"])
        #expect(s.last.last?.hasPrefix("tick ") == true || s.last.last == "no tick")
        #expect(s.events.contains { $0.kind == .began })
        // An animation frame is emitted as one, not as input.
        s.batch(Array(events.dropFirst(400)))
        let due = try #require(s.tickAt)
        s.run { $0.tick(due: due, now: due, into: &$1) }
        #expect(s.last.first == "emit" && s.last.count == 2)
    }

    @Test func statusFollowsTheDevice() {
        var s = MachineScript()
        #expect(s.machine.inputStatus.map(\.value) == ["waiting", "a touchscreen"])
        s.run { $0.waiting("waiting for a touchscreen (cannot read /dev/input/event2: permission denied)", into: &$1) }
        #expect(s.last == ["log-info waiting for a touchscreen (cannot read /dev/input/event2: permission denied)",
                           "status waiting for a touchscreen (cannot read /dev/input/event2: permission denied)"])
        #expect(s.machine.inputStatus.map(\.value) == ["waiting", "a touchscreen (cannot read /dev/input/event2: permission denied)"])
        s.attach(grabbed: true)
        #expect(s.last == ["log-info attached /dev/input/event4 \"Test Panel\" (direct touch, multitouch (10 slots), grabbed)",
                           "status /dev/input/event4 \"Test Panel\""])
        #expect(s.machine.inputStatus.map(\.key) == ["input", "device", "device_name"])
        #expect(s.machine.inputStatus.map(\.value) == ["attached", "/dev/input/event4", "Test Panel"])
        s.lose(at: 1)
        s.run { $0.waiting("waiting for a touchscreen", into: &$1) }
        #expect(s.log.suffix(4) == ["log-warning lost /dev/input/event4: the device was removed; 0 transitions cancelled",
                                    "status waiting for a touchscreen (cannot read /dev/input/event2: permission denied)",
                                    "log-info waiting for a touchscreen", "status waiting for a touchscreen"])
        #expect(s.machine.counters.attaches == 1 && s.machine.counters.losses == 1)
    }

    @Test func aSourceBeyondTheEnginesIsABugAndIgnored() {
        var s = MachineScript()
        s.attach(source: TouchFrame.maximumSources)
        #expect(s.last == ["log-error BUG: /dev/input/event4 attached as source \(TouchFrame.maximumSources), beyond \(TouchFrame.maximumSources); ignored"])
        #expect(s.machine.devices.isEmpty)
    }

    @Test func aMessageIsLoggedAtItsLevel() {
        var s = MachineScript()
        s.run { $0.message(.notice, "hello", into: &$1) }
        #expect(s.last == ["log-notice hello"])
    }

    @Test func lostDeviceCancelsTheGestureAndAnimatesBack() throws {
        let (description, events) = try recording("back-drag-finish.events")
        var s = MachineScript()
        s.attach("/dev/input/event4", description)
        s.batch(Array(events.prefix(400)))
        #expect(s.events.contains { $0.kind == .began })
        let t = Double(events[399].time) / 1e6
        s.lose(at: t + 0.01)
        #expect(s.last.first == "log-warning lost /dev/input/event4: the device was removed; 1 transition cancelled")
        // The cancel is in the events of the loss; the next batch's end emits it.
        s.run { $0.batchEnded(into: &$1) }
        s.settle()
        let ended = try #require(s.events.first { $0.kind == .ended })
        #expect(ended.decision == .cancel && ended.reason == .deviceLost)
        #expect(s.events.filter { $0.kind == .animating }.count > 1)
        #expect(s.events.last?.kind == .cancelled && s.events.last?.progress == 0)
        // The next device works.
        let before = s.events.count
        s.attach("/dev/input/event5", description)
        let shift = events[399].time + 1_000_000 - events[0].time
        s.batch(events.map { InputEvent(time: $0.time + shift, type: $0.type, code: $0.code, value: $0.value) })
        s.settle()
        #expect(s.events[before...].contains { $0.kind == .ended && $0.decision == .finish && $0.reason == .released })
        #expect(s.events.last?.kind == .finished)
    }

    @Test func twoPanelsEachDriveTheirOwnGestureAndALostOneCancelsOnlyItsOwn() throws {
        let (left, back) = try recording("back-drag-finish.events")
        let (right, forwardAsRecorded) = try recording("forward-edge-right-spring.events")
        // As they were pushed live: back's ends 0.7 s after forward's.
        let shift = back.last!.time - 700_000 - forwardAsRecorded.last!.time
        let forward = forwardAsRecorded.map { InputEvent(time: $0.time + shift, type: $0.type, code: $0.code, value: $0.value) }
        let config = try ConfigLoader.load(path: ProjectPaths.file("config/example.toml"))
        var s = MachineScript(config)
        s.attach("/dev/input/event4", left, source: 0)
        s.attach("/dev/input/event5", right, source: 1)
        var merged: [(Int, InputEvent)] = back.prefix(400).map { (0, $0) } + forward.map { (1, $0) }
        merged.sort { $0.1.time < $1.1.time }
        let lostAt = back[399].time
        var lostSent = false
        for (source, event) in merged {
            if !lostSent && event.time > lostAt {
                s.settle(until: Double(event.time) / 1e6)
                s.lose(source: 0, at: Double(lostAt) / 1e6 + 0.001)
                lostSent = true
            }
            s.settle(until: Double(event.time) / 1e6)
            s.batch([event], source: source)
        }
        s.settle()
        #expect(s.log.contains("log-warning lost /dev/input/event4: the device was removed; 1 transition cancelled"))
        let ended = s.events.filter { $0.kind == .ended }.map { (config.transitions[$0.transition].name, $0.decision, $0.reason) }
        #expect(ended.count == 2)
        #expect(ended.contains { $0.0 == "back" && $0.1 == .cancel && $0.2 == .deviceLost }, "\(ended)")
        #expect(ended.contains { $0.0 == "forward" && $0.1 == .finish && $0.2 == .released }, "\(ended)")
        // The two fingers overlapped in time.
        #expect(back[399].time > forward.first!.time + 300_000)
    }

    @Test func commandDrivenTransitionsSurviveALostDevice() {
        var s = MachineScript()
        s.attach()
        #expect(s.perform(.drive(progress: 0.3), at: 1) == .done)
        s.lose(at: 2)
        #expect(s.machine.engine.activeSnapshot().map(\.phase) == [.interacting])
    }

    @Test func resyncThatLosesTheFingerCancels() throws {
        let (description, events) = try recording("back-drag-finish.events")
        var s = MachineScript()
        s.attach("/dev/input/event4", description)
        let head = Array(events.prefix(400))
        s.batch(head)
        // SYN_DROPPED, then libevdev's delta: slot 0's touch has ended.
        let t = head.last!.time + 5000
        s.batch([InputEvent(time: t, type: 0, code: EventCode.SYN_DROPPED, value: 0),
                 InputEvent(time: t, type: 3, code: EventCode.ABS_MT_SLOT, value: 0),
                 InputEvent(time: t, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: -1),
                 InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)])
        #expect(s.last.first?.hasPrefix("log-notice SYN_DROPPED on /dev/input/event4: the kernel dropped events;") == true)
        s.settle()
        let ended = try #require(s.events.first { $0.kind == .ended })
        #expect(ended.reason == .deviceLost && ended.decision == .cancel)
        #expect(s.events.last?.kind == .cancelled)
        #expect(s.machine.counters.resyncs == 1)
    }

    @Test func theEnginesTraceLinesKeepTheirPlaceAmongTheLogLines() throws {
        let (description, events) = try recording("back-drag-finish.events")
        var s = MachineScript(traces: true)
        s.attach("/dev/input/event4", description)
        // One batch: the gesture begins, the kernel drops events, the resync ends it.
        let head = Array(events.prefix(400))
        let t = head.last!.time + 5000
        s.batch(head + [InputEvent(time: t, type: 0, code: EventCode.SYN_DROPPED, value: 0),
                        InputEvent(time: t, type: 3, code: EventCode.ABS_MT_SLOT, value: 0),
                        InputEvent(time: t, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: -1),
                        InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)])
        let began = try #require(s.logged.firstIndex { $0.hasPrefix("log-debug back: began at ") })
        let dropped = try #require(s.logged.firstIndex { $0.hasPrefix("log-notice SYN_DROPPED on ") })
        let ended = try #require(s.logged.firstIndex { $0.hasPrefix("log-debug back: ended at ") })
        #expect(began < dropped && dropped < ended, "\(s.logged)")
    }

    @Test func resyncThatKeepsTheFingerGoesOn() throws {
        let (description, events) = try recording("back-drag-finish.events")
        var s = MachineScript()
        s.attach("/dev/input/event4", description)
        // A SYN_DROPPED with an empty delta (nothing changed) in mid-gesture.
        let t = events[399].time
        s.batch(Array(events.prefix(400))
                + [InputEvent(time: t, type: 0, code: EventCode.SYN_DROPPED, value: 0),
                   InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0)]
                + Array(events.dropFirst(400)))
        s.settle()
        #expect(!s.events.contains { $0.reason == .deviceLost })
        #expect(s.events.last?.kind == (try directRun(description, events)).last?.kind)
    }

    @Test func theFlightRecorderGetsEachAttachedPanelsEvents() {
        var s = MachineScript(records: true)
        s.attach()
        #expect(s.last.first == "record-start 0 /dev/input/event4")
        let events = drag(x0: 1500, x1: 2500, trackingID: 8, end: 10_000_000)
        s.batch(events, read: 100)
        #expect(s.last.filter { $0.hasPrefix("record ") } == stride(from: 0, to: events.count, by: 100).map {
            "record 0 ×\(min(100, events.count - $0))"
        })
        // A panel that went records nothing more (its ring stays for `dump`).
        s.lose(at: 11)
        s.batch(events)
        #expect(!s.last.contains { $0.hasPrefix("record") })
    }

    @Test func afterShutdownNothingIsDue() {
        var s = MachineScript()
        s.attach()
        #expect(s.perform(.run(.finish), at: 1) == .done)
        #expect(s.tickAt != nil)
        var ends: [TransitionEvent] = []
        s.run { $0.shutdown(at: 1.01, events: &ends, into: &$1) }
        #expect(s.last == ["no tick", "stop-input"])
        #expect(ends.contains { $0.kind == .ended && $0.reason == .shutdown })
        s.run { $0.tick(due: 1.02, now: 1.02, into: &$1) }
        #expect(s.last.isEmpty)
        _ = s.perform(.run(.finish), at: 2)
        #expect(s.last == ["no tick"])
    }
}

/// A project recording on its own time line.
func recording(_ name: String) throws -> (DeviceDescription, [InputEvent]) {
    let recording = try RecordingReader.read(path: ProjectRecordings.path(name))
    return (try #require(recording.description), recording.events)
}
