import Engine

/// The source panel's multitouch state: per slot its tracking id, the touch
/// in it (a serial number of the filter, new for every new tracking id) and
/// the value of every contact axis. A slot keeps its axis values when its
/// touch ends, as the kernel's slots do.
struct SourceSlots: Sendable, Equatable {
    let axisCount: Int
    private(set) var trackingIDs: [Int32]
    private(set) var touches: [UInt64]
    /// `slotCount × axisCount` values, slot by slot.
    private(set) var values: [Int32]

    init(slotCount: Int, axisCount: Int) {
        self.axisCount = axisCount
        trackingIDs = Array(repeating: -1, count: slotCount)
        touches = Array(repeating: 0, count: slotCount)
        values = Array(repeating: 0, count: slotCount * axisCount)
    }

    var slotCount: Int { trackingIDs.count }

    /// The touch in `slot`, nil if the slot is empty.
    @inline(__always)
    func touch(in slot: Int) -> UInt64? {
        trackingIDs[slot] >= 0 ? touches[slot] : nil
    }

    /// The slots with a touch, ascending.
    var activeSlots: [Int] {
        trackingIDs.indices.filter { trackingIDs[$0] >= 0 }
    }

    func values(of slot: Int) -> [Int32] {
        let base = slot * axisCount
        return Array(values[base..<(base + axisCount)])
    }

    /// The value of contact axis `axis` in `slot`.
    @inline(__always)
    func value(_ axis: Int, in slot: Int) -> Int32 {
        values[slot * axisCount + axis]
    }

    /// True if `slot` has the same axis values here and in `other`.
    func sameValues(in slot: Int, as other: SourceSlots) -> Bool {
        let base = slot * axisCount
        for i in base..<(base + axisCount) where values[i] != other.values[i] { return false }
        return true
    }

    mutating func setTrackingID(_ id: Int32, in slot: Int, newTouch: UInt64) {
        trackingIDs[slot] = id
        if id >= 0 { touches[slot] = newTouch }
    }

    mutating func setValue(_ value: Int32, axis: Int, in slot: Int) {
        values[slot * axisCount + axis] = value
    }
}

/// Reads raw source events into `SourceSlots`. Everything is applied as it
/// comes, including libevdev's resync delta after a SYN_DROPPED marker: that
/// delta brings libevdev's state, which is the device's, so the marker itself
/// needs nothing. Events for a slot out of range, for axes the device does
/// not declare, and of other types (EV_KEY, EV_MSC, …) change nothing.
struct SourceReader: Sendable {
    private let layout: FilterLayout
    private(set) var slots: SourceSlots
    /// The slot per-slot events go to; -1 after an ABS_MT_SLOT out of range.
    private var currentSlot: Int
    private var nextTouch: UInt64 = 1

    init(layout: FilterLayout) {
        self.layout = layout
        slots = SourceSlots(slotCount: layout.slotCount, axisCount: layout.contactAxes.count)
        currentSlot = layout.initialSlot
    }

    /// Applies one event; true for a SYN_REPORT (a frame is complete).
    mutating func read(_ event: InputEvent) -> Bool {
        switch event.type {
        case EventCode.EV_SYN:
            return event.code == EventCode.SYN_REPORT
        case EventCode.EV_ABS:
            absolute(event.code, event.value)
            return false
        default:
            return false
        }
    }

    private mutating func absolute(_ code: UInt16, _ value: Int32) {
        if code == EventCode.ABS_MT_SLOT {
            currentSlot = value >= 0 && Int(value) < slots.slotCount ? Int(value) : -1
            return
        }
        guard currentSlot >= 0 else { return }
        if code == EventCode.ABS_MT_TRACKING_ID {
            let old = slots.trackingIDs[currentSlot]
            if value < 0 {
                slots.setTrackingID(-1, in: currentSlot, newTouch: 0)
            } else if value != old {
                // A new touch, also when the old one did not end first.
                slots.setTrackingID(value, in: currentSlot, newTouch: nextTouch)
                nextTouch &+= 1
            }
        } else if let axis = layout.contactAxis(of: code) {
            slots.setValue(value, axis: axis, in: currentSlot)
        }
    }
}
