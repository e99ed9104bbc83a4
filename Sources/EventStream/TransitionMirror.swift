import TransitionEngine

/// A client's picture of every transition, rebuilt from the event stream:
/// `apply` each event and read the phase, progress, velocity and last
/// decision of each transition. The live view renders from it; a socket
/// client keeps one to render and to close anything left half-way.
public struct TransitionMirror: Sendable, Equatable {
    public enum Phase: String, Sendable, Equatable {
        case idle, interacting, animating
    }

    /// One transition as the stream last described it.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var phase: Phase = .idle
        public var progress: Double = 0
        public var velocity: Double = 0
        public var target: Double? = nil
        public var decision: Decision? = nil
        public var reason: EndReason? = nil
        public var time: Double = 0
        /// How many times it finished and cancelled.
        public var finished = 0
        public var cancelled = 0

        public init(name: String) { self.name = name }
    }

    public private(set) var entries: [Entry]
    /// The seq of the last event applied.
    public private(set) var lastSeq: UInt64 = 0

    public init(names: [String]) {
        entries = names.map { Entry(name: $0) }
    }

    /// Updates the mirror with one event.
    public mutating func apply(_ e: TransitionEvent) {
        guard entries.indices.contains(e.transition) else { return }
        lastSeq = e.seq
        var entry = entries[e.transition]
        entry.progress = e.progress
        entry.velocity = e.velocity
        entry.time = e.time
        switch e.kind {
        case .began:
            entry.phase = .interacting
            entry.decision = nil
            entry.reason = nil
            entry.target = nil
        case .changed:
            entry.phase = .interacting
        case .ended:
            entry.phase = .animating
            entry.decision = e.decision
            entry.reason = e.reason
            entry.target = e.decision?.target
        case .animating:
            entry.phase = .animating
            entry.target = e.target
        case .finished:
            entry.phase = .idle
            entry.finished += 1
        case .cancelled:
            entry.phase = .idle
            entry.cancelled += 1
        }
        entries[e.transition] = entry
    }

    /// The transitions not idle.
    public var inFlight: [Int] {
        entries.indices.filter { entries[$0].phase != .idle }
    }
}
