extension KeyframeTrack {
    /// The track's value at transition progress `p` (design "Keyframes").
    public func value(at p: Double) -> Double {
        let local = duration > 0 ? (p - start) / duration : (p >= start ? 1 : 0)
        return from + (to - from) * curve.value(at: min(max(local, 0), 1))
    }
}
