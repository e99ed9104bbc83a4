extension KeyframeTrack {
    /// The track's value at transition progress `p` (design "Keyframes").
    public func value(at p: Double) -> Double {
        Self.value(at: p, start: start, duration: duration, from: from, to: to, curve: curve)
    }

    /// A track's value from its numbers alone (for callers that keep them
    /// apart from the property's name).
    @inline(__always)
    public static func value(at p: Double, start: Double, duration: Double, from: Double, to: Double,
                             curve: TimingCurve) -> Double {
        let local = duration > 0 ? (p - start) / duration : (p >= start ? 1 : 0)
        return from + (to - from) * curve.value(at: min(max(local, 0), 1))
    }
}
