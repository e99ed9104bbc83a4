/// Collects the `(t, p)` samples of an interaction and computes the release
/// velocity by design "Velocity": the least-squares slope over the last
/// 100 ms, or 0 when there are too few samples or the finger rested more than
/// 40 ms before release.
public struct VelocityEstimator: Sendable, Equatable {
    public static let window = 0.100
    public static let restLimit = 0.040
    /// Tolerance for comparing times that came from microsecond integers.
    static let epsilon = 1e-9

    /// One sample: when, and the progress then.
    private struct Sample: Sendable, Equatable {
        var time: Double
        var progress: Double
    }

    /// The samples in time order (one array: a sample is one append).
    private var samples: [Sample] = []
    /// How many leading samples are known to be older than the window as
    /// of `staleCutoff`: the next `add` goes on from there instead of
    /// looking at them again (while the cutoff does not move back).
    private var stale = 0
    private var staleCutoff = -Double.infinity
    /// Time of the last sample whose progress differed from the one before it
    /// (the first sample counts as a change).
    public private(set) var lastChangeTime: Double? = nil

    public init() {
        samples.reserveCapacity(64)
    }

    public var lastProgress: Double? { samples.last?.progress }
    public var lastTime: Double? { samples.last?.time }
    public var sampleCount: Int { samples.count }

    /// Adds a sample; samples older than the window before it are dropped.
    public mutating func add(time: Double, progress: Double) {
        if let last = samples.last {
            if progress != last.progress { lastChangeTime = time }
        } else {
            lastChangeTime = time
        }
        samples.append(Sample(time: time, progress: progress))
        // Keep only what the window can still use: the leading samples
        // older than it, dropped in bulk.
        let cutoff = time - Self.window - Self.epsilon
        var drop = cutoff >= staleCutoff ? stale : 0
        while drop < samples.count - 1 && samples[drop].time < cutoff { drop += 1 }
        staleCutoff = cutoff
        if drop > 32 || (drop > 0 && drop * 2 >= samples.count) {
            samples.removeFirst(drop)
            stale = 0
        } else {
            stale = drop
        }
    }

    /// The least-squares slope of the samples in the last 100 ms (ignoring
    /// the rest rule). One pass, with times taken relative to the last
    /// sample so that the sums stay small and exact enough.
    public func slope() -> Double {
        let count = samples.count
        guard count >= 2 else { return 0 }
        return samples.withUnsafeBufferPointer { s in
            let tLast = s[count - 1].time
            let cutoff = -Self.window - Self.epsilon
            var n = 0.0, st = 0.0, sp = 0.0, stt = 0.0, stp = 0.0
            var i = count - 1
            while i >= 0 {
                let dt = s[i].time - tLast
                if dt < cutoff { break }
                let pi = s[i].progress
                n += 1; st += dt; sp += pi; stt += dt * dt; stp += dt * pi
                i -= 1
            }
            let denominator = n * stt - st * st
            // Fewer than two distinct times → no slope.
            guard n >= 2, denominator > 1e-18 * n * n else { return 0 }
            return (n * stp - st * sp) / denominator
        }
    }

    /// The release velocity for a release frame at `releaseTime`.
    public func releaseVelocity(at releaseTime: Double) -> Double {
        guard let changed = lastChangeTime else { return 0 }
        if releaseTime - changed > Self.restLimit + Self.epsilon { return 0 }
        return slope()
    }
}

/// What happens to a transition when its gesture ends.
public enum Decision: String, Sendable, Equatable {
    case finish
    case cancel
    /// A transition with snap points settles on one of them (its `Ending`
    /// says which); settling anywhere, its start included, finishes it.
    case snap

    /// design "Decision": a flick either way wins, else the threshold.
    public static func decide(progress p: Double, velocity v: Double,
                              flickVelocity f: Double, finishThreshold: Double) -> Decision {
        if v >= f { return .finish }
        if v <= -f { return .cancel }
        return p >= finishThreshold ? .finish : .cancel
    }
}

/// Why a command was refused; the wire spelling is the raw value (the
/// `error` reply's `code`).
public enum CommandRefusal: String, Sendable, Equatable {
    /// Something else drives the transition, or it is already in flight.
    case busy
    /// Nothing a command could end is in flight.
    case notActive = "not-active"
    case unknownTransition = "unknown-transition"
    /// A `run` to a snap point the transition does not have.
    case noSuchPoint = "no-such-point"
}

/// Why an interaction ended.
public enum EndReason: String, Sendable, Equatable {
    case released
    case deviceLost = "device-lost"
    /// The client whose commands drove the transition went away.
    case clientLost = "client-lost"
    case command
    case shutdown
    /// A reload dropped or renamed the transition while it was interacting:
    /// nothing could end it any more (its name is gone), so the reload does.
    case reload
    /// One of its contacts became a palm (`MT_TOOL_PALM`, or a major axis
    /// over `[filter] palm_mm`): a palm is no finger, so its end is no release.
    case palm
    /// One of its contacts was stuck: no report for `[filter] stuck_after`
    /// seconds while its panel was otherwise silent.
    case stuck
}
