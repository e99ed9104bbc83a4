/// One evdev event as read from a device or a recording: `struct input_event`
/// without the kernel's layout. Time is whole microseconds on the input's
/// clock (kernel timestamps live, recording timestamps in a replay), kept as
/// an integer so that parsing and comparing never round.
public struct InputEvent: Sendable, Equatable, Hashable {
    /// Microseconds on the input's clock.
    public var time: Int64
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    @inlinable
    public init(time: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.time = time
        self.type = type
        self.code = code
        self.value = value
    }
}

/// The evdev type and code numbers the engine understands (linux/input-event-codes.h).
public enum EventCode {
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_ABS: UInt16 = 0x03

    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_MT_REPORT: UInt16 = 2
    public static let SYN_DROPPED: UInt16 = 3

    public static let BTN_TOUCH: UInt16 = 0x14a

    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    /// A contact's major axis (in units of the axis's resolution per mm).
    public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    /// A contact's tool: MT_TOOL_FINGER (0), MT_TOOL_PEN (1), MT_TOOL_PALM (2), …
    public static let ABS_MT_TOOL_TYPE: UInt16 = 0x37
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39

    public static let INPUT_PROP_DIRECT: Int = 0x01

    /// A readable name for the codes above, for error messages.
    public static func absName(_ code: UInt16) -> String {
        switch code {
        case ABS_X: return "ABS_X"
        case ABS_Y: return "ABS_Y"
        case ABS_MT_SLOT: return "ABS_MT_SLOT"
        case ABS_MT_TOUCH_MAJOR: return "ABS_MT_TOUCH_MAJOR"
        case ABS_MT_TOOL_TYPE: return "ABS_MT_TOOL_TYPE"
        case ABS_MT_POSITION_X: return "ABS_MT_POSITION_X"
        case ABS_MT_POSITION_Y: return "ABS_MT_POSITION_Y"
        case ABS_MT_TRACKING_ID: return "ABS_MT_TRACKING_ID"
        default: return "ABS 0x" + String(code, radix: 16)
        }
    }
}
