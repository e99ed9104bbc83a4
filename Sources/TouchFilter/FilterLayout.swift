import Engine

/// What the filter takes from a device description, checked once: the slot
/// count, the per-contact axes it carries, the key bits and the single-touch
/// axes it computes for the clone.
struct FilterLayout: Sendable {
    /// One key bit of the clone, computed from the number of output touches.
    struct KeyBit: Sendable, Equatable {
        enum Rule: Sendable, Equatable {
            /// BTN_TOUCH: on while any touch is down.
            case anyTouch
            /// BTN_TOOL_FINGER … QUINTTAP: on for exactly this many touches.
            case exactly(Int)
        }
        let code: UInt16
        let rule: Rule

        func isOn(touches count: Int) -> Bool {
            switch rule {
            case .anyTouch: return count > 0
            case .exactly(let n): return count == n
            }
        }
    }

    /// One single-touch axis of the clone (ABS_X, ABS_Y, ABS_PRESSURE), taken
    /// from the oldest output touch as the kernel's
    /// `input_mt_report_pointer_emulation` does.
    struct PointerAxis: Sendable, Equatable {
        let code: UInt16
        /// Index of the contact axis it copies, in `contactAxes`.
        let contactAxis: Int
        /// Its value while no touch is down; nil keeps the last one (X and Y).
        let idle: Int32?
    }

    let deviceName: String
    let slotCount: Int
    /// The slot the source starts in (ABS_MT_SLOT's absinfo value, if valid).
    let initialSlot: Int
    /// The ABS_MT_* axes of one contact the device declares, POSITION_X and
    /// POSITION_Y first, then by code.
    let contactAxes: [UInt16]
    /// Index in `contactAxes` by code (0..<64), or -1.
    private let contactAxisIndex: [Int]
    /// BTN_TOUCH then BTN_TOOL_FINGER … QUINTTAP, those the device declares.
    let keys: [KeyBit]
    let pointerAxes: [PointerAxis]

    init(device: DeviceDescription) throws(TouchFilterError) {
        let name = device.name
        guard device.hasAxis(EventCode.ABS_MT_SLOT) else {
            throw TouchFilterError("filter mode needs a multitouch protocol B panel (ABS_MT_SLOT): \"\(name)\" has none")
        }
        guard let slotInfo = device.absInfo[EventCode.ABS_MT_SLOT] else {
            throw TouchFilterError("filter mode needs the range of ABS_MT_SLOT to know the slot count: \"\(name)\" declares the axis without one")
        }
        guard slotInfo.minimum == 0, slotInfo.maximum >= 0, slotInfo.maximum <= 255 else {
            throw TouchFilterError("filter mode needs ABS_MT_SLOT to range 0…N with N < 256: \"\(name)\" has \(slotInfo.minimum)…\(slotInfo.maximum)")
        }
        guard device.hasAxis(EventCode.ABS_MT_TRACKING_ID) else {
            throw TouchFilterError("filter mode needs a multitouch protocol B panel (ABS_MT_TRACKING_ID): \"\(name)\" has ABS_MT_SLOT but no ABS_MT_TRACKING_ID")
        }
        deviceName = name
        slotCount = Int(slotInfo.maximum) + 1
        initialSlot = slotInfo.value >= 0 && slotInfo.value <= slotInfo.maximum ? Int(slotInfo.value) : 0

        var axes: [UInt16] = []
        for code in [EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y] where device.hasAxis(code) {
            axes.append(code)
        }
        for code in FilterEventCode.firstContactAxis...FilterEventCode.lastContactAxis
        where code != EventCode.ABS_MT_TRACKING_ID && !axes.contains(code) && device.hasAxis(code) {
            axes.append(code)
        }
        contactAxes = axes
        var index = Array(repeating: -1, count: 64)
        for (i, code) in axes.enumerated() { index[Int(code)] = i }
        contactAxisIndex = index

        var keys: [KeyBit] = []
        if device.supports(type: EventCode.EV_KEY, code: EventCode.BTN_TOUCH) {
            keys.append(KeyBit(code: EventCode.BTN_TOUCH, rule: .anyTouch))
        }
        for (code, fingers) in FilterEventCode.fingerCountKeys where device.supports(type: EventCode.EV_KEY, code: code) {
            keys.append(KeyBit(code: code, rule: .exactly(fingers)))
        }
        self.keys = keys

        var pointer: [PointerAxis] = []
        let emulated: [(UInt16, UInt16, Int32?)] = [
            (EventCode.ABS_X, EventCode.ABS_MT_POSITION_X, nil),
            (EventCode.ABS_Y, EventCode.ABS_MT_POSITION_Y, nil),
            (FilterEventCode.ABS_PRESSURE, FilterEventCode.ABS_MT_PRESSURE, 0),
        ]
        for (code, source, idle) in emulated where device.hasAxis(code) {
            let i = index[Int(source)]
            if i >= 0 { pointer.append(PointerAxis(code: code, contactAxis: i, idle: idle)) }
        }
        pointerAxes = pointer
    }

    /// The index in `contactAxes` of an ABS code, if the filter carries it.
    @inline(__always)
    func contactAxis(of code: UInt16) -> Int? {
        guard code < 64 else { return nil }
        let i = contactAxisIndex[Int(code)]
        return i >= 0 ? i : nil
    }
}
