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
    /// `ghost_touches`: where and when it came down, while it may still be
    /// a ghost tap (nil once it moved 1 mm, or with the rule off).
    var tap: TapWatch? = nil
    /// `block`: withheld as a finger of a blocked gesture; while such a
    /// touch is down, every new touch is withheld too.
    var blocked = false
}

/// The life of a source touch in the filter. It starts `.held` (began in a
/// start area), `.forwarded` (free), `.swallowed` (claimed, or a palm) or
/// `.withheld` (one too many for `max_contacts`); a held touch is released
/// into `.forwarded` or swallowed; a forwarded one may be swallowed (claimed,
/// or it became a palm); a swallowed or withheld one stays so.
enum Disposition: Sendable {
    /// In a start area and unclaimed, a predicted ghost tap
    /// (`ghost_touches`) not yet 50 ms old, or a further finger of what may
    /// be a blocked gesture (`block`): its frames are recorded,
    /// nothing is output.
    case held(HeldTouch)
    /// Output with a fixed lag: each of its frames (and its end) is due at its
    /// source time + `delay`. 0 for a touch forwarded from its first frame;
    /// release time − first frame time for a released one.
    case forwarded(delay: Double)
    /// Claimed by a transition, a palm, or a finger of a blocked gesture:
    /// the output never gets (any more of) it.
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
    /// The start-area hold's end; nil when the touch is held only as a
    /// predicted ghost (or no longer in a start area).
    var startAreaUntil: Double?
    /// `ghost_touches`: held as a predicted ghost tap until then (its first
    /// frame + 50 ms): a lift by then, still, drops it. nil when not, or
    /// once it moved 1 mm (it is no ghost).
    var ghostUntil: Double?
    /// `block`: held as a further finger of what may be a blocked gesture
    /// until then (its first frame + the hold); nil when not.
    var blockUntil: Double?
    private(set) var frames: [Frame]

    /// The latest time it is held to: the latest of its reasons.
    var deadline: Double {
        max(startAreaUntil ?? firstTime, ghostUntil ?? firstTime, blockUntil ?? firstTime)
    }

    /// True while a reason holds it at `time`.
    func isHeld(at time: Double) -> Bool { deadline > time }

    init(time: Double, values: [Int32], hold: Double) {
        self.init(time: time, values: values, hold: hold, ghostWindow: nil)
    }

    /// `hold`: the start-area hold, nil if it is not in one;
    /// `ghostWindow`: how long it is held as a predicted ghost tap, nil if it is not one.
    init(time: Double, values: [Int32], hold: Double?, ghostWindow: Double?) {
        firstTime = time
        startAreaUntil = hold.map { time + $0 }
        ghostUntil = ghostWindow.map { time + $0 }
        frames = [Frame(time: time, values: values)]
    }

    mutating func record(time: Double, values: [Int32]) {
        frames.append(Frame(time: time, values: values))
    }

    var isFull: Bool { frames.count >= Self.frameLimit }
}
