import Testing
import TestSupport
import Engine
@testable import TouchFilter

@Suite("block: pinches and swipes no transition claims, kept from the copy")
struct BlockTests {
    /// The tracking ids the copy was given, in order.
    func begun(_ h: FilterHarness) -> [Ev] {
        h.written.events.filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value >= 0 }
    }

    func wellFormed(_ h: FilterHarness) -> MultitouchValidator {
        var v = MultitouchValidator()
        v.read(h.written)
        return v
    }

    func withheld(_ h: inout FilterHarness) -> Int {
        h.filter.takeNotices().filter { $0 == .touchWithheld(.block) }.count
    }

    @Test func aPinchReachesTheCopyAsTheFirstFingerAloneWhichGoesOnUnbroken() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        #expect(!h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000)).isEmpty, "a first finger goes out live")
        // The second finger is held: nothing of it goes out.
        #expect(h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2500, y: 2000)) == [])
        // They spread apart 2 × 60 units: the spread grows by 60 (0.015 of
        // the screen), not yet a pinch; the first finger's move goes out.
        #expect(h.frame(1.02, [.slot(0), .x(1440), .slot(1), .x(2560)]) == frames((1.02, [.x(1440), .absX(1440)])))
        // 2 × 120: 0.029 of spread, the centroid still: a pinch.
        #expect(h.frame(1.03, [.slot(0), .x(1380), .slot(1), .x(2620)]) == frames((1.03, [.x(1380), .absX(1380)])))
        #expect(withheld(&h) == 1)
        // Past its hold the second finger stays away; the first goes on.
        h.run(until: 1.2)
        #expect(h.frame(1.21, [.slot(0), .x(1300), .slot(1), .x(2700)]) == frames((1.21, [.x(1300), .absX(1300)])))
        h.frame(1.22, [.slot(1), .id(-1)])
        h.frame(1.23, [.slot(0), .id(-1)])
        #expect(begun(h) == [.id(0)])
        #expect(!h.written.events.contains(.x(2500)))
        #expect(wellFormed(h).problems == [])
        #expect(h.filter.nextDeadline == nil)
    }

    @Test func twoFingersLandingInOneFrameAreBothKeptFromTheCopy() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000) + Ev.down(slot: 1, id: 11, x: 2500, y: 2000)) == [])
        // Closing in: a pinch within the hold.
        #expect(h.frame(1.02, [.slot(0), .x(1600), .slot(1), .x(2400)]) == [])
        #expect(withheld(&h) == 2)
        h.run(until: 1.3)
        h.frame(1.31, [.slot(0), .id(-1), .slot(1), .id(-1)])
        #expect(h.written == [])
    }

    @Test func aSwipeThatIsNotBlockedIsReleasedAfterTheHoldWithItsTiming() {
        // Only pinch is blocked; two fingers moving together are a swipe.
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2500, y: 2000))
        h.frame(1.03, [.slot(0), .y(1800), .slot(1), .y(1800)])
        h.frame(1.05, [.slot(0), .y(1600), .slot(1), .y(1600)])
        h.run(until: 1.2)
        h.frame(1.21, [.slot(0), .id(-1), .slot(1), .id(-1)])
        h.run(until: 1.5)
        #expect(begun(h) == [.id(0), .id(1)])
        // The second finger's down went out when its hold ended (1.09), its
        // later frames with the same lag.
        let downs = h.written.filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value == 1 }
        #expect(downs.map(\.due) == [1.01 + 0.08])
        #expect(withheld(&h) == 0)
        #expect(wellFormed(h).problems == [])
    }

    @Test func aPinchRecognisedAfterTheHoldLiftsTheSecondFingerOnTheCopyAtOnce() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2500, y: 2000))
        // Still for longer than the hold: released, with its lag.
        h.run(until: 1.15)
        #expect(begun(h) == [.id(0), .id(1)])
        // Then they pinch: the second finger lifts on the copy now, the first stays.
        let pinch = h.frame(1.2, [.slot(0), .x(1400), .slot(1), .x(2600)])
        #expect(pinch.contains { $0.code == Code.ABS_MT_TRACKING_ID && $0.value == -1 })
        #expect(pinch.contains { $0.code == Code.ABS_MT_POSITION_X && $0.value == 1400 })
        #expect(!pinch.contains { $0.code == Code.ABS_MT_POSITION_X && $0.value == 2600 })
        #expect(withheld(&h) == 1)
        #expect(h.frame(1.21, [.slot(1), .x(2700)]) == [])
        h.frame(1.3, [.slot(0), .id(-1), .slot(1), .id(-1)])
        h.run(until: 1.5)
        let v = wellFormed(h)
        #expect(v.problems == [])
        #expect(v.touchesBegun == 2)
    }

    @Test func aFingerLandingWhileABlockedOneIsDownIsWithheldToo() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2500, y: 2000))
        h.frame(1.03, [.slot(0), .x(1380), .slot(1), .x(2620)])
        #expect(withheld(&h) == 1)
        // A third finger, and the first lifts and lands again: neither goes out.
        #expect(h.frame(1.05, Ev.down(slot: 2, id: 12, x: 3000, y: 3000)) == [])
        h.frame(1.06, [.slot(0), .id(-1)])
        #expect(h.frame(1.07, Ev.down(slot: 0, id: 13, x: 1000, y: 1000)) == [])
        #expect(withheld(&h) == 2)
        // Once the withheld fingers lift, a touch goes out again.
        h.frame(1.1, [.slot(0), .id(-1), .slot(1), .id(-1), .slot(2), .id(-1)])
        #expect(!h.frame(1.2, Ev.down(slot: 0, id: 14, x: 1000, y: 1000)).isEmpty)
        #expect(wellFormed(h).problems == [])
    }

    @Test func theFirstFingerIsTheOldestOnTheCopyWhenTheGroupFormed() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1000, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2000, y: 2000))
        // The first lifts; the second, released after its hold, goes on alone.
        h.frame(1.05, [.slot(0), .id(-1)])
        h.run(until: 1.2)
        // A new finger joins it and they pinch: the new one is withheld, the
        // one the copy has had for a while stays.
        h.frame(1.3, Ev.down(slot: 0, id: 12, x: 3000, y: 2000))
        h.frame(1.32, [.slot(0), .x(3150), .slot(1), .x(1850)])
        #expect(withheld(&h) == 1)
        // (it keeps the lag of its release: its move is due 80 ms on)
        h.frame(1.33, [.slot(1), .x(1800)])
        h.run(until: 1.5)
        #expect(h.written.contains { $0.code == Code.ABS_MT_POSITION_X && $0.value == 1800 && $0.due == 1.33 + 0.08 })
        #expect(begun(h) == [.id(0), .id(1)])
        #expect(!h.written.contains { $0.code == Code.ABS_MT_POSITION_X && $0.value >= 3000 })
        #expect(wellFormed(h).problems == [])
    }

    @Test func aRegionThatBlocksNothingLetsAPinchThrough() {
        let map = FilterRegion(x: 0...0.5, y: 0...1, block: [])
        var h = FilterHarness(rules: FilterRules(block: [.pinch, .swipe2], regions: [map]))
        // In the left half (the region): the pinch reaches the copy whole.
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 500, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 1200, y: 2000))
        h.frame(1.03, [.slot(0), .x(300), .slot(1), .x(1400)])
        #expect(begun(h) == [.id(0), .id(1)], "not even held: the region blocks nothing")
        h.frame(1.1, [.slot(0), .id(-1), .slot(1), .id(-1)])
        // In the right half, [filter]'s list applies.
        h.frame(2.0, Ev.down(slot: 0, id: 12, x: 2500, y: 2000))
        h.frame(2.01, Ev.down(slot: 1, id: 13, x: 3500, y: 2000))
        h.frame(2.03, [.slot(0), .x(2300), .slot(1), .x(3700)])
        h.run(until: 2.5)
        #expect(begun(h) == [.id(0), .id(1), .id(2)])
        #expect(withheld(&h) == 1)
    }

    @Test func aTwoFingerTapIsNotAGestureAndReachesTheCopyWithItsTiming() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch, .swipe2]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2500, y: 2000))
        h.frame(1.05, [.slot(0), .id(-1), .slot(1), .id(-1)])
        h.run(until: 1.5)
        let v = wellFormed(h)
        #expect(v.problems == [])
        #expect(v.touchesBegun == 2)
        #expect(withheld(&h) == 0)
    }

    @Test func aThreeFingerSwipeIsBlockedOnlyWithThreeFingers() {
        var h = FilterHarness(rules: FilterRules(block: [.swipe3]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2000, y: 2000))
        // Two fingers moving together are no blocked gesture…
        h.frame(1.02, [.slot(0), .y(1900), .slot(1), .y(1900)])
        #expect(withheld(&h) == 0)
        // …three are.
        h.frame(1.03, Ev.down(slot: 2, id: 12, x: 2500, y: 1900))
        h.frame(1.05, [.slot(0), .y(1700), .slot(1), .y(1700), .slot(2), .y(1700)])
        #expect(withheld(&h) == 2)
        h.frame(1.3, [.slot(0), .id(-1), .slot(1), .id(-1), .slot(2), .id(-1)])
        h.run(until: 1.5)
        #expect(begun(h) == [.id(0)])
        #expect(wellFormed(h).problems == [])
    }

    @Test func aClaimedGestureIsTheTransitionsNotTheBlocks() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000) + Ev.down(slot: 1, id: 11, x: 2500, y: 2000),
                [0: .free, 1: .free])
        h.frame(1.02, [.slot(0), .x(1600), .slot(1), .x(2400)], [0: .claimed, 1: .claimed])
        #expect(withheld(&h) == 0)
        #expect(h.written == [])
    }

    /// The finger kept is the oldest the copy has: one held (in a start
    /// area) is older, yet the one already out stays on the copy.
    @Test func aFingerAlreadyOnTheCopyIsKeptWhenTheOlderOneIsStillHeld() {
        // The right half blocks nothing: B, landing there, goes out live.
        var h = FilterHarness(rules: FilterRules(block: [.pinch], regions: [FilterRegion(x: 0.5...1, y: 0...1, block: [])]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 20, y: 2000), [0: .startArea])
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 3000, y: 2000), [0: .startArea, 1: .free])
        #expect(begun(h) == [.id(0)], "B is out, A held")
        // Their centroid is in the left half, where pinch is blocked: they pinch.
        h.frame(1.02, [.slot(0), .x(200), .slot(1), .x(2800)], [0: .startArea, 1: .free])
        #expect(withheld(&h) == 1, "A only")
        h.run(until: 1.5)
        h.frame(1.6, [.slot(0), .id(-1), .slot(1), .id(-1)])
        h.run(until: 2)
        #expect(begun(h) == [.id(0)])
        // B ended only when it lifted, not when the pinch showed.
        let end = h.written.first { $0.code == Code.ABS_MT_TRACKING_ID && $0.value == -1 }
        #expect(end?.due == 1.6)
        #expect(wellFormed(h).problems == [])
    }

    /// New regions mid-gesture: the group keeps the `block` list it formed
    /// under and its reference, so the pinch is still recognised in time.
    @Test func newRegionsMidPinchDoNotRestartItsRecognition() {
        var h = FilterHarness(rules: FilterRules(block: [.pinch]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1500, y: 2000))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2500, y: 2000))
        h.frame(1.02, [.slot(0), .x(1440), .slot(1), .x(2560)])
        h.filter.replaceRegions([FilterRegion(x: 0...0.1, y: 0...0.1, block: [])])
        h.frame(1.03, [.slot(0), .x(1380), .slot(1), .x(2620)])
        #expect(withheld(&h) == 1)
        #expect(begun(h) == [.id(0)])
    }
}
