/// When a contact is a palm rather than a finger (issue 27, "palms"): the
/// panel says so (`ABS_MT_TOOL_TYPE` = `MT_TOOL_PALM`), or its major axis
/// (`ABS_MT_TOUCH_MAJOR`) is over `[filter] palm_mm` millimetres, read
/// through the axis's declared resolution (units per mm). Without a
/// resolution there are no millimetres: then only the tool type tells.
/// One rule for the engine's frames (`TouchFrameAssembler`) and the filter's
/// copy, so that neither ever sees a palm the other takes for a finger.
public struct PalmRule: Sendable, Equatable {
    /// ABS_MT_TOOL_TYPE's value for a palm (linux/input.h `MT_TOOL_PALM`).
    public static let palmTool: Int32 = 2

    /// The ABS_MT_TOUCH_MAJOR value over which a contact is a palm
    /// (`palm_mm` × the axis's resolution); nil when no `palm_mm` is given,
    /// the device has no such axis or it declares no resolution.
    public let majorOver: Double?

    /// `millimetres`: `palm_mm` (nil: the tool type only). A value that is
    /// not a finite number > 0 gives no threshold (the config refuses one).
    public init(millimetres: Double?, device: DeviceDescription) {
        if let mm = millimetres, mm.isFinite, mm > 0,
           let resolution = device.absInfo[EventCode.ABS_MT_TOUCH_MAJOR]?.resolution, resolution > 0 {
            majorOver = mm * Double(resolution)
        } else {
            majorOver = nil
        }
    }

    /// The panel's tool type only.
    public static let toolTypeOnly = PalmRule()
    private init() { majorOver = nil }

    /// True for a contact of this tool type and major axis.
    @inline(__always)
    public func isPalm(tool: Int32, major: Int32) -> Bool {
        if tool == Self.palmTool { return true }
        if let majorOver, Double(major) > majorOver { return true }
        return false
    }
}
