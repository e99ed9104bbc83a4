/// One transition's life in a replay, for the plot: its progress and velocity
/// samples, its releases and the candidates of its gesture that were rejected,
/// with the two numbers the decision at release was made with.
public struct PlotTransition: Sendable, Equatable {
    /// The transition's configured name (any text; escaped when drawn).
    public var name: String
    /// `finish_threshold`, in progress.
    public var finishThreshold: Double
    /// `flick_velocity`, in progress per second (> 0; otherwise no flick band is drawn).
    public var flickVelocity: Double
    /// Every progress the stream reported, in time order.
    public var samples: [PlotSample]
    /// Every `ended` of the transition.
    public var releases: [PlotRelease]
    /// Candidates of the gesture that were rejected: when, and a short reason.
    public var rejections: [PlotMarker]
    /// Its snap points (empty without): drawn instead of the finish threshold,
    /// which does not decide where it goes.
    public var snapPoints: [Double] = []

    public init(name: String, finishThreshold: Double = 0.5, flickVelocity: Double = 1.0,
                samples: [PlotSample] = [], releases: [PlotRelease] = [], rejections: [PlotMarker] = []) {
        self.name = name
        self.finishThreshold = finishThreshold
        self.flickVelocity = flickVelocity
        self.samples = samples
        self.releases = releases
        self.rejections = rejections
    }
}

/// One reported progress of a transition: a frame while the finger drags
/// (`interacting`) or a completion frame after the release (`animating`).
public struct PlotSample: Sendable, Equatable {
    /// Whether the progress came from the finger or from the completion animation.
    public enum Phase: Sendable, Equatable {
        case interacting, animating
    }

    /// Seconds on the input's clock.
    public var time: Double
    /// 0…1 (a spring may overshoot; drawn clamped to the axis).
    public var progress: Double
    /// Progress per second.
    public var velocity: Double
    public var phase: Phase

    public init(time: Double, progress: Double, velocity: Double = 0, phase: Phase = .interacting) {
        self.time = time
        self.progress = progress
        self.velocity = velocity
        self.phase = phase
    }
}

/// The end of an interaction (`ended` in the stream): where it was, how fast it
/// went, and what was decided and why.
public struct PlotRelease: Sendable, Equatable {
    /// Seconds on the input's clock.
    public var time: Double
    /// The last sample's progress, the one the decision used.
    public var progress: Double
    /// The release velocity, progress per second.
    public var velocity: Double
    /// "finish" or "cancel".
    public var decision: String
    /// The stream's reason: "released", "device-lost", "command", "shutdown", …
    public var reason: String
    /// The rule that decided: "flick", "threshold", or "" (a cancel that was not a release).
    public var decidedBy: String
    /// The snap point it went to (nil without snap points).
    public var target: Double?
    /// A flick's projected progress p* (snap points only; nil when it was no flick).
    public var projected: Double?

    public init(time: Double, progress: Double, velocity: Double, decision: String,
                reason: String = "released", decidedBy: String = "", target: Double? = nil,
                projected: Double? = nil) {
        self.target = target
        self.projected = projected
        self.time = time
        self.progress = progress
        self.velocity = velocity
        self.decision = decision
        self.reason = reason
        self.decidedBy = decidedBy
    }
}

/// A moment worth marking on a panel's time axis, with a short text
/// (a rejected candidate and why).
public struct PlotMarker: Sendable, Equatable {
    /// Seconds on the input's clock.
    public var time: Double
    /// A short text: shown next to the marker when there is room, always in its tooltip.
    public var text: String

    public init(time: Double, text: String) {
        self.time = time
        self.text = text
    }
}
