import Engine

/// The evdev codes the filter needs beyond the engine's `EventCode`
/// (linux/input-event-codes.h).
enum FilterEventCode {
    static let ABS_PRESSURE: UInt16 = 0x18

    /// The per-contact axes: ABS_MT_TOUCH_MAJOR (0x30) … ABS_MT_TOOL_Y (0x3d).
    /// ABS_MT_SLOT (0x2f) and ABS_MT_TRACKING_ID (0x39) are not axes of a contact.
    static let firstContactAxis: UInt16 = 0x30
    static let lastContactAxis: UInt16 = 0x3d
    static let ABS_MT_PRESSURE: UInt16 = 0x3a
    /// The palm rule's axes: a contact's major axis (in units of its
    /// resolution per mm) and its tool (MT_TOOL_FINGER, MT_TOOL_PALM, …).
    static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
    static let ABS_MT_TOOL_TYPE: UInt16 = 0x37
    /// A tool's position beside the contact's (hovering pens): under
    /// `transform` written as a screen position too.
    static let ABS_MT_TOOL_X: UInt16 = 0x3c
    static let ABS_MT_TOOL_Y: UInt16 = 0x3d

    static let BTN_TOOL_FINGER: UInt16 = 0x145
    static let BTN_TOOL_QUINTTAP: UInt16 = 0x148
    static let BTN_TOOL_DOUBLETAP: UInt16 = 0x14d
    static let BTN_TOOL_TRIPLETAP: UInt16 = 0x14e
    static let BTN_TOOL_QUADTAP: UInt16 = 0x14f

    /// BTN_TOOL_* for exactly 1, 2, 3, 4, 5 fingers (the kernel's
    /// `input_mt_report_finger_count`).
    static let fingerCountKeys: [(code: UInt16, fingers: Int)] = [
        (BTN_TOOL_FINGER, 1), (BTN_TOOL_DOUBLETAP, 2), (BTN_TOOL_TRIPLETAP, 3),
        (BTN_TOOL_QUADTAP, 4), (BTN_TOOL_QUINTTAP, 5),
    ]
}
