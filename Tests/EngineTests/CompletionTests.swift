import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import Engine

@Suite("Completion: duration, curves, spring, frames")
struct CompletionTests {
    /// Drags the back transition to `to` and holds it so the release velocity is 0.
    func releasedAt(_ to: Double, curve: CompletionCurve, speed: Double = 1, frameRate: Double = 60) -> EngineHarness {
        var spec = backSpec(curve: curve)
        spec.completionSpeed = speed
        var h = EngineHarness([spec], frameRate: frameRate)
        h.drag(ramp(from: 0.0, to: to, t0: 0, t1: 0.5))
        h.frame(0.6, [(1, to, 0.5)])
        h.frame(0.65, [])
        return h
    }

    @Test func linearDurationFramesAndExactTarget() {
        var h = releasedAt(0.7, curve: .timing(.linear))
        #expect(h.first(.ended)?.decision == .finish)
        #expect(h.first(.ended)?.velocity == 0)   // rested 100 ms before release
        h.settle()
        let frames = h.all(.animating)
        // D = 0.4 × |1 − 0.7| ÷ 1 = 0.12 s at 60 Hz: frames at k/60 for k = 1…8 (8/60 ≥ 0.12).
        #expect(frames.count == 8)
        for (k, f) in frames.enumerated() {
            #expect(near(f.time, 0.65 + Double(k + 1) / 60, 1e-12))
            #expect(f.target == 1)
        }
        #expect(near(frames[0].progress, 0.7 + 0.3 * (1.0 / 60) / 0.12, 1e-9))
        #expect(frames.last!.progress == 1)
        let finished = h.all(.finished)
        #expect(finished.count == 1)
        #expect(finished[0].progress == 1)
        #expect(finished[0].time == frames.last!.time)
        #expect(h.events.last?.kind == .finished)
        #expect(h.engine.isIdle)
    }

    @Test func completionSpeedShortensTheAnimation() {
        var h = releasedAt(0.7, curve: .timing(.linear), speed: 2)
        h.settle()
        // D = 0.4 × 0.3 ÷ 2 = 0.06 s: frames 1…4 (4/60 ≥ 0.06 − ε) — 3.6 frames round up.
        #expect(h.all(.animating).count == 4)
    }

    @Test func cancelAnimatesBackToZero() {
        var h = releasedAt(0.3, curve: .timing(.linear))
        #expect(h.first(.ended)?.decision == .cancel)
        h.settle()
        let frames = h.all(.animating)
        // D = 0.4 × 0.3 = 0.12 s.
        #expect(frames.count == 8)
        #expect(frames.allSatisfy { $0.target == 0 })
        #expect(frames.last!.progress == 0)
        #expect(h.all(.cancelled).count == 1)
        #expect(h.all(.finished).isEmpty)
    }

    @Test(arguments: [TimingCurve.easeIn, .easeOut, .easeInOut])
    func cubicCurvesFollowTheirBezier(_ curve: TimingCurve) {
        var h = releasedAt(0.5, curve: .timing(curve), frameRate: 100)
        h.settle()
        let frames = h.all(.animating)
        // D = 0.2 s at 100 Hz: 20 frames; frame 10 is halfway in time.
        #expect(frames.count == 20)
        let expected = 0.5 + 0.5 * curve.value(at: 0.5)
        #expect(near(frames[9].progress, expected, 1e-9))
        // The curve's own shape: ease-in is below the diagonal at 0.5, ease-out above.
        switch curve {
        case .easeIn: #expect(curve.value(at: 0.5) < 0.5)
        case .easeOut: #expect(curve.value(at: 0.5) > 0.5)
        case .easeInOut: #expect(near(curve.value(at: 0.5), 0.5, 1e-9))
        case .linear: break
        }
    }

    @Test func bezierKnownValues() {
        // CSS ease-in-out at x = 0.25: y ≈ 0.129 (by symmetry 0.871 at 0.75).
        let c = TimingCurve.easeInOut
        #expect(near(c.value(at: 0.25) + c.value(at: 0.75), 1, 1e-9))
        #expect(near(c.value(at: 0.25), 0.1291, 5e-4))
        #expect(TimingCurve.easeOut.value(at: 0) == 0)
        #expect(TimingCurve.easeOut.value(at: 1) == 1)
    }

    @Test func springCarriesReleaseVelocity() {
        let spec = backSpec(curve: .spring(dampingRatio: 1, stiffness: 300))
        var still = CompletionAnimation(from: 0.6, to: 1, at: 0, velocity: 0, spec: spec, frameRate: 60)
        var moving = CompletionAnimation(from: 0.6, to: 1, at: 0, velocity: 3, spec: spec, frameRate: 60)
        let a = still.takeFrame(), b = moving.takeFrame()
        #expect(b.progress > a.progress + 0.03)
        // Critically damped with no initial velocity: x(t) = x0 e^{-ωt}(1 + ωt).
        let w: Double = 300.0.squareRoot()
        let t: Double = 1.0 / 60
        let decay: Double = exp(-w * t)
        let expected: Double = 1 - 0.4 * (1 + w * t) * decay
        #expect(near(a.progress, expected, 1e-12))
    }

    @Test func springEndsExactlyOnTargetWhenSettled() {
        var h = releasedAt(0.7, curve: .spring(dampingRatio: 0.5, stiffness: 300))
        h.settle()
        let frames = h.all(.animating)
        #expect(frames.last!.progress == 1)
        // Underdamped: it overshoots on the way.
        #expect(frames.contains { $0.progress > 1 })
        // The frame before the last is not yet within the rest condition.
        let before = frames[frames.count - 2]
        #expect(abs(before.progress - 1) >= 0.001 || abs(before.velocity) >= 0.01)
        #expect(h.all(.finished).count == 1)
    }

    @Test func springTimeScalesWithCompletionSpeed() {
        var slow = releasedAt(0.7, curve: .spring(dampingRatio: 1, stiffness: 300), speed: 1)
        var fast = releasedAt(0.7, curve: .spring(dampingRatio: 1, stiffness: 300), speed: 2)
        slow.settle(); fast.settle()
        let n1 = slow.all(.animating).count, n2 = fast.all(.animating).count
        #expect(n2 < n1)
        #expect(abs(Double(n1) / Double(n2) - 2) < 0.2)
    }

    @Test func releaseExactlyOnTargetCompletesAtOnce() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.0, to: 1.0, t0: 0, t1: 0.5))
        h.frame(0.6, [(1, 1.0, 0.5)])
        h.frame(0.7, [])
        #expect(h.kinds().suffix(2) == [.ended, .finished])
        #expect(h.engine.isIdle)
    }
}

@Suite("Keyframes, interruption, lost input")
struct KeyframeAndInterruptTests {
    @Test func keyframeValues() {
        let track = KeyframeTrack(property: "dim", start: 0.2, duration: 0.5, from: 1, to: 0, curve: .linear)
        #expect(track.value(at: 0) == 1)
        #expect(track.value(at: 0.2) == 1)
        #expect(near(track.value(at: 0.45), 0.5, 1e-12))
        #expect(near(track.value(at: 0.7), 0, 1e-12))
        #expect(track.value(at: 1) == 0)
        let eased = KeyframeTrack(property: "x", start: 0, duration: 1, from: 0, to: 10, curve: .easeIn)
        #expect(near(eased.value(at: 0.5), 10 * TimingCurve.easeIn.value(at: 0.5), 1e-12))
    }

    @Test func interruptibleCatchesTheAnimationWhereItIs() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.41, t0: 0, t1: 0.4), id: 1)
        h.frame(0.5, [(1, 0.41, 0.5)])
        h.frame(0.55, [])               // rested: cancels from 0.4, D = 0.16 s
        #expect(h.first(.ended)?.decision == .cancel)
        // A new drag from the edge during the animation.
        h.frame(0.60, [(2, 0.01, 0.5)])
        h.frame(0.62, [(2, 0.05, 0.5)])   // begins here: d = 0.04
        let began = h.all(.began)
        #expect(began.count == 2)
        let caughtAt = 0.4 - 0.4 * ((0.62 - 0.55) / 0.16)
        #expect(near(began[1].progress, caughtAt, 1e-9))
        #expect(h.all(.cancelled).isEmpty)
        // It continues from there: 0.1 more travel adds 0.1.
        h.frame(0.64, [(2, 0.15, 0.5)])
        #expect(near(h.events.last!.progress, caughtAt + 0.1, 1e-9))
        #expect(h.engine.nextDeadline == nil)
    }

    @Test func notInterruptibleIgnoresGesturesWhileAnimating() {
        var h = EngineHarness([backSpec(interruptible: false)])
        h.drag(ramp(from: 0.01, to: 0.41, t0: 0, t1: 0.4))
        h.frame(0.5, [(1, 0.41, 0.5)])
        h.frame(0.55, [])
        h.frame(0.60, [(2, 0.01, 0.5)])
        h.frame(0.62, [(2, 0.05, 0.5)])
        h.frame(0.64, [(2, 0.15, 0.5)])
        h.frame(0.66, [])
        h.settle()
        #expect(h.all(.began).count == 1)
        #expect(h.all(.cancelled).count == 1)
    }

    @Test func lostInputCancelsAndAnimatesBack() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.81, t0: 0, t1: 0.4))
        h.engine.cancelInteractions(at: 0.41, reason: .deviceLost, into: &h.events)
        let ended = h.first(.ended)!
        #expect(ended.decision == .cancel)       // past the threshold and moving: no decision rule
        #expect(ended.reason == .deviceLost)
        #expect(near(ended.progress, 0.8, 1e-9))
        h.settle()
        #expect(h.events.last?.kind == .cancelled)
        #expect(h.all(.animating).last?.progress == 0)
        #expect(h.engine.isIdle)
    }

    @Test func snapshotShowsWhatIsInFlight() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.31, t0: 0, t1: 0.3))
        let snapshot = h.engine.activeSnapshot()
        #expect(snapshot.count == 1)
        #expect(snapshot[0].phase == .interacting)
        #expect(near(snapshot[0].progress, 0.3, 1e-9))
    }
}
