import Testing
@testable import Engine

/// Several touchscreens: each frame is one panel's state; contacts of two
/// panels never make one gesture, a transition may be bound to one panel,
/// and the loss of one panel cancels only its gestures.
@Suite("Several touchscreens")
struct SeveralSourcesTests {
    func twoFingerSpec() -> TransitionSpec {
        TransitionSpec(name: "swipe", gesture: .swipe(direction: .up, fingers: 2))
    }

    @Test func fingersOnTwoPanelsNeverMakeOneGesture() {
        var h = EngineHarness([twoFingerSpec()])
        // One finger on each panel, both moving up together: no two-finger swipe.
        for k in 0...30 {
            let t = Double(k) * 0.01, y = 0.8 - Double(k) * 0.015
            h.frame(t, [(1, 0.4, y)], source: 0)
            h.frame(t + 0.001, [(1, 0.6, y)], source: 1)
        }
        #expect(h.events.isEmpty, "\(h.kinds())")
        // The same two fingers on one panel make it.
        for k in 0...30 {
            let t = 1 + Double(k) * 0.01, y = 0.8 - Double(k) * 0.015
            h.frame(t, [(2, 0.4, y), (3, 0.6, y)], source: 1)
        }
        #expect(h.first(.began) != nil)
    }

    @Test func aFingerOnAnotherPanelDoesNotBlockAGestureOrMoveIt() {
        var h = EngineHarness([backSpec()])
        // A finger resting on panel 1 while a left-edge drag runs on panel 0.
        h.frame(0, [(1, 0.5, 0.5)], source: 1)
        for (t, x) in ramp(from: 0.01, to: 0.6, t0: 0.01, t1: 0.5) {
            h.frame(t, [(1, x, 0.5)], source: 0)
            h.frame(t + 0.001, [(1, 0.5, 0.5)], source: 1)   // same id, other panel: not the dragging finger
        }
        #expect(h.first(.began) != nil)
        let last = h.all(.changed).last!
        #expect(last.progress > 0.5, "followed panel 0's finger: \(last.progress)")
        // Panel 1's frame without that id does not release panel 0's gesture.
        h.frame(0.52, [], source: 1)
        #expect(h.first(.ended) == nil)
        h.frame(0.53, [], source: 0)
        #expect(h.first(.ended)?.reason == .released)
    }

    @Test func losingOnePanelCancelsOnlyItsGesture() {
        var left = backSpec()
        left.name = "back"
        let right = TransitionSpec(name: "forward", gesture: .edgePan(edge: .right, fingers: 1, edgeMargin: 0.05))
        var h = EngineHarness([left, right])
        for (t, x) in ramp(from: 0.01, to: 0.3, t0: 0, t1: 0.3) {
            h.frame(t, [(1, x, 0.5)], source: 0)
            h.frame(t + 0.001, [(1, 1 - x, 0.5)], source: 1)
        }
        #expect(h.all(.began).count == 2)
        // Panel 1 goes away: an empty resync frame of its source.
        h.engine.processResync(TouchFrame(time: 0.31, contacts: [], source: 1), into: &h.events)
        let ended = h.all(.ended)
        #expect(ended.count == 1)
        #expect(ended.first?.transition == 1 && ended.first?.reason == .deviceLost)
        // Panel 0's drag goes on.
        let before = h.all(.changed).filter { $0.transition == 0 }.count
        h.frame(0.32, [(1, 0.35, 0.5)], source: 0)
        #expect(h.all(.changed).filter { $0.transition == 0 }.count == before + 1)
    }

    @Test func aBoundTransitionRecognisesOnlyItsPanel() {
        var spec = backSpec()
        spec.device = "/dev/input/by-id/left-panel"
        var h = EngineHarness([spec])
        h.engine.nameSource(0, ["/dev/input/event3", "/dev/input/by-id/left-panel", "Left Panel"])
        h.engine.nameSource(1, ["/dev/input/event4", "Right Panel"])
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.4).map { ($0.0, $0.1) }, id: 1)
        #expect(h.first(.began) != nil, "panel 0 is the bound one")
        h.frame(0.5, [])
        h.settle()
        let count = h.events.count
        for (t, x) in ramp(from: 0.01, to: 0.6, t0: 2, t1: 2.4) { h.frame(t, [(7, x, 0.5)], source: 1) }
        #expect(h.events.count == count, "panel 1 is not bound: \(h.kinds()[count...])")
        #expect(h.engine.mayStartGesture(source: 0, x: 0.01, y: 0.5))
        #expect(!h.engine.mayStartGesture(source: 1, x: 0.01, y: 0.5))
        #expect(!h.engine.mayStartGesture(source: 0, x: 0.5, y: 0.5))
    }

    @Test func aClaimIsPerPanel() {
        var h = EngineHarness([backSpec()])
        for (t, x) in ramp(from: 0.01, to: 0.3, t0: 0, t1: 0.3) { h.frame(t, [(1, x, 0.5)], source: 0) }
        #expect(h.engine.isClaimed(source: 0, id: 1))
        #expect(!h.engine.isClaimed(source: 1, id: 1))
    }

    @Test func aFrameOfAnImpossibleSourceIsIgnored() {
        var h = EngineHarness([backSpec()])
        h.frame(0, [(1, 0.01, 0.5)], source: TouchFrame.maximumSources)
        h.frame(0.1, [(1, 0.5, 0.5)], source: TouchFrame.maximumSources)
        h.frame(0.2, [(1, 0.01, 0.5)], source: -1)
        #expect(h.events.isEmpty)
    }
}
