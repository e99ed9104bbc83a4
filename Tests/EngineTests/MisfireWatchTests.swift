import Testing
@testable import Engine

/// `MisfireWatch`: which gestures count as misfires, and the rate limit.
@Suite("Misfire watch")
struct MisfireWatchTests {
    let configuration = EngineConfiguration(frameRate: 60, transitions: [
        TransitionSpec(name: "back", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05), finishThreshold: 0.5),
        TransitionSpec(name: "low", gesture: .edgePan(edge: .right, fingers: 1, edgeMargin: 0.05), finishThreshold: 0.3),
    ])

    /// A gesture of transition `t` at `time` rising to `peak`, ended at `end` with `decision` and `reason`.
    func gesture(_ t: Int = 0, at time: Double, peak: Double, end: Double, _ decision: Decision = .cancel,
                 _ reason: EndReason = .released) -> [TransitionEvent] {
        [TransitionEvent(kind: .began, transition: t, seq: 1, time: time, progress: 0.02, velocity: 0),
         TransitionEvent(kind: .changed, transition: t, seq: 2, time: time + 0.1, progress: peak, velocity: 1),
         TransitionEvent(kind: .changed, transition: t, seq: 3, time: time + 0.2, progress: end, velocity: -2),
         TransitionEvent(kind: .ended, transition: t, seq: 4, time: time + 0.2, progress: end, velocity: -2,
                         decision: decision, reason: reason)]
    }

    @Test func aCancelAfterPassingMostOfTheWayIsALateCancel() throws {
        var watch = MisfireWatch(interval: 10)
        let observed = watch.observe(gesture(at: 1, peak: 0.57, end: 0.41), [], configuration: configuration)
        let misfire = try #require(observed)
        #expect(misfire.kind == .lateCancel)
        #expect(misfire.transition == "back")
        #expect(misfire.time == 1.2)
        #expect(misfire.detail == "decision=cancel reason=released progress=0.41 peak=0.57")
        #expect(misfire.suppressed == 0)
    }

    @Test func ordinaryEndsAreNoMisfires() {
        var watch = MisfireWatch(interval: 1)
        // Never past most of the way (0.5 here).
        #expect(watch.observe(gesture(at: 1, peak: 0.49, end: 0.2), [], configuration: configuration) == nil)
        // Finished, however it went.
        #expect(watch.observe(gesture(at: 3, peak: 0.9, end: 0.8, .finish), [], configuration: configuration) == nil)
        // Cancelled by a command, a palm, a reload: not the gesture's doing.
        for reason in [EndReason.command, .palm, .reload, .clientLost, .stuck, .shutdown] {
            #expect(watch.observe(gesture(at: 5, peak: 0.9, end: 0.8, .cancel, reason), [], configuration: configuration) == nil)
        }
        // A lower threshold lowers "most of the way": past 0.3 is late there.
        #expect(watch.observe(gesture(1, at: 9, peak: 0.35, end: 0.1), [], configuration: configuration)?.kind == .lateCancel)
    }

    @Test func aPanelLostMidGestureAndALongRejectedTravelAreMisfires() {
        var watch = MisfireWatch(interval: 1)
        #expect(watch.observe(gesture(at: 1, peak: 0.1, end: 0.1, .cancel, .deviceLost), [], configuration: configuration)?.kind
                == .deviceLost)
        let long = Explanation.rejected(transition: 0, time: 5, why: .sideways(sideways: 0.3, along: 0.02))
        let short = Explanation.rejected(transition: 0, time: 7, why: .sideways(sideways: 0.05, along: 0.02))
        let other = Explanation.rejected(transition: 0, time: 9, why: .tooManyContacts(count: 2, fingers: 1))
        let misfire = watch.observe([], [long], configuration: configuration)
        #expect(misfire?.kind == .longReject)
        #expect(misfire?.detail == "rejected=sideways sideways=0.3 along=0.02")
        #expect(watch.observe([], [short], configuration: configuration) == nil)
        #expect(watch.observe([], [other], configuration: configuration) == nil)
    }

    @Test func atMostOneIsKeptPerIntervalAndTheNextSaysHowManyWereNot() {
        var watch = MisfireWatch(interval: 10)
        var kept: [(time: Double, suppressed: Int)] = []
        for k in 0..<25 {
            if let misfire = watch.observe(gesture(at: Double(2 * k), peak: 0.6, end: 0.3), [], configuration: configuration) {
                kept.append((misfire.time, misfire.suppressed))
            }
        }
        // Misfires at 0.2, 2.2, …, 48.2: kept at 0.2, 10.2, 20.2, 30.2, 40.2.
        #expect(kept.map(\.time) == [0.2, 10.2, 20.2, 30.2, 40.2])
        #expect(kept.map(\.suppressed) == [0, 4, 4, 4, 4])
        #expect(watch.suppressed == 4)
        // Two in one batch: one is kept, the other counted.
        var fresh = MisfireWatch(interval: 10)
        let both = gesture(at: 1, peak: 0.6, end: 0.3) + gesture(1, at: 1, peak: 0.6, end: 0.2)
        #expect(fresh.observe(both, [], configuration: configuration)?.transition == "back")
        #expect(fresh.suppressed == 1)
    }
}
