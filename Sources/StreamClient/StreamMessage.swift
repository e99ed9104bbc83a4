import TransitionEngine
import WireFormat

/// One line of the daemon's stream (docs/protocol.md "Daemon → client"),
/// decoded. Types the client does not know become `unknown`, and unknown
/// fields are ignored, so a newer daemon never breaks an older client.
public enum StreamMessage: Sendable, Equatable {
    /// The first line on every connection.
    case hello(StreamSnapshot)
    /// A transition event: `began`, `changed`, `ended`, `animating`,
    /// `finished` or `cancelled`.
    case event(TransitionUpdate)
    /// The reply to `ping`.
    case pong(id: JSONValue?)
    /// The reply to `state`: the same snapshot as `hello`.
    case state(StreamSnapshot)
    /// A command was carried out.
    case ok(cmd: String, id: JSONValue?)
    /// A command was refused, or the daemon is closing the connection
    /// (`line-too-long`, `too-many-clients`, `backlog`).
    case error(code: String, message: String, id: JSONValue?)
    /// A line with a `type` this client does not know.
    case unknown(type: String)
}

/// What `hello` and `state` carry: the configured transitions and every one
/// in flight, so a client renders the right state at once.
public struct StreamSnapshot: Sendable, Equatable {
    /// `protocol` (hello only; nil in a `state` reply or when absent).
    public var protocolVersion: Int?
    /// The daemon's version (hello only).
    public var version: String?
    public var transitions: [TransitionInfo]
    public var active: [ActiveTransition]
    /// The seq of the last event sent before the snapshot (0 when absent):
    /// the live stream continues with `seq + 1`.
    public var seq: UInt64

    public init(protocolVersion: Int? = nil, version: String? = nil, transitions: [TransitionInfo],
                active: [ActiveTransition] = [], seq: UInt64 = 0) {
        self.protocolVersion = protocolVersion
        self.version = version
        self.transitions = transitions
        self.active = active
        self.seq = seq
    }
}

/// A configured transition, as `hello` lists it.
public struct TransitionInfo: Sendable, Equatable {
    public var name: String
    /// `edge-pan`, `swipe`, `pinch` (nil when absent).
    public var gesture: String?
    public var fingers: Int?
    /// An edge-pan's edge: `left`, `right`, `top`, `bottom` (nil otherwise).
    public var edge: String?
    /// A swipe's (`left`, `right`, `up`, `down`) or pinch's (`in`, `out`) direction.
    public var direction: String?

    public init(name: String, gesture: String? = nil, fingers: Int? = nil, edge: String? = nil,
                direction: String? = nil) {
        self.name = name
        self.gesture = gesture
        self.fingers = fingers
        self.edge = edge
        self.direction = direction
    }
}

/// A transition in flight in a snapshot's `active`.
public struct ActiveTransition: Sendable, Equatable {
    public var transition: String
    /// `interacting` or `animating`.
    public var phase: TransitionPhase
    public var progress: Double
    /// The animation's target (1 or 0); animating only.
    public var target: Double?
    public var values: [PropertyValue]

    public init(transition: String, phase: TransitionPhase, progress: Double, target: Double? = nil,
                values: [PropertyValue] = []) {
        self.transition = transition
        self.phase = phase
        self.progress = progress
        self.target = target
        self.values = values
    }
}

/// Where a transition is in its life.
public enum TransitionPhase: String, Sendable, Equatable {
    case idle, interacting, animating
}

/// One keyframe track's value (`"values":{"dim":0.16}`), in the line's order.
public struct PropertyValue: Sendable, Equatable {
    public var property: String
    public var value: Double

    public init(_ property: String, _ value: Double) {
        self.property = property
        self.value = value
    }
}

extension Array where Element == PropertyValue {
    /// The value of `property`, or nil.
    public subscript(property: String) -> Double? {
        first { $0.property == property }?.value
    }
}

/// One transition event, by transition name (the client does not know the
/// daemon's indices).
public struct TransitionUpdate: Sendable, Equatable {
    public typealias Kind = TransitionEvent.Kind

    public var kind: Kind
    public var transition: String
    public var seq: UInt64
    /// Seconds on the input's clock.
    public var time: Double
    public var progress: Double
    public var velocity: Double
    public var values: [PropertyValue]
    /// `ended` only.
    public var decision: Decision?
    /// `ended` only. A reason this client does not know reads as nil.
    public var reason: EndReason?
    /// `animating` only.
    public var target: Double?
    /// True for the `cancelled` a client makes up when its connection drops
    /// mid-transition (`"synthetic":true` on the line).
    public var synthetic: Bool

    public init(kind: Kind, transition: String, seq: UInt64, time: Double, progress: Double, velocity: Double,
                values: [PropertyValue] = [], decision: Decision? = nil, reason: EndReason? = nil,
                target: Double? = nil, synthetic: Bool = false) {
        self.kind = kind
        self.transition = transition
        self.seq = seq
        self.time = time
        self.progress = progress
        self.velocity = velocity
        self.values = values
        self.decision = decision
        self.reason = reason
        self.target = target
        self.synthetic = synthetic
    }
}
