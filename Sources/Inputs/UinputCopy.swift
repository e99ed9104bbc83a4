import EvdevInput
import TouchFilter
import Engine

/// Where a filtered panel's forwarded touches go: its uinput copy, or (in
/// tests) anything that takes whole frames of events.
public protocol FilterOutputDevice: AnyObject {
    /// The copy's node (`/dev/input/eventN`), when known.
    var node: String? { get }
    /// Writes the events in order; false when the device refused one.
    func write(_ events: ArraySlice<TouchFilterMachine.Output>) -> Bool
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

    public func write(_ events: ArraySlice<TouchFilterMachine.Output>) -> Bool {
        for e in events where device.write(type: e.type, code: e.code, value: e.value) != 0 { return false }
        return true
    }

    public func remove() { device.destroy() }
}
