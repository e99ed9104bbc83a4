import Testing
@testable import Engine

@Suite("Commands: drive, release, run, cancel, shutdown")
struct CommandTests {
    func harness() -> EngineHarness { EngineHarness([backSpec(curve: .timing(.easeOut))]) }

    @discardableResult
    func command(_ h: inout EngineHarness, _ c: TransitionEngine.Command, at t: Double) -> TransitionEngine.CommandOutcome {
        h.engine.perform(c, transition: 0, at: t, into: &h.events)
    }

    @Test(arguments: [(0.49, 0.99, Decision.cancel), (0.49, 1.0, .finish), (0.9, -1.0, .cancel), (0.5, 0, .finish)])
    func releaseDecidesLikeAFinger(_ p: Double, _ v: Double, _ expected: Decision) {
        var h = harness()
        #expect(command(&h, .drive(progress: 0.1), at: 1.0) == .done)
        command(&h, .drive(progress: p), at: 1.1)
        command(&h, .release(velocity: v), at: 1.2)
        let ended = h.first(.ended)!
        #expect(ended.decision == expected)
        #expect(ended.reason == .released)
        #expect(ended.progress == p)
        #expect(ended.velocity == v)
        h.settle()
        #expect(h.events.last?.kind == (expected == .finish ? .finished : .cancelled))
    }

    @Test func drivenAnimationEqualsTheFingersAnimation() {
        // A finger released at p0 with v0 and a drive/release to the same p0, v0
        // animate through the same frames (relative to the release).
        var finger = harness()
        finger.drag(ramp(from: 0.0, to: 0.3, t0: 0, t1: 0.3))
        finger.frame(0.31, [])
        let fingerEnded = finger.first(.ended)!
        finger.settle()
        var driven = harness()
        command(&driven, .drive(progress: 0.05), at: 5.0)
        command(&driven, .drive(progress: fingerEnded.progress), at: 5.1)
        command(&driven, .release(velocity: fingerEnded.velocity), at: 5.2)
        driven.settle()
        let a = finger.all(.animating), b = driven.all(.animating)
        #expect(a.count == b.count)
        #expect(zip(a, b).allSatisfy { near($0.progress, $1.progress, 1e-12) && near($0.time - 0.31, $1.time - 5.2, 1e-9) })
        #expect(driven.first(.ended)!.decision == fingerEnded.decision)
    }

    @Test func releaseWithoutVelocityEstimatesFromDrives() {
        var h = harness()
        for k in 0...10 { command(&h, .drive(progress: 0.2 + 0.02 * Double(k)), at: 2 + 0.01 * Double(k)) }
        command(&h, .release(velocity: nil), at: 2.11)
        #expect(near(h.first(.ended)!.velocity, 2.0, 1e-6))
        #expect(h.first(.ended)!.decision == .finish)
    }

    @Test func aLostDriverCancelsADrivenTransitionAndAnimatesItBack() {
        var h = harness()
        command(&h, .drive(progress: 0.6), at: 1.0)
        #expect(command(&h, .driverLost, at: 1.5) == .done)
        let ended = h.first(.ended)!
        #expect(ended.decision == .cancel && ended.reason == .clientLost && ended.progress == 0.6)
        h.settle()
        #expect(h.all(.animating).count > 1)
        #expect(h.events.last?.kind == .cancelled && h.events.last?.progress == 0)
    }

    @Test func aLostDriverLeavesAFingersGestureAndAnAnimationAlone() {
        var h = harness()
        h.drag(ramp(from: 0.01, to: 0.2, t0: 0, t1: 0.1))
        let before = h.events.count
        #expect(command(&h, .driverLost, at: 0.11) != .done)
        #expect(h.events.count == before)
        var animating = harness()
        command(&animating, .run(.finish), at: 1.0)
        #expect(command(&animating, .driverLost, at: 1.01) != .done)
        #expect(animating.first(.ended)?.reason == .command)
    }

    /// A drive with no finger on the screen blocks nothing: the next
    /// finger that pans in from the edge drives the transition as usual
    /// (it used to be ignored until some frame had no contact at all).
    @Test func aFingerAfterADrivenTransitionIsRecognised() {
        var h = harness()
        command(&h, .drive(progress: 0.3), at: 1.0)
        command(&h, .cancel, at: 1.0)
        h.settle()
        let before = h.all(.began).count
        h.drag(ramp(from: 0.01, to: 0.3, t0: 2.0, t1: 2.3))
        #expect(h.all(.began).count == before + 1, "the finger's gesture began")
        #expect(h.all(.began).last?.time ?? 0 >= 2.0)
    }

    /// A finger already on the screen when a drive begins does not start a
    /// gesture of that transition afterwards: it has to lift first.
    @Test func aFingerAlreadyDownWhenADriveBeganHasToLiftFirst() {
        var h = harness()
        h.frame(0.5, [(1, 0.5, 0.5)])   // a finger in the middle: no edge-pan
        command(&h, .drive(progress: 0.3), at: 1.0)
        command(&h, .cancel, at: 1.0)
        h.settle()
        let before = h.all(.began).count
        h.frame(2.0, [(1, 0.5, 0.5), (2, 0.01, 0.5)])   // a second finger at the edge
        h.frame(2.1, [(1, 0.5, 0.5), (2, 0.2, 0.5)])
        #expect(h.all(.began).count == before, "blocked while a finger from before stays down")
        h.frame(2.2, [])
        h.drag(ramp(from: 0.01, to: 0.3, t0: 3.0, t1: 3.3), id: 3)
        #expect(h.all(.began).count == before + 1)
    }

    @Test func driveWhileAFingerDrivesIsBusy() {
        var h = harness()
        h.drag(ramp(from: 0.01, to: 0.2, t0: 0, t1: 0.1))
        #expect(command(&h, .drive(progress: 0.5), at: 0.11) == .refused(code: .busy, message: "a gesture is driving back"))
        #expect(command(&h, .release(velocity: 0), at: 0.11) != .done)
    }

    @Test func releaseOrCancelOfNothingIsNotActive() {
        var h = harness()
        guard case .refused(let code, _) = command(&h, .release(velocity: 0), at: 1) else { Issue.record("accepted"); return }
        #expect(code == .notActive)
        guard case .refused(let code2, _) = command(&h, .cancel, at: 1) else { Issue.record("accepted"); return }
        #expect(code2 == .notActive)
        #expect(h.events.isEmpty)
    }

    @Test func cancelCommandEndsAFingerGestureAndAnimatesBack() {
        var h = harness()
        h.drag(ramp(from: 0.01, to: 0.61, t0: 0, t1: 0.3))
        #expect(command(&h, .cancel, at: 0.31) == .done)
        let ended = h.first(.ended)!
        #expect(ended.decision == .cancel)
        #expect(ended.reason == .command)
        // The finger is still down and keeps moving: nothing more happens.
        h.frame(0.32, [(1, 0.7, 0.5)])
        h.settle()
        #expect(h.all(.began).count == 1)
        #expect(h.events.last?.kind == .cancelled)
    }

    @Test func runAnimatesFromZero() {
        var h = harness()
        #expect(command(&h, .run(.finish), at: 3) == .done)
        #expect(h.kinds().prefix(2) == [.began, .ended])
        #expect(h.first(.ended)!.reason == .command)
        #expect(h.first(.ended)!.decision == .finish)
        h.settle()
        let frames = h.all(.animating)
        // The full range: duration 0.4 s at 60 Hz = 24 frames.
        #expect(frames.count == 24)
        #expect(h.events.last?.kind == .finished)
        // A second run while it animates is busy.
        var busy = harness()
        command(&busy, .run(.finish), at: 0)
        #expect(command(&busy, .run(.finish), at: 0.1) != .done)
    }

    @Test func runToCancelFromIdleEndsAtOnce() {
        var h = harness()
        command(&h, .run(.cancel), at: 1)
        #expect(h.kinds() == [.began, .ended, .cancelled])
    }

    @Test func shutdownCancelsEverythingInFlight() {
        var h = EngineHarness([backSpec(), TransitionSpec(name: "home", gesture: .swipe(direction: .up, fingers: 3))])
        h.drag(ramp(from: 0.01, to: 0.31, t0: 0, t1: 0.3))
        _ = h.engine.perform(.run(.finish), transition: 1, at: 0.3, into: &h.events)
        h.engine.shutdown(at: 0.35, into: &h.events)
        let tail = h.events.suffix(4)
        #expect(tail.map(\.kind) == [.ended, .cancelled, .ended, .cancelled])
        #expect(tail.filter { $0.kind == .ended }.allSatisfy { $0.reason == .shutdown && $0.decision == .cancel })
        #expect(h.engine.isIdle)
        #expect(h.engine.nextDeadline == nil)
    }
}

@Suite("Resync")
struct ResyncTests {
    @Test func aGestureWhoseContactsDidNotSurviveIsLostNotReleased() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.71, t0: 0, t1: 0.3))
        // After the resync the slot holds a different touch.
        h.engine.processResync(TouchFrame(time: 0.35, contacts: [Contact(id: 99, x: 0.7, y: 0.5)]), into: &h.events)
        let ended = h.first(.ended)!
        #expect(ended.reason == .deviceLost)
        #expect(ended.decision == .cancel)
        h.settle()
        #expect(h.events.last?.kind == .cancelled)
    }

    @Test func aGestureWhoseContactsSurvivedGoesOn() {
        var h = EngineHarness([backSpec()])
        h.drag(ramp(from: 0.01, to: 0.31, t0: 0, t1: 0.3))
        h.engine.processResync(TouchFrame(time: 0.35, contacts: [Contact(id: 1, x: 0.4, y: 0.5, downX: 0.01, downY: 0.5)]), into: &h.events)
        #expect(h.first(.ended) == nil)
        #expect(near(h.events.last!.progress, 0.39, 1e-9))
    }
}
