/// One transition event, by transition name (a client does not know the
/// daemon's indices).
public struct TransitionUpdate: Sendable, Equatable {
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
    public var reason: Reason?
    /// `animating`; and `ended` of a transition with snap points (the point it settles at).
    public var target: Double?
    /// `ended` of a transition with snap points: its target's index in the list.
    public var index: Int?
    /// The fingers' centroid on the screen, for a transition with
    /// `report_position` that fingers drive.
    public var position: Position?
    /// True for the `cancelled` a client makes up when its connection drops
    /// mid-transition (`"synthetic":true` on the line; never the daemon's).
    public var synthetic: Bool

    public init(kind: Kind, transition: String, seq: UInt64, time: Double, progress: Double, velocity: Double,
                values: [PropertyValue] = [], decision: Decision? = nil, reason: Reason? = nil,
                target: Double? = nil, position: Position? = nil, synthetic: Bool = false, index: Int? = nil) {
        self.index = index
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
        self.position = position
        self.synthetic = synthetic
    }

    /// `"position":{"x":…,"y":…}`: 0…1 each, after the panel's geometry.
    public struct Position: Sendable, Equatable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) { (self.x, self.y) = (x, y) }
    }
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
