// Names of evdev types, codes and properties (linux/input-event-codes.h) for
// the comments of written evemu files. Only the ones a touch device or a
// pointer uses are listed; others print as `?`.

enum EventNames {
    static func type(_ type: UInt16) -> String {
        types[type] ?? "?"
    }

    static func code(type: UInt16, code: UInt16) -> String {
        let table: [UInt16: String]
        switch type {
        case 0x00: table = syn
        case 0x01: table = key
        case 0x02: table = rel
        case 0x03: table = abs
        case 0x04: table = msc
        default: return "?"
        }
        return table[code] ?? "?"
    }

    static func property(_ property: Int) -> String {
        property >= 0 && property < properties.count ? properties[property] : "?"
    }

    // MARK: Tables

    static let types: [UInt16: String] = [
        0x00: "EV_SYN", 0x01: "EV_KEY", 0x02: "EV_REL", 0x03: "EV_ABS", 0x04: "EV_MSC", 0x05: "EV_SW",
        0x11: "EV_LED", 0x12: "EV_SND", 0x14: "EV_REP", 0x15: "EV_FF", 0x16: "EV_PWR", 0x17: "EV_FF_STATUS",
    ]

    static let syn: [UInt16: String] = [
        0: "SYN_REPORT", 1: "SYN_CONFIG", 2: "SYN_MT_REPORT", 3: "SYN_DROPPED",
    ]

    static let key: [UInt16: String] = [
        0x100: "BTN_0", 0x101: "BTN_1", 0x102: "BTN_2", 0x103: "BTN_3",
        0x110: "BTN_LEFT", 0x111: "BTN_RIGHT", 0x112: "BTN_MIDDLE", 0x113: "BTN_SIDE", 0x114: "BTN_EXTRA",
        0x115: "BTN_FORWARD", 0x116: "BTN_BACK", 0x117: "BTN_TASK",
        0x140: "BTN_TOOL_PEN", 0x141: "BTN_TOOL_RUBBER", 0x142: "BTN_TOOL_BRUSH", 0x143: "BTN_TOOL_PENCIL",
        0x144: "BTN_TOOL_AIRBRUSH", 0x145: "BTN_TOOL_FINGER", 0x146: "BTN_TOOL_MOUSE", 0x147: "BTN_TOOL_LENS",
        0x148: "BTN_TOOL_QUINTTAP", 0x149: "BTN_STYLUS3", 0x14a: "BTN_TOUCH", 0x14b: "BTN_STYLUS",
        0x14c: "BTN_STYLUS2", 0x14d: "BTN_TOOL_DOUBLETAP", 0x14e: "BTN_TOOL_TRIPLETAP",
        0x14f: "BTN_TOOL_QUADTAP",
    ]

    static let rel: [UInt16: String] = [
        0x00: "REL_X", 0x01: "REL_Y", 0x02: "REL_Z", 0x06: "REL_HWHEEL", 0x08: "REL_WHEEL",
        0x0b: "REL_WHEEL_HI_RES", 0x0c: "REL_HWHEEL_HI_RES",
    ]

    static let abs: [UInt16: String] = [
        0x00: "ABS_X", 0x01: "ABS_Y", 0x02: "ABS_Z", 0x03: "ABS_RX", 0x04: "ABS_RY", 0x05: "ABS_RZ",
        0x06: "ABS_THROTTLE", 0x07: "ABS_RUDDER", 0x08: "ABS_WHEEL", 0x09: "ABS_GAS", 0x0a: "ABS_BRAKE",
        0x10: "ABS_HAT0X", 0x11: "ABS_HAT0Y", 0x12: "ABS_HAT1X", 0x13: "ABS_HAT1Y", 0x14: "ABS_HAT2X",
        0x15: "ABS_HAT2Y", 0x16: "ABS_HAT3X", 0x17: "ABS_HAT3Y", 0x18: "ABS_PRESSURE", 0x19: "ABS_DISTANCE",
        0x1a: "ABS_TILT_X", 0x1b: "ABS_TILT_Y", 0x1c: "ABS_TOOL_WIDTH", 0x20: "ABS_VOLUME", 0x21: "ABS_PROFILE",
        0x28: "ABS_MISC", 0x2e: "ABS_RESERVED", 0x2f: "ABS_MT_SLOT", 0x30: "ABS_MT_TOUCH_MAJOR",
        0x31: "ABS_MT_TOUCH_MINOR", 0x32: "ABS_MT_WIDTH_MAJOR", 0x33: "ABS_MT_WIDTH_MINOR",
        0x34: "ABS_MT_ORIENTATION", 0x35: "ABS_MT_POSITION_X", 0x36: "ABS_MT_POSITION_Y",
        0x37: "ABS_MT_TOOL_TYPE", 0x38: "ABS_MT_BLOB_ID", 0x39: "ABS_MT_TRACKING_ID", 0x3a: "ABS_MT_PRESSURE",
        0x3b: "ABS_MT_DISTANCE", 0x3c: "ABS_MT_TOOL_X", 0x3d: "ABS_MT_TOOL_Y",
    ]

    static let msc: [UInt16: String] = [
        0x00: "MSC_SERIAL", 0x01: "MSC_PULSELED", 0x02: "MSC_GESTURE", 0x03: "MSC_RAW", 0x04: "MSC_SCAN",
        0x05: "MSC_TIMESTAMP",
    ]

    static let properties = [
        "INPUT_PROP_POINTER", "INPUT_PROP_DIRECT", "INPUT_PROP_BUTTONPAD", "INPUT_PROP_SEMI_MT",
        "INPUT_PROP_TOPBUTTONPAD", "INPUT_PROP_POINTING_STICK", "INPUT_PROP_ACCELEROMETER",
    ]
}
