import Testing
@testable import Engine

/// `TransitionEngine.reload`: a new config for new gestures; transitions in
/// flight finish under the config they began with.
@Suite("Reload: new gestures take the new config, those in flight keep theirs")
struct ReloadTests {
    func spec(_ name: String, threshold: Double, edge: Edge = .left) -> TransitionSpec {
        TransitionSpec(name: name, gesture: .edgePan(edge: edge, fingers: 1, edgeMargin: 0.05),
                       finishThreshold: threshold, flickVelocity: 100, completionCurve: .timing(.linear))
    }

    func config(_ specs: TransitionSpec...) -> EngineConfiguration {
        EngineConfiguration(frameRate: 60, transitions: specs)
    }

    /// Found by the `engine` fuzz target (docs/fuzzing.md): a command for a
    /// transition of an earlier config whose animation ends at the
    /// command's time trapped (index out of range): the animation frames
    /// due before the command dropped it. It is refused as unknown, after
    /// the frames.
    @Test func aCommandForAnEarlierConfigsTransitionThatEndsMeanwhileIsRefused() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        _ = h.engine.perform(.run(.finish), transition: 0, at: 0, into: &h.events)
        let moved = h.engine.reload(config(spec("menu", threshold: 0.5, edge: .right)))
        #expect(moved == [1], "the animation goes on as transition 1")
        let outcome = h.engine.perform(.cancel, transition: 1, at: 1.0, into: &h.events)
        guard case .refused(let code, _) = outcome else {
            Issue.record("a command for a transition that is gone was carried out: \(outcome)")
            return
        }
        #expect(code == .unknownTransition)
        #expect(h.kinds().last == .finished, "the animation ran to its end first")
        #expect(h.engine.machines.count == 1)
    }

    @Test func anIdleEngineTakesTheNewConfigAtOnce() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        let moved = h.engine.reload(config(spec("back", threshold: 0.2), spec("menu", threshold: 0.5, edge: .right)))
        #expect(moved == [nil])
        #expect(h.engine.liveCount == 2)
        #expect(h.engine.configuration.transitions.map(\.name) == ["back", "menu"])
        // A slow drag to 0.3 now finishes (threshold 0.2).
        h.drag(ramp(from: 0.0, to: 0.3, t0: 0, t1: 1.5))
        h.frame(1.6, [])
        #expect(h.first(.ended)?.decision == .finish)
    }

    @Test func aGestureInFlightFinishesUnderItsOwnConfigAndTheNextTakesTheNew() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        h.drag(ramp(from: 0.0, to: 0.2, t0: 0, t1: 1.0))
        #expect(h.first(.began)?.transition == 0)
        let moved = h.engine.reload(config(spec("back", threshold: 0.1)))
        #expect(moved == [1], "the drag's transition is kept after the new ones")
        #expect(h.engine.liveCount == 1)
        #expect(h.engine.configuration.transitions.map(\.finishThreshold) == [0.1, 0.5])
        #expect(h.engine.streamIndex(of: 1) == 0, "known to clients by its name's new index")
        // The drag goes on to 0.3 and lifts: under the old threshold (0.5) it cancels.
        h.drag(ramp(from: 0.2, to: 0.3, t0: 1.01, t1: 1.5))
        h.frame(1.6, [])
        let ended = h.first(.ended)!
        #expect(ended.transition == 1)
        #expect(ended.decision == .cancel, "0.3 < the old 0.5")
        // A second finger while the old one animates back begins nothing.
        h.events.removeAll()
        h.downs.removeAll()
        h.drag(ramp(from: 0.0, to: 0.05, t0: 1.61, t1: 1.65), id: 2)
        #expect(h.first(.began) == nil, "the new 'back' waits for the old one to end")
        h.frame(1.66, [])
        h.settle()
        #expect(h.events.last?.kind == .cancelled)
        #expect(h.events.allSatisfy { $0.transition == 1 })
        #expect(h.engine.configuration.transitions.count == 1, "dropped once idle")
        #expect(h.engine.machines.count == 1)
        // The next drag is the new config's: 0.3 ≥ 0.1 finishes.
        h.events.removeAll()
        h.downs.removeAll()
        h.drag(ramp(from: 0.0, to: 0.3, t0: 3, t1: 4.5), id: 3)
        h.frame(4.6, [])
        #expect(h.first(.began)?.transition == 0)
        #expect(h.first(.ended)?.decision == .finish)
    }

    @Test func aDriveBeforeAReloadIsReleasedByName() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        #expect(h.engine.perform(.drive(progress: 0.3), transition: 0, at: 1, into: &h.events) == .done)
        h.engine.reload(config(spec("back", threshold: 0.1)))
        #expect(h.engine.perform(.release(velocity: 0), transition: 0, at: 1.1, into: &h.events) == .done)
        let ended = h.first(.ended)!
        #expect(ended.transition == 1)
        #expect(ended.decision == .cancel, "released under the threshold it began with")
        h.settle()
        #expect(h.engine.machines.count == 1)
    }

    @Test func aTransitionRemovedByTheReloadStillEnds() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        h.engine.perform(.drive(progress: 0.6), transition: 0, at: 1, into: &h.events)
        let moved = h.engine.reload(config(spec("menu", threshold: 0.5, edge: .right)))
        #expect(moved == [1])
        #expect(h.engine.streamIndex(of: 1) == 1, "no namesake: its own index")
        #expect(h.engine.perform(.driverLost, transition: 1, at: 1.2, into: &h.events) == .done)
        h.settle()
        #expect(h.events.last?.kind == .cancelled)
        #expect(h.engine.isIdle)
        #expect(h.engine.configuration.transitions.map(\.name) == ["menu"])
    }

    /// Issue 26: a reload that dropped (or renamed) a transition a client
    /// was driving left it interacting for good: its name was gone, so no
    /// `release` or `cancel` could reach it. `orphaned` ends it at the
    /// reload: `ended` (cancel, reason `reload`), then the way back to rest.
    @Test func aDrivenTransitionWhoseNameTheReloadDropsEndsWithReasonReload() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        _ = h.engine.perform(.drive(progress: 0.6), transition: 0, at: 1, into: &h.events)
        let moved = h.engine.reload(config(spec("menu", threshold: 0.5, edge: .right)))
        #expect(moved == [1])
        h.events.removeAll()
        #expect(h.engine.perform(.orphaned, transition: 1, at: 1.2, into: &h.events) == .done)
        let ended = h.first(.ended)
        #expect(ended?.decision == .cancel && ended?.reason == .reload && ended?.transition == 1)
        #expect(ended?.progress == 0.6, "it ends where it was")
        h.settle()
        #expect(h.kinds().contains(.animating), "animated back, as a cancel is")
        #expect(h.events.last?.kind == .cancelled && h.events.last?.progress == 0)
        #expect(h.engine.isIdle)
        #expect(h.engine.configuration.transitions.map(\.name) == ["menu"], "dropped once at rest")
    }

    @Test func aFingersTransitionWhoseNameTheReloadDropsEndsToo() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        h.drag(ramp(from: 0.0, to: 0.3, t0: 0, t1: 1.0))
        let moved = h.engine.reload(config(spec("forward", threshold: 0.5)))
        #expect(moved == [1], "renamed: no namesake in the new config")
        h.events.removeAll()
        #expect(h.engine.perform(.orphaned, transition: 1, at: 1.05, into: &h.events) == .done)
        #expect(h.first(.ended)?.reason == .reload)
        // The finger goes on and lifts: it is still claimed, so it starts nothing.
        h.drag(ramp(from: 0.3, to: 0.5, t0: 1.1, t1: 1.5))
        h.frame(1.6, [])
        h.settle()
        #expect(h.all(.began).isEmpty, "the finger that drove it begins nothing new")
        #expect(h.all(.ended).count == 1 && h.events.last?.kind == .cancelled)
    }

    /// Transitions the new config keeps (by name) finish under the old one:
    /// `orphaned` is not theirs, nor an animation already under way.
    @Test func orphanedIsRefusedForAKeptTransitionAndAnAnimation() {
        var h = EngineHarness([spec("back", threshold: 0.5), spec("menu", threshold: 0.5, edge: .right)])
        _ = h.engine.perform(.drive(progress: 0.6), transition: 0, at: 1, into: &h.events)
        _ = h.engine.perform(.run(.finish), transition: 1, at: 1, into: &h.events)
        let moved = h.engine.reload(config(spec("back", threshold: 0.1)))
        #expect(moved == [1, 2])
        h.events.removeAll()
        #expect(h.engine.perform(.orphaned, transition: 1, at: 1.05, into: &h.events) != .done, "back is kept")
        #expect(h.engine.perform(.orphaned, transition: 2, at: 1.05, into: &h.events) != .done, "menu is animating already")
        #expect(h.engine.perform(.orphaned, transition: 0, at: 1.05, into: &h.events) != .done, "a current transition")
        #expect(h.all(.ended).isEmpty)
    }

    @Test func shutdownEndsTheOldConfigsTransitionsToo() {
        var h = EngineHarness([spec("back", threshold: 0.5)])
        h.drag(ramp(from: 0.0, to: 0.2, t0: 0, t1: 1.0))
        h.engine.reload(config(spec("back", threshold: 0.1)))
        h.engine.shutdown(at: 1.1, into: &h.events)
        #expect(h.events.suffix(2).map(\.kind) == [.ended, .cancelled])
        #expect(h.engine.isIdle)
    }
}
