/// The words of the wire (docs/protocol.md) as types: what an event line's
/// `type`, `decision` and `reason`, and a snapshot's `phase`, may say. The
/// engine has types of its own for these (it stays below this module, with
/// the standard library only); the daemon's encoders map them here, so the
/// spelling on the wire has one home. Nested where a top-level name would
/// meet the engine's in a file that imports both.

extension TransitionUpdate {
    /// An event line's `type`. Its order is the life of a transition (and
    /// the index of tables kept per kind).
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case began, changed, ended, animating, finished, cancelled

        /// Position in `allCases`.
        public var index: Int {
            switch self {
            case .began: return 0
            case .changed: return 1
            case .ended: return 2
            case .animating: return 3
            case .finished: return 4
            case .cancelled: return 5
            }
        }
    }

    /// `ended`'s `decision`.
    public enum Decision: String, Sendable, Equatable, CaseIterable {
        case finish, cancel
        /// A transition with snap points settles on one (the line's `target` and `index`).
        case snap

        /// The progress the completion animation runs to (a snap's is the line's `target`).
        public var target: Double? {
            switch self {
            case .finish: return 1
            case .cancel: return 0
            case .snap: return nil
            }
        }
    }

    /// `ended`'s `reason`.
    public enum Reason: String, Sendable, Equatable, CaseIterable {
        case released
        case deviceLost = "device-lost"
        case clientLost = "client-lost"
        case command, shutdown, reload
        /// A contact of the gesture became a palm.
        case palm
        /// A contact of the gesture was stuck (`[filter] stuck_after`).
        case stuck
    }
}

/// Where a transition is in its life: a snapshot's `active` entries are
/// `interacting` or `animating`; `idle` is a client's word for the rest.
public enum TransitionPhase: String, Sendable, Equatable {
    case idle, interacting, animating
}

/// The `error` reply's `code`; the wire spelling is the raw value.
public enum ErrorCode: String, Sendable, Equatable, CaseIterable {
    case badJSON = "bad-json"
    case badUTF8 = "bad-utf8"
    case unknownCommand = "unknown-command"
    case badField = "bad-field"
    case unknownTransition = "unknown-transition"
    case busy
    case notActive = "not-active"
    case forbidden
    case lineTooLong = "line-too-long"
    case tooManyClients = "too-many-clients"
    case backlog
    /// A `reload` found the config unusable; the old one stays.
    case badConfig = "bad-config"
    /// The daemon cannot do it here (a `dump` of a replay, or with the flight recorder off).
    case unavailable
}

/// The daemon's version and the protocol's, reported in `hello`.
public enum TransitiondVersion {
    public static let current = "0.1.0"
    /// The stream protocol version.
    public static let protocolVersion = 1
}
