/// One change of one touch for the clone: it begins (with all its axis
/// values), moves (new axis values) or ends.
enum TouchChange: Sendable {
    case begin([Int32])
    case move([Int32])
    case end
}

/// A touch change waiting for its time.
struct DelayedStep: Sendable {
    var due: Double
    /// The source touch (serial number).
    var touch: UInt64
    /// The source slot the touch lives (or lived) in: the output slot it
    /// prefers, and the slot whose next touch flushes it.
    var sourceSlot: Int
    var change: TouchChange
}

/// The changes of released touches still to come, in due order (steps due
/// at the same time keep the order they came in, so a touch's steps stay in
/// order).
struct DelayedSteps: Sendable {
    /// Steps kept at most; past it the earliest are output early.
    static let limit = 8192

    private var steps: [DelayedStep] = []

    var isEmpty: Bool { steps.isEmpty }
    var count: Int { steps.count }
    var firstDue: Double? { steps.first?.due }

    mutating func insert(_ step: DelayedStep) {
        // Most steps are due last: search from the end.
        var i = steps.count
        while i > 0 && !(steps[i - 1].due <= step.due) { i -= 1 }
        steps.insert(step, at: i)
    }

    func hasSteps(for touch: UInt64) -> Bool {
        steps.contains { $0.touch == touch }
    }

    mutating func removeSteps(for touch: UInt64) {
        steps.removeAll { $0.touch == touch }
    }

    mutating func removeAll() {
        steps.removeAll()
    }

    /// The touches with steps waiting, each once, in the order of their first step.
    var waitingTouches: [UInt64] {
        var touches: [UInt64] = []
        for step in steps where !touches.contains(step.touch) { touches.append(step.touch) }
        return touches
    }

    /// Removes and returns, in order, the steps of the touches `which` picks.
    mutating func takeSteps(ofTouches which: (UInt64) -> Bool) -> [DelayedStep] {
        let taken = steps.filter { which($0.touch) }
        if !taken.isEmpty { steps.removeAll { which($0.touch) } }
        return taken
    }

    /// Removes and returns, in order, the steps of the touches of `slot`.
    mutating func takeSteps(ofSlot slot: Int) -> [DelayedStep] {
        let taken = steps.filter { $0.sourceSlot == slot }
        if !taken.isEmpty { steps.removeAll { $0.sourceSlot == slot } }
        return taken
    }

    /// Removes and returns the earliest steps if they are due by `time`
    /// (all of them due at that same time), else nil.
    mutating func takeEarliest(dueBy time: Double) -> (due: Double, steps: ArraySlice<DelayedStep>)? {
        guard let due = steps.first?.due, due <= time else { return nil }
        return takeEarliest()
    }

    /// Removes and returns the earliest steps (all due at the same time), nil if none.
    mutating func takeEarliest() -> (due: Double, steps: ArraySlice<DelayedStep>)? {
        guard let due = steps.first?.due else { return nil }
        var n = 1
        while n < steps.count && steps[n].due == due { n += 1 }
        let group = steps[0..<n]
        steps.removeFirst(n)
        return (due, group)
    }
}
