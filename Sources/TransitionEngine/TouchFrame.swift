/// One finger on the panel at one frame, in normalised coordinates
/// (0…1 per axis, x to the right, y down).
public struct Contact: Sendable, Equatable {
    /// Unique for the whole life of one touch (never reused by the assembler).
    public var id: Int
    public var x: Double
    public var y: Double
    /// Where this touch first appeared (its touch-down position).
    public var downX: Double
    public var downY: Double

    public init(id: Int, x: Double, y: Double, downX: Double? = nil, downY: Double? = nil) {
        self.id = id
        self.x = x
        self.y = y
        self.downX = downX ?? x
        self.downY = downY ?? y
    }
}

/// The device state at one `SYN_REPORT`: the time and every contact down.
public struct TouchFrame: Sendable, Equatable {
    /// Seconds on the input's clock.
    public var time: Double
    public var contacts: [Contact]

    public init(time: Double, contacts: [Contact]) {
        self.time = time
        self.contacts = contacts
    }
}

extension Array {
    /// Empties a short array in place, keeping its memory: cheaper per frame
    /// than `removeAll(keepingCapacity:)`, which goes through the general
    /// range replacement.
    @inline(__always)
    mutating func clearKeepingCapacity() {
        while !isEmpty { removeLast() }
    }
}
