import Testing
@testable import Engine

@Suite("Decision (design: flick finishes, flick back cancels, else threshold)")
struct DecisionTests {
    @Test func belowFlickBelowThresholdCancels() {
        #expect(Decision.decide(progress: 0.49, velocity: 0.99, flickVelocity: 1, finishThreshold: 0.5) == .cancel)
    }
    @Test func flickAtExactlyFFinishes() {
        #expect(Decision.decide(progress: 0.49, velocity: 1.0, flickVelocity: 1, finishThreshold: 0.5) == .finish)
    }
    @Test func flickBackCancelsPastThreshold() {
        #expect(Decision.decide(progress: 0.9, velocity: -1.0, flickVelocity: 1, finishThreshold: 0.5) == .cancel)
        #expect(Decision.decide(progress: 0.9, velocity: -0.99, flickVelocity: 1, finishThreshold: 0.5) == .finish)
    }
    @Test func thresholdIsInclusive() {
        #expect(Decision.decide(progress: 0.5, velocity: 0, flickVelocity: 1, finishThreshold: 0.5) == .finish)
        #expect(Decision.decide(progress: 0.4999, velocity: 0, flickVelocity: 1, finishThreshold: 0.5) == .cancel)
    }
    @Test func customFlickVelocity() {
        #expect(Decision.decide(progress: 0.1, velocity: 2.5, flickVelocity: 3, finishThreshold: 0.5) == .cancel)
        #expect(Decision.decide(progress: 0.1, velocity: 3, flickVelocity: 3, finishThreshold: 0.5) == .finish)
    }
}

@Suite("Velocity (least squares over 100 ms, 40 ms rest rule)")
struct VelocityTests {
    @Test func slopeOfALineIsItsSlope() {
        var v = VelocityEstimator()
        for k in 0..<10 { v.add(time: Double(k) * 0.01, progress: 0.1 + 0.5 * Double(k) * 0.01) }
        #expect(near(v.releaseVelocity(at: 0.1), 0.5, 1e-9))
    }

    @Test func onlyTheLast100msCount() {
        var v = VelocityEstimator()
        // Fast for 0.5 s, then 2/s slower: only the window after 0.4 s (t_last 0.6) counts.
        var p = 0.0
        for k in 0...50 { p = Double(k) * 0.01 * 3; v.add(time: Double(k) * 0.01, progress: p) }
        for k in 1...10 { v.add(time: 0.5 + Double(k) * 0.01, progress: p + Double(k) * 0.01 * 1) }
        #expect(near(v.releaseVelocity(at: 0.61), 1.0, 1e-9))
    }

    @Test func windowBoundaryIsInclusive() {
        var v = VelocityEstimator()
        v.add(time: 0.0, progress: 0)      // exactly 100 ms before the last: counts
        v.add(time: 0.1, progress: 0.1)
        #expect(near(v.releaseVelocity(at: 0.1), 1.0, 1e-9))
        var w = VelocityEstimator()
        w.add(time: 0.0, progress: 0)
        w.add(time: 0.1001, progress: 0.1)  // the first is outside: one sample left
        #expect(w.releaseVelocity(at: 0.1001) == 0)
    }

    @Test func fewerThanTwoDistinctTimesIsZero() {
        var v = VelocityEstimator()
        v.add(time: 1, progress: 0.2)
        #expect(v.releaseVelocity(at: 1.01) == 0)
        v.add(time: 1, progress: 0.4)
        #expect(v.releaseVelocity(at: 1.01) == 0)
    }

    @Test func restingMoreThan40msIsZero() {
        var v = VelocityEstimator()
        for k in 0..<10 { v.add(time: Double(k) * 0.01, progress: Double(k) * 0.01) }
        for k in 10..<13 { v.add(time: Double(k) * 0.01, progress: 0.09) }
        // last change at 0.09; release at 0.13 is 40 ms later: still moving.
        #expect(v.releaseVelocity(at: 0.13) > 0)
        // 41 ms later: the finger rested.
        #expect(v.releaseVelocity(at: 0.131) == 0)
    }
}
