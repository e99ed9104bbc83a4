/// Recognises one transition's gesture among the contacts no other
/// transition has claimed (design "Gestures": candidate, begin, reject).
/// A value-type state machine: `step` takes a frame's free contacts and
/// returns what happened; it does no I/O and reads no clock.
public struct GestureRecognizer: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Fewer than N free contacts: the next time the count reaches N
        /// a candidate may start.
        case waiting
        /// The count reached N but the gesture was refused or rejected, or a
        /// gesture just began: nothing starts until the count drops below N.
        case blocked
        /// N contacts that may become the gesture, with where they started.
        case candidate(ids: [Int], reference: GestureReference)
    }

    public enum Action: Sendable, Equatable {
        case none
        /// A candidate started (the contacts touched down where the gesture
        /// allows).
        case candidateStarted
        /// The count reached N but the contacts may not start the gesture
        /// (too many, or a touch-down outside its start area).
        case refused(why: Rejection)
        /// The candidate was dropped or rejected, and why.
        case candidateDropped(why: Rejection)
        /// The gesture begins: its contacts, reference and travel at this frame.
        case begin(ids: [Int], reference: GestureReference, travel: GestureTravel)
    }

    public let kind: GestureKind
    public let activation: Double
    public let distance: Double
    public private(set) var state: State = .waiting
    /// The gesture begins on travel either way along its axis (a
    /// bidirectional transition with snap points), not only forward.
    public var eitherWay = false
    /// Contacts may touch down anywhere (the edge rule is lifted while a
    /// bidirectional transition rests away from its first snap point).
    public var anywhere = false

    public init(kind: GestureKind, activation: Double, distance: Double) {
        self.kind = kind
        self.activation = activation
        self.distance = distance
    }

    /// Forces the recogniser to wait for the count to drop below N.
    public mutating func block() {
        state = .blocked
    }

    /// Drops any candidate: the next contacts start afresh.
    public mutating func reset() {
        state = .waiting
    }

    /// True when a frame with `count` free contacts would change nothing:
    /// `step` would keep the state and return `.none`. A cheap check that
    /// spares the caller the step on most frames (a one-finger drag is no
    /// concern of a four-finger swipe).
    @inline(__always)
    public func isUnchanged(byFrameOf count: Int) -> Bool {
        switch state {
        case .waiting: return count < kind.fingers
        case .blocked: return count >= kind.fingers
        case .candidate: return false
        }
    }

    /// Takes one frame's free contacts. A candidate may not start from a
    /// contact that touched down inside one of the `excluded` rectangles
    /// (the UI's exclusion regions); one already started is left alone.
    @inline(__always)
    public mutating func step(free contacts: [Contact], excluded: [ScreenRect] = []) -> Action {
        let n = kind.fingers
        let count = contacts.count
        switch state {
        case .waiting:
            if count < n { return .none }
            if count > n {
                state = .blocked
                return .refused(why: .tooManyContacts(count: count, fingers: n))
            }
            for c in contacts where !anywhere && !kind.acceptsTouchDown(x: c.downX, y: c.downY) {
                state = .blocked
                return .refused(why: kind.touchDownRejection(x: c.downX, y: c.downY) ?? .contactsChanged)
            }
            if !excluded.isEmpty {
                for c in contacts where excluded.contains(where: { $0.contains(x: c.downX, y: c.downY) }) {
                    state = .blocked
                    return .refused(why: .excluded(x: c.downX, y: c.downY))
                }
            }
            state = .candidate(ids: contacts.map(\.id), reference: GestureReference(of: contacts))
            return .candidateStarted
        case .blocked:
            if count < n { state = .waiting }
            return .none
        case .candidate(let ids, let reference):
            if count < n {
                state = .waiting
                return .candidateDropped(why: .liftedBeforeActivation)
            }
            if count > n {
                state = .blocked
                return .candidateDropped(why: .tooManyContacts(count: count, fingers: n))
            }
            guard let current = TransitionMachine.owned(ids, in: contacts) else {
                state = .blocked
                return .candidateDropped(why: .contactsChanged)
            }
            let travel = GestureTravel.measure(kind, from: reference, to: current, distance: distance)
            let along = eitherWay ? abs(travel.inward) : travel.inward
            if along < activation { return .none }
            state = .blocked
            if travel.sideways > along {
                return .candidateDropped(why: .sideways(sideways: travel.sideways, along: along))
            }
            return .begin(ids: ids, reference: reference, travel: travel)
        }
    }
}
