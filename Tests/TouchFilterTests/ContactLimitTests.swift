import Testing
import TestSupport
import Engine
@testable import TouchFilter

@Suite("max_contacts: the copy never has more touches than the limit")
struct ContactLimitTests {
    let on = true, off = false

    @Test func aSecondContactUnderMaxContactsOneNeverReachesTheCopyAndTheFirstGoesOnUnbroken() {
        var h = FilterHarness(rules: FilterRules(maxContacts: 1))
        let first = h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 200))
        #expect(first == frames((1.0, cloneDown(slot: 0, id: 0, x: 100, y: 200)
                                     + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(100), .absY(200)])))
        // A second finger lands as the first moves: only the move goes out.
        let second = h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2000, y: 2000) + [.slot(0), .x(110)])
        #expect(second == frames((1.01, [.x(110), .absX(110)])))
        #expect(h.frame(1.02, [.slot(1), .x(2100), .slot(0), .x(120)]) == frames((1.02, [.x(120), .absX(120)])))
        // The first lifts; the second, still down, stays withheld: it never appears mid-touch.
        #expect(h.frame(1.03, [.slot(0), .id(-1), .slot(1), .x(2200)])
                == frames((1.03, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.frame(1.04, [.slot(1), .x(2300)]) == [])
        #expect(h.frame(1.05, [.slot(1), .id(-1)]) == [])
        // The next touch is forwarded.
        let next = h.frame(1.1, Ev.down(slot: 1, id: 12, x: 500, y: 600))
        #expect(next == frames((1.1, cloneDown(slot: 1, id: 1, x: 500, y: 600)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(500), .absY(600)])))
        var v = MultitouchValidator()
        v.read(h.written)
        #expect(v.problems == [])
        #expect(v.touchesBegun == 2)
    }

    @Test func twoFingersDownInOneFrameUnderOneGiveTheLowerSlotOnly() {
        var h = FilterHarness(rules: FilterRules(maxContacts: 1))
        let down = h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100) + Ev.down(slot: 1, id: 11, x: 300, y: 300))
        #expect(down == frames((1.0, cloneDown(slot: 0, id: 0, x: 100, y: 100)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(100), .absY(100)])))
    }

    @Test func aLimitOfTwoLetsAPinchThroughAndWithholdsTheThirdFinger() {
        var h = FilterHarness(rules: FilterRules(maxContacts: 2))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 300, y: 300))
        #expect(h.frame(1.02, Ev.down(slot: 2, id: 12, x: 500, y: 500)) == [])
        #expect(h.written.events.filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value >= 0 }.count == 2)
    }

    @Test func aHeldTouchCountsFromItsFirstFrame() {
        // An edge touch held for the hold, a second finger meanwhile: the
        // held one may be released, so the second is withheld; the held one
        // goes out when its hold ends.
        var h = FilterHarness(rules: FilterRules(maxContacts: 1))
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 10, x: 5, y: 100), [0: .startArea]) == [])
        #expect(h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2000, y: 2000), [0: .startArea, 1: .free]) == [])
        h.run(until: 1.2)
        let ids = h.written.events.filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value >= 0 }
        #expect(ids == [.id(0)])
        #expect(h.written.events.contains(.x(5)) && !h.written.events.contains(.x(2000)))
    }

    @Test func aLiftedTouchWhoseEndWaitsForItsLagIsEndedAtOnceToMakeRoom() {
        var h = FilterHarness(rules: FilterRules(maxContacts: 1))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100), [0: .startArea])
        // Lifted while held: released now, its up due at 1.06 (lag 30 ms).
        let tap = h.frame(1.03, [.id(-1)])
        #expect(tap == frames((1.03, cloneDown(slot: 0, id: 0, x: 100, y: 100)
                                   + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(100), .absY(100)])))
        // The next tap lands before then: the first one's up goes out now, then the new touch.
        let next = h.frame(1.04, Ev.down(slot: 1, id: 11, x: 2000, y: 2000))
        #expect(next == frames((1.04, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)]),
                               (1.04, cloneDown(slot: 1, id: 1, x: 2000, y: 2000)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(2000), .absY(2000)])))
        #expect(h.filter.nextDeadline == nil)
        var v = MultitouchValidator()
        v.read(h.written)
        #expect(v.problems == [])
    }

    @Test func aClaimedOrWithheldTouchTakesNoPlace() {
        var h = FilterHarness(rules: FilterRules(maxContacts: 1))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100), [0: .claimed])
        #expect(h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2000, y: 2000), [0: .claimed]).events.contains(.id(0)))
        #expect(h.frame(1.02, Ev.down(slot: 2, id: 12, x: 3000, y: 3000), [0: .claimed]) == [])
        // Its place comes back when the forwarded one lifts, not the withheld one.
        h.frame(1.03, [.slot(1), .id(-1)], [0: .claimed])
        #expect(h.frame(1.04, Ev.down(slot: 1, id: 13, x: 500, y: 500), [0: .claimed]).events.contains(.id(1)))
    }

    // MARK: Regions

    /// The right half of the screen allows two contacts, the rest one.
    let mapRules = FilterRules(maxContacts: 1, regions: [FilterRegion(x: 0.5...1, y: 0...1, maxContacts: 2)])

    func begun(_ h: FilterHarness) -> Int {
        h.written.events.filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value >= 0 }.count
    }

    @Test func aRegionsOwnLimitAppliesByWhereATouchBegins() {
        // Both in the region: a pinch goes through; a third finger does not.
        var inside = FilterHarness(rules: mapRules)
        inside.frame(1.0, Ev.down(slot: 0, id: 10, x: 3000, y: 100))
        inside.frame(1.01, Ev.down(slot: 1, id: 11, x: 3500, y: 100))
        inside.frame(1.02, Ev.down(slot: 2, id: 12, x: 3200, y: 100))
        #expect(begun(inside) == 2)

        // The first begins in the region and moves out: it keeps the region's limit.
        var movedOut = FilterHarness(rules: mapRules)
        movedOut.frame(1.0, Ev.down(slot: 0, id: 10, x: 3000, y: 100))
        movedOut.frame(1.01, [.x(100)])
        movedOut.frame(1.02, Ev.down(slot: 1, id: 11, x: 3500, y: 100))
        #expect(begun(movedOut) == 2)

        // The first begins outside: its limit of 1 holds for a second in the region.
        var outside = FilterHarness(rules: mapRules)
        outside.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100))
        outside.frame(1.01, [.x(3000)])
        outside.frame(1.02, Ev.down(slot: 1, id: 11, x: 3500, y: 100))
        #expect(begun(outside) == 1)

        // And the other way round: a second outside the region, with the first inside.
        var secondOutside = FilterHarness(rules: mapRules)
        secondOutside.frame(1.0, Ev.down(slot: 0, id: 10, x: 3000, y: 100))
        secondOutside.frame(1.02, Ev.down(slot: 1, id: 11, x: 100, y: 100))
        #expect(begun(secondOutside) == 1)
    }

    @Test func regionsAreInScreenUnitsAfterThePanelsGeometry() {
        // Mounted upside down: the panel's left edge is the screen's right.
        var h = FilterHarness(rules: mapRules, geometry: ScreenGeometry(rotation: .half))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 200, y: 100))
        #expect(begun(h) == 2)
        var right = FilterHarness(rules: mapRules, geometry: ScreenGeometry(rotation: .half))
        right.frame(1.0, Ev.down(slot: 0, id: 10, x: 3000, y: 100))
        right.frame(1.01, Ev.down(slot: 1, id: 11, x: 3500, y: 100))
        #expect(begun(right) == 1)
    }

    @Test func noLimitAnywhereButInARegion() {
        let rules = FilterRules(regions: [FilterRegion(x: 0...0.25, y: 0...1, maxContacts: 1)])
        var h = FilterHarness(rules: rules)
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 3000, y: 100))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 3500, y: 100))
        h.frame(1.02, Ev.down(slot: 2, id: 12, x: 100, y: 100))
        #expect(begun(h) == 2)
    }

    @Test func manyFingersUnderEachLimitGiveAWellFormedCopy() {
        for limit in 1...3 {
            var h = FilterHarness(rules: FilterRules(maxContacts: limit))
            var v = MultitouchValidator()
            var t = 1.0
            var id: Int32 = 1
            for round in 0..<30 {
                for slot in Int32(0)..<5 where (round + Int(slot)) % 3 != 0 {
                    h.frame(t, Ev.down(slot: slot, id: id, x: id * 10, y: 100), [Int(slot): round % 4 == 0 ? .startArea : .free])
                    id += 1
                    t += 0.005
                }
                for slot in Int32(0)..<5 where (round + Int(slot)) % 2 == 0 {
                    h.frame(t, [.slot(slot), .id(-1)])
                    t += 0.005
                }
            }
            h.frame(t, (Int32(0)..<5).flatMap { [Ev.slot($0), .id(-1)] })
            h.run(until: t + 1)
            v.read(h.written)
            #expect(v.problems == [], "limit \(limit)")
            #expect(v.isIdle)
            // Never more than the limit at once.
            var most = 0
            var check = MultitouchValidator()
            for output in h.written {
                check.read(output)
                if check.betweenFrames { most = max(most, check.activeCount) }
            }
            #expect(most == limit, "limit \(limit)")
        }
    }

    /// The UI's regions (`filter_regions`) replace a region's limit: a
    /// touch already down keeps the limit it began under, so a second one
    /// is still withheld while it is down; the touch after it is not.
    @Test func aTouchDownKeepsItsLimitWhenTheRegionsAreReplaced() {
        var h = FilterHarness(rules: FilterRules(regions: [FilterRegion(x: 0...1, y: 0...1, maxContacts: 1)]))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 100))
        h.filter.replaceRegions([])
        #expect(h.frame(1.01, Ev.down(slot: 1, id: 11, x: 300, y: 300)) == [])
        h.frame(1.02, [.slot(0), .id(-1), .slot(1), .id(-1)])
        h.frame(1.1, Ev.down(slot: 0, id: 12, x: 100, y: 100))
        #expect(!h.frame(1.11, Ev.down(slot: 1, id: 13, x: 300, y: 300)).isEmpty, "no limit for the touches after")
        #expect(h.written.events.filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value >= 0 }.count == 3)
    }
}
