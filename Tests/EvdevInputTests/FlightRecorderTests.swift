import Foundation
import Recordings
import Replay
import TestSupport
import Testing
import Engine
import ServerPorts
import Server
import ServerCore
@testable import Inputs
@testable import EvdevInput

/// The flight recorder: a ring bounded by time and by bytes, whose dump is
/// a recording that replays to the transitions the daemon streamed.
@Suite("Flight recorder")
struct FlightRecorderTests {
    func frame(_ t: Int64, x: Int32, down: Bool?, slot: Int32? = nil) -> [InputEvent] {
        var events: [InputEvent] = []
        if let slot { events.append(InputEvent(time: t, type: 3, code: EventCode.ABS_MT_SLOT, value: slot)) }
        events.append(InputEvent(time: t, type: 3, code: EventCode.ABS_MT_POSITION_X, value: x))
        if let down { events.append(InputEvent(time: t, type: 1, code: EventCode.BTN_TOUCH, value: down ? 1 : 0)) }
        events.append(InputEvent(time: t, type: 0, code: EventCode.SYN_REPORT, value: 0))
        return events
    }

    @Test func keepsTheLastSecondsOnly() {
        var ring = FlightRecorder(seconds: 1)
        for k in 0..<300 { for e in frame(Int64(k) * 10_000, x: Int32(k), down: nil) { ring.append(e) } }
        let kept = ring.dump()
        // 3 s of frames at 100 Hz; the last second (and its first moment) stays.
        #expect(ring.count <= 101 * 2)
        #expect(ring.count >= 100 * 2)
        // A device without BTN_TOUCH: from the first whole frame on, after a
        // frame that says where slot 0 was then (x 199).
        #expect(Array(kept.events.prefix(4).map(\.value)) == [0, 199, 0, 0])
        #expect(kept.events[4].time == 2_000_000)
        #expect(kept.events.count == 204)
    }

    @Test func neverHoldsMoreThanItsBytes() {
        var ring = FlightRecorder(seconds: 3600, limitBytes: 1600)
        #expect(ring.capacity == 1600 / FlightRecorder.eventSize)
        for k in 0..<100_000 { ring.append(InputEvent(time: Int64(k), type: 3, code: 0x35, value: Int32(k % 4096))) }
        #expect(ring.count == ring.capacity)
        #expect(ring.bytes <= 1600)
        // Oldest first, the newest last.
        ring.append(InputEvent(time: 100_000, type: 0, code: 0, value: 0))
        #expect(ring.count == ring.capacity)
    }

    @Test func aDumpStartsWhenNoFingerIsDownAndSaysTheSlot() {
        var ring = FlightRecorder(seconds: 10)
        // Something older than the window: the ring has dropped input, so
        // it no longer starts at the attach.
        ring.append(InputEvent(time: -20_000_000, type: 0, code: 0, value: 0))
        var all: [InputEvent] = []
        all += frame(0, x: 10, down: true, slot: 3)      // a touch already down when the window starts
        all += frame(10_000, x: 11, down: false)        // it lifts: the first quiet moment
        all += frame(20_000, x: 12, down: true)         // the next touch, in slot 3 still
        all += [InputEvent(time: 25_000, type: 0, code: EventCode.SYN_DROPPED, value: 0)]
        all += frame(30_000, x: 13, down: false)
        for e in all { ring.append(e) }
        let dump = ring.dump()
        #expect(dump.slot == 3)
        // The state at the quiet moment, as a frame: slot 3 was at x 11.
        #expect(Array(dump.events.prefix(4)) == [InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_SLOT, value: 3),
                                                 InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_POSITION_X, value: 11),
                                                 InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_SLOT, value: 3),
                                                 InputEvent(time: 10_000, type: 0, code: EventCode.SYN_REPORT, value: 0)])
        #expect(dump.events[4] == InputEvent(time: 20_000, type: 3, code: EventCode.ABS_MT_POSITION_X, value: 12))
        #expect(!dump.events.contains { $0.code == EventCode.SYN_DROPPED && $0.type == 0 })
        #expect(dump.events.count == 10)
    }

    @Test func aDumpSaysTheSlotAndPlacesThatFellOutOfTheRing() {
        // A small ring: the slot change and the positions of the first touch
        // are long gone when the dump is made.
        var ring = FlightRecorder(seconds: 3600, limitBytes: 16 * FlightRecorder.eventSize)
        var all: [InputEvent] = []
        all += [InputEvent(time: 0, type: 3, code: EventCode.ABS_MT_SLOT, value: 1),
                InputEvent(time: 0, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: 7),
                InputEvent(time: 0, type: 3, code: EventCode.ABS_MT_POSITION_X, value: 500),
                InputEvent(time: 0, type: 3, code: EventCode.ABS_MT_POSITION_Y, value: 300)]
        all += frame(0, x: 500, down: true).suffix(2)          // BTN_TOUCH 1, SYN
        all += [InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: -1)]
        all += frame(10_000, x: 500, down: false).suffix(2)    // BTN_TOUCH 0, SYN: quiet
        for k in 0..<8 { all += [InputEvent(time: 20_000 + Int64(k), type: 0, code: 0, value: 0)] }  // idle frames
        all += [InputEvent(time: 30_000, type: 1, code: EventCode.BTN_TOUCH, value: 0),
                InputEvent(time: 30_000, type: 0, code: 0, value: 0)]                                // quiet again
        // The next touch, in slot 1 at the same x (the kernel leaves x out).
        all += [InputEvent(time: 40_000, type: 3, code: EventCode.ABS_MT_TRACKING_ID, value: 8),
                InputEvent(time: 40_000, type: 1, code: EventCode.BTN_TOUCH, value: 1),
                InputEvent(time: 40_000, type: 0, code: 0, value: 0)]
        for e in all { ring.append(e) }
        #expect(ring.hasDropped)
        let dump = ring.dump()
        #expect(dump.slot == 1)
        // The first quiet moment still kept (10 ms) starts the dump, with a
        // frame saying slot 1 is selected and was at (500, 300).
        #expect(Array(dump.events.prefix(5)) == [InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_SLOT, value: 1),
                                                 InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_POSITION_X, value: 500),
                                                 InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_POSITION_Y, value: 300),
                                                 InputEvent(time: 10_000, type: 3, code: EventCode.ABS_MT_SLOT, value: 1),
                                                 InputEvent(time: 10_000, type: 0, code: EventCode.SYN_REPORT, value: 0)],
                "\(dump.events.prefix(6))")
    }

    @Test func aRingThatDroppedNothingDumpsAllSinceTheAttach() {
        var ring = FlightRecorder(seconds: 10)
        let events = frame(0, x: 10, down: true, slot: 3) + frame(10_000, x: 11, down: false)
        for e in events { ring.append(e) }
        #expect(!ring.hasDropped)
        #expect(ring.dump().events == events)
    }

    @Test func aDumpReplaysToTheTransitionsTheDaemonStreamed() throws {
        let (description, events) = try liveRecording("back-flick-back-cancel.events", endingAgo: 0.5)
        let h = HostHarness()
        defer { h.shutdown() }
        _ = h.onLoop { [h] in h.host.flightRecorderSeconds = 30; return 0 }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)))
        // A finger that was up before: the window starts when nothing is down.
        var lifted = events
        lifted.insert(contentsOf: [InputEvent(time: events[0].time - 20_000, type: 1, code: EventCode.BTN_TOUCH, value: 0),
                                   InputEvent(time: events[0].time - 20_000, type: 0, code: 0, value: 0)], at: 0)
        h.source.push(.events(lifted))
        #expect(h.waitFor { $0.contains { $0.kind == .cancelled } })
        let fetched: [FlightRecording]? = h.onLoop { [h] in h.host.flightRecordings() }
        let recordings = try #require(fetched)
        #expect(recordings.count == 1)
        let recording = try RecordingReader.parse(bytes: Array(recordings[0].evemu.utf8), path: "dump.events")
        #expect(recording.description?.name == description.name)
        var session = try ReplaySession(configuration: .standard,
                                        inputs: [ReplayInput(path: "dump.events", device: recording.description!, events: recording.events)])
        var replayed: [TransitionEvent] = []
        session.run { replayed += $0 }
        let live = try #require(h.events.first { $0.kind == .ended })
        let again = try #require(replayed.first { $0.kind == .ended })
        #expect(again.decision == live.decision && again.reason == live.reason)
        #expect(abs(again.progress - live.progress) < 1e-6)
        #expect(abs(again.velocity - live.velocity) <= 0.1 * abs(live.velocity) + 1e-3)
    }

    @Test func aPanelThatCameBackKeepsWhatLedToItsLoss() throws {
        let (description, events) = try liveRecording("back-drag-finish.events", endingAgo: 0.5)
        let h = HostHarness()
        defer { h.shutdown() }
        _ = h.onLoop { [h] in h.host.flightRecorderSeconds = 30; return 0 }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)),
                      .events(Array(events.prefix(300))),
                      .lost(path: "/dev/input/event4", reason: "the device was removed"),
                      .attached(AttachedDevice(path: "/dev/input/event5", description: description, grabbed: false)))
        #expect(h.waitFor { $0.contains { $0.kind == .cancelled } })
        let fetched: [FlightRecording]? = h.onLoop { [h] in h.host.flightRecordings() }
        let recordings = try #require(fetched)
        #expect(recordings.map(\.path) == ["/dev/input/event4", "/dev/input/event5"])
        #expect(recordings[0].events == 300)
        #expect(!recordings[0].evemu.contains("\t# EV_"), "no per-event comments in a dump")
        #expect(recordings[0].evemu.contains("\nE: "))
    }

    @Test func noRecorderNoDump() {
        let h = HostHarness()
        defer { h.shutdown() }
        let none: Bool = h.onLoop { [h] in h.host.flightRecordings() == nil }
        #expect(none)
    }
}
