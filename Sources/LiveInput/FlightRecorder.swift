import TransitionEngine

/// The last seconds of one panel's raw input, kept so that a misfire in the
/// field can be replayed (`dump`, `[input] flight_recorder`): a ring of
/// events bounded both by time (`seconds` before the newest event) and by
/// memory (`capacity` events, `InputEvent.size` bytes each), whichever is
/// less. Appending is O(1) and allocates nothing once the ring is full.
///
/// `SYN_DROPPED` markers are not kept: the resync delta that follows them is
/// the device's state, and a recording replays it as ordinary events (as
/// `transitiond record` does).
public struct FlightRecorder: Sendable {
    /// The bytes one kept event takes.
    public static let eventSize = MemoryLayout<InputEvent>.stride
    /// The default bound: 4 MiB of events per panel.
    public static let defaultLimitBytes = 4 << 20

    public let seconds: Double
    public let capacity: Int
    /// `seconds` in the events' microseconds.
    private let window: Int64
    private var ring: [InputEvent] = []
    private var head = 0
    public private(set) var count = 0
    /// Whether anything was dropped yet: until then the ring holds all
    /// since the panel was attached, with no finger down at its start.
    public private(set) var hasDropped = false

    /// A ring of the last `seconds` of events, at most `limitBytes` of them.
    public init(seconds: Double, limitBytes: Int = FlightRecorder.defaultLimitBytes) {
        self.seconds = seconds.isFinite && seconds > 0 ? min(seconds, 1e9) : 0
        capacity = max(1, limitBytes / Self.eventSize)
        window = Int64(self.seconds * 1e6)
    }

    /// The bytes the kept events take (never more than the limit).
    public var bytes: Int { count * Self.eventSize }

    /// Keeps one event, dropping the oldest past the time or the memory bound.
    @inline(__always)
    public mutating func append(_ event: InputEvent) {
        if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED { return }
        if ring.count < capacity {
            if ring.capacity == 0 { ring.reserveCapacity(min(capacity, 4096)) }
            ring.append(event)
            count += 1
        } else {
            var i = head + count
            if i >= capacity { i -= capacity }
            ring[i] = event
            if count == capacity {
                head += 1
                if head == capacity { head = 0 }
                hasDropped = true
            } else {
                count += 1
            }
        }
        // Older than the time bound: out (events come in time order).
        let oldest = event.time &- window
        while count > 1 && ring[head].time < oldest {
            head += 1
            if head == capacity { head = 0 }
            count -= 1
            hasDropped = true
        }
    }

    /// What a dump holds: everything since the panel was attached while
    /// nothing was dropped; else the kept events from the first moment no
    /// finger was down (a frame that ends with `BTN_TOUCH` 0: a gesture cut
    /// by the ring's start is left out, not replayed half), and the
    /// multitouch slot selected at that moment (a recording starts from its
    /// description's `ABS_MT_SLOT` value). A device that never reports
    /// `BTN_TOUCH` starts at its first whole frame.
    public struct Dump: Sendable, Equatable {
        public var events: [InputEvent]
        public var slot: Int32?
    }

    /// The dump of what is kept now.
    public func dump() -> Dump {
        if !hasDropped {
            var all: [InputEvent] = []
            all.reserveCapacity(count)
            for k in 0..<count { all.append(ring[(head + k) % capacity]) }
            return Dump(events: all, slot: nil)
        }
        var slot: Int32? = nil
        var touching: Bool? = nil
        var firstFrame: Int? = nil
        var quiet: Int? = nil
        var slotAtQuiet: Int32? = nil
        for k in 0..<count {
            let event = ring[(head + k) % capacity]
            if event.type == EventCode.EV_ABS && event.code == EventCode.ABS_MT_SLOT {
                slot = event.value
            } else if event.type == EventCode.EV_KEY && event.code == EventCode.BTN_TOUCH {
                touching = event.value != 0
            } else if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT {
                if firstFrame == nil { firstFrame = k + 1 }
                if touching == false {
                    quiet = k + 1
                    slotAtQuiet = slot
                    break
                }
            }
        }
        let start = quiet ?? (touching == nil ? firstFrame : nil) ?? count
        var out: [InputEvent] = []
        out.reserveCapacity(count - start)
        for k in start..<count { out.append(ring[(head + k) % capacity]) }
        return Dump(events: out, slot: quiet != nil ? slotAtQuiet : nil)
    }

    /// Forgets everything (another panel took the place).
    public mutating func clear() {
        ring.removeAll(keepingCapacity: true)
        head = 0
        count = 0
        hasDropped = false
    }
}
