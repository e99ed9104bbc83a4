import WireProtocol

/// A client's picture of every transition, rebuilt from the stream: `apply`
/// each message and read each transition's phase, progress, velocity,
/// values and last decision. `hello` and `state` reset it from their
/// snapshot; when the connection drops, `syntheticCancellations` closes
/// whatever was left half-way.
public struct StreamMirror: Sendable, Equatable {
    /// One transition as the stream last described it.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var gesture: String?
        public var fingers: Int?
        /// Where it comes from: an edge-pan's edge, a swipe's or pinch's direction.
        public var edge: String?
        public var direction: String?
        public var phase: TransitionPhase = .idle
        public var progress: Double = 0
        public var velocity: Double = 0
        public var values: [PropertyValue] = []
        /// The animation's target while animating.
        public var target: Double?
        /// Its snap points (nil without), and the one it rests at: from
        /// `hello`/`state`, then each `finished`.
        public var snapPoints: [Double]?
        public var rest: Double?
        /// The last `ended`'s decision and reason (cleared by `began`).
        public var decision: TransitionUpdate.Decision?
        public var reason: TransitionUpdate.Reason?
        /// The time of the last event.
        public var time: Double = 0
        /// How many times this client saw it finish and cancel (kept across
        /// `hello`/`state` resets).
        public var finished = 0
        public var cancelled = 0
        /// The values last seen at progress 0 (the keyframe tracks' resting
        /// values), for a synthetic `cancelled`; nil until seen.
        public var restingValues: [PropertyValue]?

        public init(name: String) { self.name = name }
    }

    /// In the order of the last snapshot's `transitions`; a transition first
    /// seen in an event is appended.
    public private(set) var entries: [Entry] = []
    /// The seq of the last event applied, or of the last snapshot.
    public private(set) var lastSeq: UInt64 = 0
    /// The latest event time seen (seconds on the daemon's input clock).
    public private(set) var lastTime: Double = 0
    /// The last `hello` (nil before the first).
    public private(set) var hello: StreamSnapshot?

    public init(names: [String] = []) {
        entries = names.map { Entry(name: $0) }
    }

    /// The entry for `name`, or nil.
    public func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// The transitions not idle, in order.
    public var inFlight: [Entry] {
        entries.filter { $0.phase != .idle }
    }

    // MARK: Applying messages

    /// Updates the mirror with one message. Replies and unknown types change
    /// nothing.
    public mutating func apply(_ message: StreamMessage) {
        switch message {
        case .hello(let snapshot):
            hello = snapshot
            reset(to: snapshot)
        case .state(let snapshot, _):
            reset(to: snapshot)
        case .event(let update):
            apply(update)
        case .pong, .clock, .ok, .error, .dump, .unknown:
            break
        }
    }

    /// Updates the mirror with one event.
    public mutating func apply(_ update: TransitionUpdate) {
        let index = entries.firstIndex { $0.name == update.transition } ?? {
            entries.append(Entry(name: update.transition))
            return entries.count - 1
        }()
        lastSeq = update.seq
        lastTime = max(lastTime, update.time)
        var entry = entries[index]
        entry.progress = update.progress
        entry.velocity = update.velocity
        entry.values = update.values
        entry.time = update.time
        if update.progress == 0 && !update.values.isEmpty { entry.restingValues = update.values }
        switch update.kind {
        case .began:
            entry.phase = .interacting
            entry.decision = nil
            entry.reason = nil
            entry.target = nil
        case .changed:
            entry.phase = .interacting
        case .ended:
            entry.phase = .animating
            entry.decision = update.decision
            entry.reason = update.reason
            entry.target = update.target ?? update.decision?.target
        case .animating:
            entry.phase = .animating
            if let target = update.target { entry.target = target }
        case .finished:
            entry.phase = .idle
            entry.target = nil
            entry.finished += 1
            if entry.snapPoints != nil { entry.rest = update.progress }
        case .cancelled:
            entry.phase = .idle
            entry.target = nil
            entry.cancelled += 1
        }
        entries[index] = entry
    }

    /// Rebuilds the entries from a snapshot: every configured transition
    /// idle, then each `active` one interacting or animating at its
    /// progress. Counts and resting values carry over by name.
    private mutating func reset(to snapshot: StreamSnapshot) {
        let previous = entries
        func fresh(_ name: String) -> Entry {
            var entry = Entry(name: name)
            if let old = previous.first(where: { $0.name == name }) {
                entry.finished = old.finished
                entry.cancelled = old.cancelled
                entry.restingValues = old.restingValues
            }
            return entry
        }
        entries = snapshot.transitions.map { info in
            var entry = fresh(info.name)
            entry.gesture = info.gesture
            entry.fingers = info.fingers
            entry.edge = info.edge
            entry.direction = info.direction
            entry.snapPoints = info.snapPoints
            entry.rest = info.rest
            if let rest = info.rest { entry.progress = rest }
            return entry
        }
        for active in snapshot.active {
            var index = entries.firstIndex { $0.name == active.transition }
            if index == nil {
                entries.append(fresh(active.transition))
                index = entries.count - 1
            }
            var entry = entries[index!]
            entry.phase = active.phase
            entry.progress = active.progress
            entry.values = active.values
            entry.target = active.phase == .animating ? active.target : nil
            if let target = entry.target {
                entry.decision = entry.snapPoints != nil ? .snap : target >= 0.5 ? .finish : .cancel
            }
            entries[index!] = entry
        }
        lastSeq = snapshot.seq ?? 0
    }

    // MARK: Connection loss

    /// For every transition in flight, a `cancelled` at progress 0 (or the
    /// snap point it rests at) and velocity 0, marked synthetic, so nothing downstream stays half-way
    /// when the connection drops. Seqs continue from `lastSeq`; `values` are
    /// the transition's resting values when the mirror has seen them (an
    /// event at progress 0), else empty: the client cannot evaluate the
    /// daemon's keyframe tracks. Apply them to settle the mirror.
    public func syntheticCancellations(time: Double) -> [TransitionUpdate] {
        inFlight.enumerated().map { k, entry in
            TransitionUpdate(kind: .cancelled, transition: entry.name, seq: lastSeq + UInt64(k) + 1, time: time,
                             progress: entry.rest ?? 0, velocity: 0,
                             values: entry.rest == nil || entry.rest == 0 ? entry.restingValues ?? [] : [], synthetic: true)
        }
    }
}
