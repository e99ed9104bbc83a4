/// The range of one absolute axis (`struct input_absinfo`).
public struct AbsInfo: Sendable, Equatable, Hashable {
    public var value: Int32
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    public var resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32,
                fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// What a device is: its name and ids, the event codes it supports, its
/// properties and the ranges of its absolute axes. Read from an evemu header
/// or a `libinput record` file, or (live) from the kernel; the engine needs it
/// to pick the touch protocol and to normalise positions.
public struct DeviceDescription: Sendable, Equatable {
    public var name: String
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// Supported codes per event type (EV_SYN, EV_KEY, EV_ABS, …).
    public var codes: [UInt16: Set<UInt16>]
    /// Input properties (INPUT_PROP_*) that are set.
    public var properties: Set<Int>
    /// Absolute axis ranges, by ABS_* code.
    public var absInfo: [UInt16: AbsInfo]

    public init(name: String, bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0,
                version: UInt16 = 0, codes: [UInt16: Set<UInt16>] = [:],
                properties: Set<Int> = [], absInfo: [UInt16: AbsInfo] = [:]) {
        self.name = name
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
        self.codes = codes
        self.properties = properties
        self.absInfo = absInfo
    }

    public func supports(type: UInt16, code: UInt16) -> Bool {
        codes[type]?.contains(code) ?? false
    }

    /// True if the device has an absolute axis `code` (an absinfo or a code bit).
    public func hasAxis(_ code: UInt16) -> Bool {
        absInfo[code] != nil || supports(type: EventCode.EV_ABS, code: code)
    }
}
