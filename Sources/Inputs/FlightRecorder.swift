import Engine

/// The last seconds of one panel's raw input, kept so that a misfire in the
/// field can be replayed (`dump`, `[input] flight_recorder`): a ring of
/// events bounded both by time (`seconds` before the newest event) and by
/// memory (`capacity` events, `InputEvent.size` bytes each), whichever is
/// less. Appending is O(1) and allocates nothing once the ring is full.
///
/// `SYN_DROPPED` markers are not kept: the resync delta that follows them is
/// the device's state, and a recording replays it as ordinary events (as
/// `transitiond record` does).
public struct FlightRecorder {
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
    /// The device's position state where the ring starts, from what was
    /// dropped (the kernel leaves out a value equal to the last one, so a
    /// dump must say the slot selected and each slot's last position).
    private var start: PositionState

    /// The selected multitouch slot and the last positions, per slot and
    /// of the single-touch axes.
    struct PositionState {
        /// No value known (the kernel's slots are 0…255).
        static let unknown = Int32.min
        var slot: Int32
        var x = [Int32](repeating: PositionState.unknown, count: 256)
        var y = [Int32](repeating: PositionState.unknown, count: 256)
        var absX: Int32?
        var absY: Int32?

        @inline(__always)
        mutating func apply(_ event: InputEvent) {
            guard event.type == EventCode.EV_ABS else { return }
            switch event.code {
            case EventCode.ABS_MT_SLOT: slot = event.value
            case EventCode.ABS_MT_POSITION_X: if slot >= 0 && slot < 256 { x[Int(slot)] = event.value }
            case EventCode.ABS_MT_POSITION_Y: if slot >= 0 && slot < 256 { y[Int(slot)] = event.value }
            case EventCode.ABS_X: absX = event.value
            case EventCode.ABS_Y: absY = event.value
            default: return
            }
        }

        /// Events that set this state, ending with the selected slot.
        func events(at time: Int64) -> [InputEvent] {
            var out: [InputEvent] = []
            func abs(_ code: UInt16, _ value: Int32) {
                out.append(InputEvent(time: time, type: EventCode.EV_ABS, code: code, value: value))
            }
            for s in 0..<256 where x[s] != Self.unknown || y[s] != Self.unknown {
                abs(EventCode.ABS_MT_SLOT, Int32(s))
                if x[s] != Self.unknown { abs(EventCode.ABS_MT_POSITION_X, x[s]) }
                if y[s] != Self.unknown { abs(EventCode.ABS_MT_POSITION_Y, y[s]) }
            }
            if let absX { abs(EventCode.ABS_X, absX) }
            if let absY { abs(EventCode.ABS_Y, absY) }
            if !out.isEmpty { abs(EventCode.ABS_MT_SLOT, slot) }
            return out
        }
    }

    /// A ring of the last `seconds` of events, at most `limitBytes` of them.
    /// `slot`: the multitouch slot selected when the panel was attached.
    public init(seconds: Double, limitBytes: Int = FlightRecorder.defaultLimitBytes, slot: Int32 = 0) {
        start = PositionState(slot: slot)
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
            if count == capacity { start.apply(ring[i]) }
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
            start.apply(ring[head])
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
        var state = start
        var touching: Bool? = nil
        var firstFrame: (index: Int, state: PositionState, time: Int64)? = nil
        var quiet: (index: Int, state: PositionState, time: Int64)? = nil
        for k in 0..<count {
            let event = ring[(head + k) % capacity]
            state.apply(event)
            if event.type == EventCode.EV_KEY && event.code == EventCode.BTN_TOUCH {
                touching = event.value != 0
            } else if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT {
                if firstFrame == nil { firstFrame = (k + 1, state, event.time) }
                if touching == false {
                    quiet = (k + 1, state, event.time)
                    break
                }
            }
        }
        guard let from = quiet ?? (touching == nil ? firstFrame : nil) else { return Dump(events: [], slot: nil) }
        // The state there as events of their own frame, so a replay starts
        // from where the fingers and the slot really were.
        var out = from.state.events(at: from.time)
        if !out.isEmpty { out.append(InputEvent(time: from.time, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0)) }
        out.reserveCapacity(out.count + count - from.index)
        for k in from.index..<count { out.append(ring[(head + k) % capacity]) }
        return Dump(events: out, slot: from.state.slot)
    }

    /// Forgets everything (another panel took the place).
    public mutating func clear() {
        filled = 0
        head = 0
        count = 0
        hasDropped = false
        start = PositionState(slot: start.slot)
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
