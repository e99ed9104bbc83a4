// MARK: - Gesture bindings

/// A screen edge an `edge-pan` starts from.
public enum Edge: String, Sendable, CaseIterable {
    case left, right, top, bottom
}

/// The direction a `swipe` travels in.
public enum SwipeDirection: String, Sendable, CaseIterable {
    case left, right, up, down
}

/// Whether a `pinch` closes (`in`) or opens (`out`).
public enum PinchDirection: String, Sendable, CaseIterable {
    case `in`, out
}

/// The part of an edge where an edge-pan may start: `start...end` as a
/// fraction of the edge's length, from its top (left and right edges) or
/// its left end (top and bottom edges). `0...1` is the whole edge.
public struct EdgeRange: Sendable, Equatable {
    public var start: Double
    public var end: Double

    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }

    public static let whole = EdgeRange(start: 0, end: 1)
    public var isWhole: Bool { start <= 0 && end >= 1 }

    public func contains(_ position: Double) -> Bool { position >= start && position <= end }
}

/// The gesture a transition is bound to (design "Gestures").
public enum GestureKind: Sendable, Equatable {
    case edgePan(edge: Edge, fingers: Int, edgeMargin: Double, range: EdgeRange = .whole)
    case swipe(direction: SwipeDirection, fingers: Int)
    case pinch(direction: PinchDirection)

    /// The number of contacts the gesture needs.
    public var fingers: Int {
        switch self {
        case .edgePan(_, let fingers, _, _): return fingers
        case .swipe(_, let fingers): return fingers
        case .pinch: return 2
        }
    }

    /// The config name of the gesture.
    public var name: String {
        switch self {
        case .edgePan: return "edge-pan"
        case .swipe: return "swipe"
        case .pinch: return "pinch"
        }
    }
}

// MARK: - Timing

/// A timing curve for keyframe tracks and completions: the three cubic
/// Béziers of design "Completion" and linear.
public enum TimingCurve: String, Sendable, CaseIterable {
    case linear
    case easeIn = "ease-in"
    case easeOut = "ease-out"
    case easeInOut = "ease-in-out"
}

/// How the rest of a released transition is animated.
public enum CompletionCurve: Sendable, Equatable {
    case timing(TimingCurve)
    /// A damped spring of mass 1 carrying the release velocity.
    case spring(dampingRatio: Double, stiffness: Double)

    public var name: String {
        switch self {
        case .timing(let curve): return curve.rawValue
        case .spring: return "spring"
        }
    }
}

/// A property animated over progress, UIView keyframe style: `start` and
/// `duration` are fractions of the progress range.
public struct KeyframeTrack: Sendable, Equatable {
    public var property: String
    public var start: Double
    public var duration: Double
    public var from: Double
    public var to: Double
    public var curve: TimingCurve

    public init(property: String, start: Double = 0, duration: Double = 1,
                from: Double = 0, to: Double = 1, curve: TimingCurve = .linear) {
        self.property = property
        self.start = start
        self.duration = duration
        self.from = from
        self.to = to
        self.curve = curve
    }
}

// MARK: - Transitions

/// One configured interactive transition: the gesture that drives it and the
/// rules that decide and animate its end (design "Engine rules").
public struct TransitionSpec: Sendable, Equatable {
    public var name: String
    public var gesture: GestureKind
    public var activation: Double
    public var distance: Double
    public var finishThreshold: Double
    public var flickVelocity: Double
    public var duration: Double
    public var completionSpeed: Double
    public var completionCurve: CompletionCurve
    public var interruptible: Bool
    public var keyframes: [KeyframeTrack]
    /// Whether its gesture is recognised: the config's `enabled`, and at run
    /// time the `enable` command (the UI says when "back" has somewhere to
    /// go). A disabled transition recognises nothing; one in flight ends as
    /// it would have.
    public var enabled: Bool
    /// `report_position`: `began`/`changed`/`ended` carry the fingers'
    /// centroid on the screen, for UIs that want the finger's place.
    public var reportPosition: Bool
    /// Lengths given in millimetres (`*_mm`): they replace `edgeMargin`,
    /// `activation` and `distance` once the panel is known (`resolved(for:)`).
    public var physical: PhysicalLengths
    /// `device`: the touchscreen it is bound to (a path or link of the
    /// `[input] device` list, or a device name); nil takes any. Its gesture
    /// is recognised only on a source the host named so (`nameSource`).
    public var device: String?
    /// `snap_points` or `pages` and their keys: where it may rest; nil runs
    /// from 0 to 1 and back (finish or cancel).
    public var snap: SnapSettings?

    public init(name: String, gesture: GestureKind,
                activation: Double = 0.02,
                distance: Double? = nil,
                finishThreshold: Double = 0.5,
                flickVelocity: Double = 1.0,
                duration: Double = 0.4,
                completionSpeed: Double = 1.0,
                completionCurve: CompletionCurve = .timing(.easeOut),
                interruptible: Bool = true,
                keyframes: [KeyframeTrack] = [],
                enabled: Bool = true,
                reportPosition: Bool = false,
                physical: PhysicalLengths = PhysicalLengths(),
                device: String? = nil,
                snap: SnapSettings? = nil) {
        self.snap = snap
        self.physical = physical
        self.device = device
        self.enabled = enabled
        self.reportPosition = reportPosition
        self.name = name
        self.gesture = gesture
        self.activation = activation
        self.distance = distance ?? TransitionSpec.defaultDistance(for: gesture)
        self.finishThreshold = finishThreshold
        self.flickVelocity = flickVelocity
        self.duration = duration
        self.completionSpeed = completionSpeed
        self.completionCurve = completionCurve
        self.interruptible = interruptible
        self.keyframes = keyframes
    }

    /// design "Gestures": 1.0, except pinch-in's 0.5.
    public static func defaultDistance(for gesture: GestureKind) -> Double {
        if case .pinch(.in) = gesture { return 0.5 }
        return 1.0
    }
}

/// Everything the engine is configured with.
public struct EngineConfiguration: Sendable, Equatable {
    /// Animation frames per second.
    public var frameRate: Double
    public var transitions: [TransitionSpec]

    public init(frameRate: Double = 60, transitions: [TransitionSpec]) {
        self.frameRate = frameRate
        self.transitions = transitions
    }

    /// The embedded default: the single left-edge `back` transition with a
    /// `dim` track (design "Config").
    public static let standard = EngineConfiguration(
        frameRate: 60,
        transitions: [
            TransitionSpec(
                name: "back",
                gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05),
                completionCurve: .timing(.easeOut),
                keyframes: [KeyframeTrack(property: "dim", start: 0, duration: 0.5, from: 1, to: 0, curve: .linear)]
            ),
        ]
    )
}
