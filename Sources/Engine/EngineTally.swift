/// What the engine has done since it was made, counted for metrics: the
/// interactions begun and ended per transition (by decision and reason) and
/// the candidates passed over or dropped (by why). Counted on the rare
/// events only (a touch-down, a release), never per frame; keyed by
/// transition name, so a reload that reorders transitions keeps each count
/// with its transition.
public struct EngineTally: Sendable, Equatable {
    /// One way an interaction ended.
    public struct Outcome: Hashable, Sendable {
        public var transition: String
        public var decision: Decision
        public var reason: EndReason

        public init(transition: String, decision: Decision, reason: EndReason) {
            self.transition = transition
            self.decision = decision
            self.reason = reason
        }
    }

    /// One way a candidate was turned down (`Rejection.kind`).
    public struct Rejected: Hashable, Sendable {
        public var transition: String
        public var reason: String

        public init(transition: String, reason: String) {
            self.transition = transition
            self.reason = reason
        }
    }

    /// `began` events per transition.
    public internal(set) var began: [String: Int] = [:]
    /// `ended` events per transition, decision and reason.
    public internal(set) var ended: [Outcome: Int] = [:]
    /// Candidates rejected per transition and kind of rejection.
    public internal(set) var rejected: [Rejected: Int] = [:]

    public init() {}
}

extension Rejection {
    /// A short, stable name for the kind of rejection (a metric's label):
    /// `outside-edge`, `outside-range`, `too-many-contacts`,
    /// `lifted-before-activation`, `contacts-changed`, `sideways`,
    /// `not-interruptible`, `disabled`, `excluded`.
    public var kind: String {
        switch self {
        case .outsideEdge: return "outside-edge"
        case .outsideRange: return "outside-range"
        case .tooManyContacts: return "too-many-contacts"
        case .liftedBeforeActivation: return "lifted-before-activation"
        case .contactsChanged: return "contacts-changed"
        case .sideways: return "sideways"
        case .notInterruptible: return "not-interruptible"
        case .disabled: return "disabled"
        case .excluded: return "excluded"
        }
    }
}
