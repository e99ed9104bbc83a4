import EvdevInput
import TouchFilter
import TransitionEngine

/// Where a filtered panel's forwarded touches go: its uinput copy, or (in
/// tests) anything that takes whole frames of events.
public protocol FilterOutputDevice: AnyObject {
    /// The copy's node (`/dev/input/eventN`), when known.
    var node: String? { get }
    /// Writes the events in order; false when the device refused one.
    func write(_ events: ArraySlice<TouchFilter.Output>) -> Bool
    /// Removes the device.
    func remove()
}

/// The uinput copy of a panel: the same axes, ranges, resolution and
/// properties, named with `filteredDeviceSuffix` so that no reader of
/// touchscreens (ours included) takes it for a panel of its own.
public final class UinputCopy: FilterOutputDevice {
    private let device: UinputDevice

    public init(of description: DeviceDescription) throws(DeviceOpenError) {
        device = try UinputDevice(description: description, name: Self.name(for: description.name))
    }

    /// The copy's name: the panel's, cut to fit the kernel's 80 bytes with the suffix.
    static func name(for panel: String) -> String {
        var base = panel
        while base.utf8.count + filteredDeviceSuffix.utf8.count > 79 { base.removeLast() }
        return base + filteredDeviceSuffix
    }

    public var node: String? { device.devnode }

    public func write(_ events: ArraySlice<TouchFilter.Output>) -> Bool {
        for e in events where device.write(type: e.type, code: e.code, value: e.value) != 0 { return false }
        return true
    }

    public func remove() { device.destroy() }
}

/// One panel in filter mode: its touch filter and its copy. The host feeds
/// it every event the panel sends and, after each frame, what the engine
/// says of each touch; it writes what the UI may have when it is due.
final class FilteredPanel {
    private(set) var filter: TouchFilter
    let output: FilterOutputDevice
    /// The panel it copies (a panel that comes back alike reuses the copy).
    let description: DeviceDescription
    private var pending: [TouchFilter.Output] = []
    private var verdicts: [Int: TouchFilter.Verdict] = [:]
    /// Writes that failed; the first is told to `warn`.
    private(set) var failedWrites = 0
    var warn: ((String) -> Void)?

    init(description: DeviceDescription, hold: Double, output: FilterOutputDevice) throws(TouchFilterError) {
        filter = try TouchFilter(device: description, hold: hold)
        self.description = description
        self.output = output
        pending.reserveCapacity(256)
    }

    /// Feeds one event; true when it completed a frame (then `decide`).
    @inline(__always)
    func feed(_ event: InputEvent) -> Bool {
        filter.feed(event)
    }

    /// After a frame the engine has processed: each active slot's verdict
    /// (`verdict(slot)`), then the frames due now are written.
    func decide(at time: Double, verdict: (Int) -> TouchFilter.Verdict) {
        verdicts.removeAll(keepingCapacity: true)
        for slot in filter.activeSlots { verdicts[slot] = verdict(slot) }
        filter.decide(at: time, verdicts: verdicts, into: &pending)
        flush()
    }

    /// Lets held touches go and writes delayed frames due by `time`.
    func advance(to time: Double) {
        filter.advance(to: time, into: &pending)
        flush()
    }

    var nextDeadline: Double? { filter.nextDeadline }

    /// The panel is gone (or the daemon stops): every forwarded touch ends.
    func sourceLost(at time: Double) {
        filter.sourceLost(at: time, into: &pending)
        flush()
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        if !output.write(pending[...]) {
            failedWrites += 1
            if failedWrites == 1 { warn?("filter: a write to \(output.node ?? "the copy") failed; the UI may miss touches") }
        }
        pending.removeAll(keepingCapacity: true)
    }
}
