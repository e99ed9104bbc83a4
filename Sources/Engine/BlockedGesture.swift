/// A gesture filter mode keeps from the UI when no transition claims it
/// (`[filter] block`, a region's `block`, the `filter_regions` command): a
/// pinch, or a swipe of 2–5 fingers. The raw values are the config's and
/// the wire's names.
public enum BlockedGesture: String, Sendable, Hashable, CaseIterable {
    case pinch
    case swipe2 = "swipe-2"
    case swipe3 = "swipe-3"
    case swipe4 = "swipe-4"
    case swipe5 = "swipe-5"

    /// The number of fingers the gesture has.
    public var fingers: Int {
        switch self {
        case .pinch, .swipe2: return 2
        case .swipe3: return 3
        case .swipe4: return 4
        case .swipe5: return 5
        }
    }

    /// The gestures of `set` in declaration order: a set written the same way each time.
    public static func ordered(_ set: Set<BlockedGesture>) -> [BlockedGesture] { allCases.filter(set.contains) }
}

/// The bounds of filter mode's rules, for the config and the
/// `filter_regions` command alike.
public enum FilterLimits {
    /// `max_contacts`: the panels' usual 10 at most.
    public static let contacts = 1...10
    /// `[[filter.region]]` tables, or `filter_regions`' regions, at most.
    public static let regions = 32
}
