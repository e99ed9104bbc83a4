import Engine

/// The config's `[filter]` table: what of a panel the UI's copy never gets,
/// besides the touches a transition claims, and how the copy is written.
/// Applies in filter mode (`[input] mode = "filter"`). A value; with the
/// defaults (every key off) the copy is the panel less what transitions
/// claim and what the panel itself reports as a palm (`MT_TOOL_PALM`).
public struct FilterRules: Sendable, Equatable {
    /// `max_contacts`: the copy never has more touches down at once than
    /// this; a touch that would be one more is withheld until it lifts
    /// (it never appears mid-touch). nil: as many as the panel has.
    public var maxContacts: Int?
    /// `block`: gestures the engine recognises but no transition claims,
    /// withheld from the UI with the same hold as an edge touch.
    public var block: Set<BlockedGesture>
    /// `ghost_touches`: what is done with the ghost taps of a panel.
    public var ghostTouches: GhostTouchPolicy
    /// `stuck_after`: seconds with no report for a touch while the panel is
    /// otherwise silent, after which it is ended (nil: never).
    public var stuckAfter: Double?
    /// `palm_mm`: a touch whose major axis is over this many millimetres
    /// is a palm (nil: only what the panel reports as `MT_TOOL_PALM`).
    public var palmMillimetres: Double?
    /// `transform`: the copy carries the screen's geometry (rotation,
    /// flips, calibration) rather than the panel's raw positions.
    public var transform: Bool
    /// `[[filter.region]]`: rectangles that override `max_contacts` and
    /// `block` inside them (by where a touch begins), in order: the first
    /// that contains the point applies.
    public var regions: [FilterRegion]

    public init(maxContacts: Int? = nil, block: Set<BlockedGesture> = [], ghostTouches: GhostTouchPolicy = .off,
                stuckAfter: Double? = nil, palmMillimetres: Double? = nil, transform: Bool = false,
                regions: [FilterRegion] = []) {
        self.maxContacts = maxContacts
        self.block = block
        self.ghostTouches = ghostTouches
        self.stuckAfter = stuckAfter
        self.palmMillimetres = palmMillimetres
        self.transform = transform
        self.regions = regions
    }

    /// Every key off.
    public static let none = FilterRules()

    /// The `max_contacts` in force for a touch that begins at `(x, y)`
    /// (screen units, 0…1).
    public func maxContacts(atX x: Double, y: Double) -> Int? {
        for region in regions where region.contains(x: x, y: y) { return region.maxContacts ?? maxContacts }
        return maxContacts
    }

    /// Some gesture is blocked, by the table or a region.
    public var blocksGestures: Bool {
        !block.isEmpty || regions.contains { !($0.block ?? []).isEmpty }
    }

    /// The `block` list in force for a gesture that begins at `(x, y)`.
    public func block(atX x: Double, y: Double) -> Set<BlockedGesture> {
        for region in regions where region.contains(x: x, y: y) { return region.block ?? block }
        return block
    }
}

/// `ghost_touches`.
public enum GhostTouchPolicy: String, Sendable, CaseIterable {
    /// Every touch is a touch.
    case off
    /// Periodic zero-motion taps at one place are quarantined once the
    /// pattern is seen (docs: "Ghost touches").
    case quarantine
}

/// `[[filter.region]]`: a rectangle in screen units (0…1, after the
/// panel's geometry) with its own `max_contacts` and `block` (nil: the
/// table's).
public struct FilterRegion: Sendable, Equatable {
    public var x: ClosedRange<Double>
    public var y: ClosedRange<Double>
    public var maxContacts: Int?
    public var block: Set<BlockedGesture>?

    public init(x: ClosedRange<Double>, y: ClosedRange<Double>, maxContacts: Int? = nil,
                block: Set<BlockedGesture>? = nil) {
        self.x = x
        self.y = y
        self.maxContacts = maxContacts
        self.block = block
    }

    public func contains(x px: Double, y py: Double) -> Bool { x.contains(px) && y.contains(py) }
}
