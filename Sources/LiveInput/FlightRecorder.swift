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
public struct FlightRecorder: @unchecked Sendable {
    /// The bytes one kept event takes.
    public static let eventSize = MemoryLayout<InputEvent>.stride
    /// The default bound: 4 MiB of events per panel.
    public static let defaultLimitBytes = 4 << 20

    public let seconds: Double
    public let capacity: Int
    /// `seconds` in the events' microseconds.
    private let window: Int64
    /// The events, `capacity` of them once allocated (at the first event).
    /// Reference storage: the host keeps one recorder per panel and never
    /// copies it, so a copy shares it (as a ring buffer's owner would).
    private let storage = Storage()
    private var filled = 0
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

    /// Keeps a batch of events (as the input thread read them), then drops
    /// what the time bound puts out, once for the batch.
    public mutating func append(contentsOf events: ArraySlice<InputEvent>) {
        events.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    public mutating func append(contentsOf events: [InputEvent]) {
        events.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    private mutating func append(contentsOf events: UnsafeBufferPointer<InputEvent>) {
        let ring = storage.events(capacity)
        var last: Int64?
        for event in events {
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED { continue }
            store(event, in: ring)
            last = event.time
        }
        if let last { dropOlder(than: last, in: ring) }
    }

    /// Keeps one event, dropping the oldest past the time or the memory bound.
    @inline(__always)
    public mutating func append(_ event: InputEvent) {
        if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED { return }
        let ring = storage.events(capacity)
        store(event, in: ring)
        dropOlder(than: event.time, in: ring)
    }

    @inline(__always)
    private mutating func store(_ event: InputEvent, in ring: UnsafeMutablePointer<InputEvent>) {
        if filled < capacity {
            ring[filled] = event
            filled += 1
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
    }

    /// Drops the events older than the time bound before `newest` (events
    /// come in time order).
    @inline(__always)
    private mutating func dropOlder(than newest: Int64, in ring: UnsafeMutablePointer<InputEvent>) {
        let oldest = newest &- window
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
        let ring = storage.events(capacity)
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
        filled = 0
        head = 0
        count = 0
        hasDropped = false
    }

    /// The ring's memory, allocated once at its full capacity.
    final class Storage {
        private var pointer: UnsafeMutablePointer<InputEvent>?

        @inline(__always)
        func events(_ capacity: Int) -> UnsafeMutablePointer<InputEvent> {
            if let pointer { return pointer }
            let made = UnsafeMutablePointer<InputEvent>.allocate(capacity: capacity)
            pointer = made
            return made
        }

        deinit { pointer?.deallocate() }
    }
}
