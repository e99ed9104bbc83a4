import Foundation
import SystemSupport
import TestSupport
import Testing
import Engine
import Recordings
import WireProtocol
@testable import EvdevInput
@testable import Inputs

/// `[input] keep_misfires`: the spool's rules (`MisfireSpoolPlan`), then the
/// host on a real loop writing real files from the project's recordings.
@Suite("Misfire spool")
struct MisfireSpoolTests {
    @Test func namesSortByAgeAndOnlyTheSpoolsOwnFilesCount() {
        let stem = MisfireSpoolPlan.stem(kind: .lateCancel, transition: "back", utc: (2026, 11, 7, 3, 4, 5))
        #expect(stem == "20261107T030405Z-late-cancel-back")
        #expect(MisfireSpoolPlan.isSpooled(stem + ".events"))
        #expect(MisfireSpoolPlan.isSpooled(stem + "-2.1.events"))
        #expect(MisfireSpoolPlan.isSpooled("20261107T030405Z-device-lost-menu.events"))
        for foreign in ["notes.txt", stem, stem + ".events.bak", "." + stem + ".events.partial",
                        "20261107T030405Z-other-back.events", "2026110xT030405Z-late-cancel-back.events", "x.events"] {
            #expect(!MisfireSpoolPlan.isSpooled(foreign), "\(foreign)")
        }
    }

    @Test func theOldestGoFirstUntilBothBoundsHold() {
        let files = [("c", 300), ("a", 100), ("d", 400), ("b", 200)].map { (name: $0.0, bytes: $0.1) }
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 10, maxBytes: 10_000) == [])
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 2, maxBytes: 10_000) == ["a", "b"])
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 10, maxBytes: 700) == ["a", "b"])
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 3, maxBytes: 450) == ["a", "b", "c"])
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 3, maxBytes: 350) == ["a", "b", "c", "d"])
        // One file bigger than the bound goes too: the bound holds; but never the misfire just written.
        #expect(MisfireSpoolPlan.removals([(name: "a", bytes: 900)], maxFiles: 5, maxBytes: 800) == ["a"])
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 1, maxBytes: 100, keeping: ["d"]) == ["a", "b", "c"])
    }

    @Test func aMisfiresPanelFilesCountAsOneAndGoTogether() {
        let old = "20261107T030405Z-device-lost-back"
        let new = "20261107T040405Z-late-cancel-back"
        let files = [(name: old + ".0.events", bytes: 10), (name: old + ".1.events", bytes: 10),
                     (name: new + ".0.events", bytes: 10), (name: new + ".1.events", bytes: 10)]
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 2, maxBytes: 1000) == [])
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 1, maxBytes: 1000) == [old + ".0.events", old + ".1.events"])
        #expect(MisfireSpoolPlan.removals(files, maxFiles: 1, maxBytes: 15, keeping: [new + ".0.events", new + ".1.events"])
                == [old + ".0.events", old + ".1.events"])
        #expect(MisfireSpoolPlan.misfire(of: new + ".1.events") == new)
        #expect(MisfireSpoolPlan.misfire(of: new + ".events") == new)
        #expect(MisfireSpoolPlan.isPartial(MisfireSpoolPlan.partial(new + ".events")))
        #expect(!MisfireSpoolPlan.isPartial(".notes.partial"))
        // A long transition name is cut in the file name.
        let stem = MisfireSpoolPlan.stem(kind: .lateCancel, transition: String(repeating: "t", count: 400), utc: (2026, 1, 2, 3, 4, 5))
        #expect(stem.utf8.count < 200)
    }

    @Test func theMachineAsksForAMisfireAfterEmittingItsBatchAndALostPanelMidGestureIsOne() throws {
        let (description, events) = try recording("back-flick-back-cancel.events")
        var script = MachineScript(records: true)
        script.machine.watchMisfires(every: 60)
        script.attach("/dev/input/event4", description)
        let release = try #require(events.lastIndex { $0.type == EventCode.EV_KEY && $0.code == EventCode.BTN_TOUCH && $0.value == 0 })
        script.batch(Array(events[..<release]))
        #expect(!script.last.contains { $0.hasPrefix("keep-misfire") })
        script.batch(Array(events[release...]))
        let emit = try #require(script.last.firstIndex { $0.hasPrefix("emit") })
        let keep = try #require(script.last.firstIndex { $0.hasPrefix("keep-misfire") })
        #expect(emit < keep, "the stream first: \(script.last)")
        #expect(script.last[keep].hasPrefix("keep-misfire late-cancel back decision=cancel reason=released progress=0.573 peak="))

        // Off: no explanations kept, nothing asked.
        var off = MachineScript(records: true)
        off.attach("/dev/input/event4", description)
        off.batch(events)
        #expect(!off.log.contains { $0.hasPrefix("keep-misfire") })
        #expect(off.machine.engine.explanations == nil)

        // A panel lost mid-gesture (a minute later: past the interval).
        var lost = MachineScript(records: true)
        lost.machine.watchMisfires(every: 60)
        lost.attach("/dev/input/event4", description)
        lost.batch(Array(events[..<release]))
        lost.lose(at: Double(events[release].time) / 1e6)
        lost.run { $0.batchEnded(into: &$1) }
        #expect(lost.last.contains { $0.hasPrefix("keep-misfire device-lost back decision=cancel reason=device-lost") }, "\(lost.last)")
    }

    /// `transitiond dump`'s recordings say who the daemon is too.
    @Test func aDumpsHeaderNamesTheKioskAndTheConfig() throws {
        let (description, events) = try liveRecording("back-drag-finish.events")
        let h = HostHarness(prepare: { host in
            host.flightRecorderSeconds = 30
            host.identity = .init(kiosk: "lobby-3", labels: ["floor": "2"], configHash: "00ff00ff00ff00ff")
        })
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)),
                      .events(events))
        #expect(h.waitUntilIdle())
        let recordings = h.onLoop { h.host.flightRecordings() ?? [] }
        h.shutdown()
        let lines = try #require(recordings.first).evemu.split(separator: "\n").prefix(2).map(String.init)
        #expect(lines == ["# EVEMU 1.3", "# transitiond dump: version=\(TransitiondVersion.current) kiosk=lobby-3 config_hash=00ff00ff00ff00ff floor=2"])
    }

    /// A host keeping misfires in `folder`, fed `events` of a panel.
    /// `gestures`: the events are handed over in this many parts, each once the one before is through.
    private func run(_ events: [InputEvent], _ description: DeviceDescription, folder: String, maxFiles: Int = 50,
                     maxBytes: Int = 64 << 20, interval: Double = 60, gestures: Int = 1) -> (HostHarness, Locked<Int>) {
        let kept = Locked(0)
        let h = HostHarness(prepare: { host in
            host.flightRecorderSeconds = 30
            host.identity = .init(kiosk: "lobby-3", site: "hbf", configHash: "00ff00ff00ff00ff")
            host.keepMisfires(folder: folder, maxFiles: maxFiles, maxBytes: maxBytes, interval: interval)
            host.misfireKept = { kept.withLock { $0 += 1 } }
        })
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event4", description: description, grabbed: false)))
        // A gesture a batch, as the input thread hands them over: each
        // batch's misfires are one dump.
        let part = (events.count + gestures - 1) / gestures
        var rest = events[...]
        var k = 0
        while !rest.isEmpty {
            h.source.push(.events(Array(rest.prefix(part))))
            rest = rest.dropFirst(part)
            k += 1
            h.waitFor { $0.filter { $0.kind == .ended }.count >= k }
            // The loop is through with the batch (its keep handed over), and
            // the spool with its write: input time runs here far faster than
            // the disk, which in the field has the interval's seconds.
            _ = h.onLoop { 0 }
            h.host.spool?.drain()
        }
        return (h, kept)
    }

    private func spooled(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test func aLateCancelLeavesExactlyOneDumpWithItsHeaderAndAnOrdinaryCancelNone() throws {
        let folder = TemporaryDirectory(prefix: "spool")
        defer { folder.remove() }
        let spool = folder.path + "/misfires"
        let (description, events) = try liveRecording("back-flick-back-cancel.events")
        let (h, kept) = run(events, description, folder: spool)
        #expect(h.waitUntilIdle())
        #expect(waitUntil(timeout: 10) { kept.withLock { $0 } == 1 })
        h.shutdown()
        let files = try spooled(spool)
        #expect(files.count == 1, "\(files)")
        let name = try #require(files.first)
        #expect(name.hasSuffix("Z-late-cancel-back.events") && MisfireSpoolPlan.isSpooled(name), "\(name)")
        let text = try String(contentsOfFile: spool + "/" + name, encoding: .utf8)
        let header = text.split(separator: "\n").prefix(3).map(String.init)
        #expect(header[0] == "# EVEMU 1.3")
        #expect(header[1].hasPrefix("# transitiond misfire: version="), "\(header)")
        #expect(header[1].hasSuffix(" kiosk=lobby-3 site=hbf config_hash=00ff00ff00ff00ff"), "\(header)")
        #expect(header[2] == "# misfire: kind=late-cancel transition=back decision=cancel reason=released progress=0.573 peak=0.573 panel=/dev/input/event4"
                || header[2].hasPrefix("# misfire: kind=late-cancel transition=back decision=cancel reason=released progress=0.573 peak="),
                "\(header)")
        #expect(h.logs.all.contains { $0.hasPrefix("notice misfire late-cancel of back (") && $0.contains(name) }, "\(h.logs.all)")
        // The dump replays to the same misfire.
        let recording = try RecordingReader.read(path: spool + "/" + name)
        let replayed = try directRun(try #require(recording.description), recording.events)
        #expect(replayed.contains { $0.kind == .ended && $0.decision == .cancel && abs($0.progress - 0.573) < 0.001 })

        // A cancel that never went far is no misfire.
        let quiet = folder.path + "/quiet"
        let (d2, e2) = try liveRecording("back-drag-cancel.events")
        let (h2, _) = run(e2, d2, folder: quiet)
        #expect(h2.waitUntilIdle())
        h2.shutdown()
        #expect(!FileManager.default.fileExists(atPath: quiet), "the folder is made only for a misfire")
    }

    @Test func aFloodOfMisfiresStaysWithinTheRateAndTheBounds() throws {
        let folder = TemporaryDirectory(prefix: "flood")
        defer { folder.remove() }
        // An operator's file in the spool stays.
        let theirs = folder.file("20261107T030405Z-late-cancel-note.txt", "mine")
        let (description, one) = try recording("back-flick-back-cancel.events")
        // 40 late cancels, one every 2 s of input: 80 s.
        let span = one.last!.time - one.first!.time
        #expect(span < 1_900_000)
        var events: [InputEvent] = []
        for k in 0..<40 {
            let shift = Int64(k) * 2_000_000 - one.first!.time
            events += one.map { InputEvent(time: $0.time + shift, type: $0.type, code: $0.code, value: $0.value) }
        }
        let end = events.last!.time
        let onClock = Int64((MonotonicClock.seconds - 1) * 1e6) - end
        events = events.map { InputEvent(time: $0.time + onClock, type: $0.type, code: $0.code, value: $0.value) }
        let (h, kept) = run(events, description, folder: folder.path, maxFiles: 3, maxBytes: 1_000_000, interval: 10, gestures: 40)
        #expect(h.waitFor(timeout: 30) { $0.filter { $0.kind == .ended }.count == 40 })
        #expect(h.waitUntilIdle(after: 40 * 4))
        // Misfires at about 2k + 1 s: one kept per 10 s of input, 8 in all.
        #expect(waitUntil(timeout: 20) { kept.withLock { $0 } == 8 }, "\(kept.withLock { $0 })")
        h.shutdown()
        let files = try spooled(folder.path).filter(MisfireSpoolPlan.isSpooled)
        #expect(files.count <= 3, "\(files)")
        let bytes = try files.reduce(0) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: folder.path + "/" + name)[.size] as? Int) ?? 0)
        }
        #expect(bytes <= 1_000_000)
        #expect(FileManager.default.fileExists(atPath: theirs))
        #expect(!(try spooled(folder.path)).contains { $0.hasSuffix(".partial") })
        let logs = h.logs.all.filter { $0.contains("kept in") }
        #expect(logs.count == 8)
        #expect(logs.dropFirst().allSatisfy { $0.contains("(4 more since the last one not kept") }, "\(logs)")
    }

    @Test func aSpoolThatIsNotAFolderIsSaidAndNothingIsReplaced() throws {
        let folder = TemporaryDirectory(prefix: "notfolder")
        defer { folder.remove() }
        let file = folder.file("spool", "an operator's file")
        let (description, events) = try liveRecording("back-flick-back-cancel.events")
        let (h, kept) = run(events, description, folder: file)
        #expect(h.waitUntilIdle())
        #expect(waitUntil(timeout: 10) { kept.withLock { $0 } == 1 })
        h.shutdown()
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "an operator's file")
        #expect(h.logs.all.contains { $0.hasPrefix("error misfire late-cancel of back not kept: [input] misfire_spool \(file): not a folder") },
                "\(h.logs.all)")
    }

    /// A folder another user could write in (or a symlink to one) is not
    /// used: someone else could put names there, or point the spool's
    /// writes and removals elsewhere.
    @Test func aSymlinkedOrSharedFolderIsRefusedAndStaleTemporaryFilesAreSwept() throws {
        let folder = TemporaryDirectory(prefix: "shared")
        defer { folder.remove() }
        let target = folder.path + "/target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        let link = folder.path + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let shared = folder.path + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        chmod(shared, 0o777)
        let (description, events) = try liveRecording("back-flick-back-cancel.events")
        for (spool, problem) in [(link, "not a folder (a symlink is not followed)"), (shared, "writable by others (mode 777)")] {
            let (h, kept) = run(events, description, folder: spool)
            #expect(h.waitUntilIdle())
            #expect(waitUntil(timeout: 10) { kept.withLock { $0 } == 1 })
            h.shutdown()
            #expect(h.logs.all.contains { $0.contains("misfire_spool \(spool): \(problem)") }, "\(h.logs.all)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: shared).isEmpty)

        // A daemon stopped mid-write left a temporary file: the next use sweeps it.
        let own = folder.path + "/own"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false)
        chmod(own, 0o700)
        let stale = own + "/" + MisfireSpoolPlan.partial("20261107T030405Z-late-cancel-back.events")
        FileManager.default.createFile(atPath: stale, contents: Array("half".utf8).withUnsafeBytes { Data($0) })
        // And two older misfires: at most two are kept, so the oldest goes at
        // once (the sweep and the trim each read the folder from its start).
        for old in ["20200101T000000Z-late-cancel-back.events", "20200102T000000Z-late-cancel-back.events"] {
            FileManager.default.createFile(atPath: own + "/" + old, contents: Data("old".utf8))
        }
        let (h, kept) = run(events, description, folder: own, maxFiles: 2)
        #expect(h.waitUntilIdle())
        #expect(waitUntil(timeout: 10) { kept.withLock { $0 } == 1 })
        h.shutdown()
        let left = try FileManager.default.contentsOfDirectory(atPath: own).sorted()
        #expect(left.count == 2 && left.allSatisfy(MisfireSpoolPlan.isSpooled), "\(left)")
        #expect(left.first == "20200102T000000Z-late-cancel-back.events", "\(left)")
    }
}
