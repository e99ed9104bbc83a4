/// One source touch (from its tracking id to its end) and what the filter
/// does with it.
struct SourceTouch: Sendable {
    /// The touch's serial number (`SourceSlots.touch(in:)`).
    let id: UInt64
    var disposition: Disposition
    /// The `max_contacts` in force where it began (nil: none): while it is
    /// held or forwarded, no touch is admitted that would make the copy's
    /// touches more than this.
    var limit: Int? = nil
}

/// The life of a source touch in the filter. It starts `.held` (began in a
/// start area), `.forwarded` (free), `.swallowed` (claimed, or a palm) or
/// `.withheld` (one too many for `max_contacts`); a held touch is released
/// into `.forwarded` or swallowed; a forwarded one may be swallowed (claimed,
/// or it became a palm); a swallowed or withheld one stays so.
enum Disposition: Sendable {
    /// In a start area and unclaimed: its frames are recorded, nothing is output.
    case held(HeldTouch)
    /// Output with a fixed lag: each of its frames (and its end) is due at its
    /// source time + `delay`. 0 for a touch forwarded from its first frame;
    /// release time − first frame time for a released one.
    case forwarded(delay: Double)
    /// Claimed by a transition, or a palm: the output never gets (any more of) it.
    case swallowed
    /// It began when the copy had as many touches as `max_contacts` allows:
    /// the output never gets any of it, even once others lift (a touch that
    /// appeared mid-touch would be a finger the UI never saw land).
    case withheld
}

/// A held touch's recorded frames: the first one's time, the time its hold
/// expires, and each frame in which its axis values changed.
struct HeldTouch: Sendable {
    /// Frames kept per held touch at most; a touch reaching it is released.
    static let frameLimit = 1024

    struct Frame: Sendable {
        var time: Double
        var values: [Int32]
    }

    let firstTime: Double
    let deadline: Double
    private(set) var frames: [Frame]

    init(time: Double, values: [Int32], hold: Double) {
        firstTime = time
        deadline = time + hold
        frames = [Frame(time: time, values: values)]
    }

    mutating func record(time: Double, values: [Int32]) {
        frames.append(Frame(time: time, values: values))
    }

    var isFull: Bool { frames.count >= Self.frameLimit }
}
