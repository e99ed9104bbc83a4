import EvdevInput
import Recordings
import Engine
import ServerPorts

/// Every panel's flight recorder (`[input] flight_recorder`), as the
/// executor keeps them: the rings hold memory by reference, so they stay
/// out of the machine, which says when to start one and what to record.
struct FlightRecorders {
    /// Seconds of raw input kept per panel for `dump` (0: none).
    var seconds: Double = 0
    /// Its memory bound per panel.
    var limitBytes = FlightRecorder.defaultLimitBytes
    typealias Entry = (recorder: FlightRecorder, device: AttachedDevice)
    /// Per source: the ring, and the panel it records (kept after the panel
    /// goes, so a dump shows what led to a loss).
    private var current: [Int: Entry] = [:]
    /// Per source: the ring of the panel before the one attached now (a
    /// panel that went and came back: what led to the loss stays until the
    /// next time).
    private var previous: [Int: Entry] = [:]

    /// A fresh ring for the panel, starting at its selected slot.
    mutating func start(_ device: AttachedDevice) {
        if let old = current[device.source], old.recorder.count > 0 { previous[device.source] = old }
        let slot = device.description.absInfo[EventCode.ABS_MT_SLOT]?.value ?? 0
        current[device.source] = (FlightRecorder(seconds: seconds, limitBytes: limitBytes, slot: slot), device)
    }

    mutating func record(_ events: [InputEvent], source: Int) {
        guard var entry = current.removeValue(forKey: source) else { return }
        entry.recorder.append(contentsOf: events)
        current[source] = entry
    }

    /// The bytes each panel's ring holds now.
    var held: [Int: Int] { current.mapValues { $0.recorder.bytes } }
    /// The bytes all rings hold, the earlier panels' included.
    var bytes: Int {
        current.values.reduce(0) { $0 + $1.recorder.bytes } + previous.values.reduce(0) { $0 + $1.recorder.bytes }
    }

    /// What a ring holds now, taken on the loop (a copy of its events) so
    /// that writing it can be done elsewhere (`recording(of:header:)`).
    struct Snapshot: Sendable {
        var source: Int
        var path: String
        var description: DeviceDescription
        var dump: FlightRecorder.Dump
    }

    /// Every ring's snapshot (the earlier panels' first); nil when the recorder is off.
    func snapshots() -> [Snapshot]? {
        guard seconds > 0 else { return nil }
        var entries = previous.sorted { $0.key < $1.key }.map { (source: $0.key, entry: $0.value) }
        entries += current.sorted { $0.key < $1.key }.map { (source: $0.key, entry: $0.value) }
        return entries.map { source, entry in
            Snapshot(source: source, path: entry.device.path, description: entry.device.description,
                     dump: entry.recorder.dump())
        }
    }

    /// Each ring as an evemu recording (the earlier panels' first), for
    /// `dump`; nil when the recorder is off. `header`: comment lines at the
    /// top of each (who the daemon is).
    func recordings(header: [String] = []) -> [FlightRecording]? {
        snapshots()?.map { Self.recording(of: $0, header: header) }
    }

    /// A snapshot as an evemu recording, starting at the slot its dump starts at.
    static func recording(of snapshot: Snapshot, header: [String]) -> FlightRecording {
        var description = snapshot.description
        if let slot = snapshot.dump.slot, var info = description.absInfo[EventCode.ABS_MT_SLOT] {
            info.value = slot
            description.absInfo[EventCode.ABS_MT_SLOT] = info
        }
        let bytes = EvemuWriter.write(description: description, events: snapshot.dump.events, comments: false, header: header)
        return FlightRecording(source: snapshot.source, path: snapshot.path, events: snapshot.dump.events.count,
                               evemu: String(decoding: bytes, as: UTF8.self))
    }
}
