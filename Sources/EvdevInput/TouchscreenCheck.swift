import Engine

/// Whether a device is a touchscreen, and why (or why not): a direct-touch
/// device (`INPUT_PROP_DIRECT`: the touch lands where it is shown) with
/// multitouch positions (`ABS_MT_POSITION_X`/`Y`) or single-touch ones
/// (`ABS_X`/`Y`). Touchpads (no `INPUT_PROP_DIRECT`), tablets with only
/// pens, keyboards and mice are not.
public struct TouchscreenCheck: Sendable, Equatable {
    public var isTouchscreen: Bool
    /// A short reason: "direct touch, multitouch (10 slots)" or
    /// "not direct-touch (no INPUT_PROP_DIRECT)".
    public var reason: String
    /// Slots of a protocol-B multitouch device, else nil.
    public var slots: Int?

    public init(_ device: DeviceDescription) {
        let multitouch = device.hasAxis(EventCode.ABS_MT_POSITION_X) && device.hasAxis(EventCode.ABS_MT_POSITION_Y)
        let single = device.hasAxis(EventCode.ABS_X) && device.hasAxis(EventCode.ABS_Y)
        let direct = device.properties.contains(EventCode.INPUT_PROP_DIRECT)
        if multitouch, let slot = device.absInfo[EventCode.ABS_MT_SLOT], slot.maximum >= slot.minimum {
            slots = Int(slot.maximum) - Int(slot.minimum) + 1
        } else {
            slots = nil
        }
        let axes: String
        if multitouch {
            axes = slots.map { "multitouch (\($0) slot\($0 == 1 ? "" : "s"))" } ?? "multitouch (protocol A)"
        } else if single {
            axes = "single touch (ABS_X/ABS_Y)"
        } else {
            axes = ""
        }
        switch (direct, axes.isEmpty) {
        case (true, false):
            isTouchscreen = true
            reason = "direct touch, " + axes
        case (false, false):
            isTouchscreen = false
            reason = "not direct-touch (no INPUT_PROP_DIRECT): a touchpad or tablet, " + axes
        case (_, true):
            isTouchscreen = false
            reason = "no position axes (neither ABS_MT_POSITION_X/Y nor ABS_X/Y)"
        }
    }
}

extension DeviceDescription {
    /// `INPUT_PROP_DIRECT` with multitouch or single-touch positions.
    public var isTouchscreen: Bool { TouchscreenCheck(self).isTouchscreen }
}
