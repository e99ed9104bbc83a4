/// The animated rest of a transition after release (design "Completion"):
/// from `p0` at `startTime` to `target`, along a timing curve over
/// `duration × |target − p0| ÷ completionSpeed`, or along a spring. Frames
/// come at `startTime + k ÷ frameRate`; the last frame is exactly on target.
public struct CompletionAnimation: Sendable, Equatable {
    /// Longest a spring may ring before it is snapped to its target.
    public static let springTimeLimit = 60.0

    public let startTime: Double
    public let startProgress: Double
    public let target: Double
    public let frameRate: Double
    public let curve: CompletionCurve
    /// Seconds for a timing curve (the spring ends by its rest condition).
    public let length: Double
    private let completionSpeed: Double
    private let spring: SpringMotion?
    /// Index of the next frame to emit (the first is 1).
    public private(set) var nextFrame: Int = 1

    public init(from p0: Double, to target: Double, at startTime: Double, velocity: Double,
                spec: TransitionSpec, frameRate: Double) {
        self.startTime = startTime
        self.startProgress = p0
        self.target = target
        self.frameRate = frameRate
        self.curve = spec.completionCurve
        self.completionSpeed = spec.completionSpeed
        self.length = spec.duration * abs(target - p0) / spec.completionSpeed
        switch spec.completionCurve {
        case .timing:
            spring = nil
        case .spring(let dampingRatio, let stiffness):
            spring = SpringMotion(dampingRatio: dampingRatio, stiffness: stiffness,
                                  initialDisplacement: p0 - target,
                                  initialVelocity: velocity / spec.completionSpeed)
        }
    }

    /// Time of the next frame to emit.
    public var nextFrameTime: Double {
        startTime + Double(nextFrame) / frameRate
    }

    /// Progress and velocity (progress per second) at any time after the start.
    public func sample(at time: Double) -> (progress: Double, velocity: Double) {
        let elapsed = max(0, time - startTime)
        if let spring {
            let state = spring.state(at: elapsed * completionSpeed)
            return (target + state.displacement, state.velocity * completionSpeed)
        }
        guard case .timing(let timing) = curve, length > 0 else { return (target, 0) }
        let u = min(elapsed / length, 1)
        let span = target - startProgress
        let p = startProgress + span * timing.value(at: u)
        let v = u >= 1 ? 0 : span * timing.slope(at: u) / length
        return (p, v)
    }

    /// True when the animation reaches its target at `time` (design: a timing
    /// curve at its length, a spring within 0.001 of target and slower than
    /// 0.01/s).
    public func isDone(at time: Double) -> Bool {
        let elapsed = time - startTime
        if spring != nil {
            if elapsed >= Self.springTimeLimit { return true }
            let (p, v) = sample(at: time)
            return abs(p - target) < 0.001 && abs(v) < 0.01
        }
        return elapsed >= length - VelocityEstimator.epsilon
    }

    /// True if there is nothing to animate (already on target).
    public var isEmpty: Bool {
        spring == nil ? length <= 0 : (startProgress == target && isDone(at: startTime))
    }

    /// One animation frame.
    public struct Frame: Sendable, Equatable {
        public var time: Double
        public var progress: Double
        public var velocity: Double
        public var isLast: Bool
    }

    /// Takes the next frame and moves on.
    public mutating func takeFrame() -> Frame {
        let t = nextFrameTime
        nextFrame += 1
        if isDone(at: t) {
            return Frame(time: t, progress: target, velocity: 0, isLast: true)
        }
        let (p, v) = sample(at: t)
        return Frame(time: t, progress: p, velocity: v, isLast: false)
    }
}
