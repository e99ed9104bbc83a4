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

/// The state of one touchscreen at one `SYN_REPORT`: the time and every
/// contact down on it. With several touchscreens, each has its own frames
/// (`source`): contact ids are unique within a source, and contacts of two
/// sources never make one gesture.
public struct TouchFrame: Sendable, Equatable {
    /// Seconds on the input's clock.
    public var time: Double
    public var contacts: [Contact]
    /// Which touchscreen (0 with one; an index below `maximumSources`).
    public var source: Int
    /// Contacts of the frame before that are gone from this one without
    /// lifting (a palm, a stuck contact: `TouchFrameAssembler`): a gesture
    /// one of them takes part in is cancelled with its reason, never
    /// released. Empty in almost every frame.
    public var withdrawn: [WithdrawnContact] = []

    /// How many touchscreens the engine tells apart; a frame of a source
    /// beyond them is ignored (the input side never numbers one so high).
    public static let maximumSources = 64

    public init(time: Double, contacts: [Contact], source: Int = 0) {
        self.time = time
        self.contacts = contacts
        self.source = source
    }
}

/// A contact taken out of the frames without lifting, and why.
public struct WithdrawnContact: Sendable, Equatable {
    public var id: Int
    /// `.palm` or `.stuck`.
    public var reason: EndReason

    public init(id: Int, reason: EndReason) {
        self.id = id
        self.reason = reason
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
