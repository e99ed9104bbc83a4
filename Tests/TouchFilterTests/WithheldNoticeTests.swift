import Testing
import Engine
@testable import TouchFilter

/// What the filter withholds is noticed for the counts (`takeNotices`):
/// once per touch, with its reason; and the ghost patterns it quarantines
/// can be read (`ghostPatterns`).
@Suite("Withheld touches are noticed; ghost patterns in force are read")
struct WithheldNoticeTests {
    @Test func aTouchOneTooManyForMaxContactsIsNoticedOnce() {
        var h = FilterHarness(rules: FilterRules(maxContacts: 1))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 200))
        #expect(h.filter.takeNotices() == [])
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2000, y: 2000))
        #expect(h.filter.takeNotices() == [.touchWithheld(.maxContacts)])
        // Its later frames, and its lift, say nothing more.
        h.frame(1.02, [.slot(1), .x(2100)])
        h.frame(1.03, [.slot(1), .id(-1)])
        #expect(h.filter.takeNotices() == [])
        // Two at once over the limit: two notices.
        h.frame(1.04, Ev.down(slot: 1, id: 12, x: 500, y: 500) + Ev.down(slot: 2, id: 13, x: 900, y: 900))
        #expect(h.filter.takeNotices() == [.touchWithheld(.maxContacts), .touchWithheld(.maxContacts)])
    }

    @Test func withoutALimitNothingIsNoticed() {
        var h = FilterHarness()
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 100, y: 200))
        h.frame(1.01, Ev.down(slot: 1, id: 11, x: 2000, y: 2000))
        h.frame(1.02, [.slot(0), .id(-1), .slot(1), .id(-1)])
        #expect(h.filter.takeNotices() == [])
    }

    @Test func aPalmIsNoticedAsItBeginsOrWhenATouchBecomesOne() {
        var h = FilterHarness(device: PalmTests.panel(resolution: 10), rules: FilterRules(palmMillimetres: 20))
        // A palm by its tool type, from its first frame: once.
        h.frame(1.0, PalmTests.down(slot: 0, id: 10, x: 100, y: 100, major: 30, tool: 2))
        h.frame(1.01, [.x(150)])
        #expect(h.filter.takeNotices() == [.touchWithheld(.palm)])
        // A finger that grows over palm_mm mid-touch: once, when it does.
        h.frame(1.02, PalmTests.down(slot: 1, id: 11, x: 2000, y: 2000, major: 30))
        #expect(h.filter.takeNotices() == [])
        h.frame(1.03, [.slot(1), .major(250)])
        h.frame(1.04, [.slot(1), .major(251)])
        #expect(h.filter.takeNotices() == [.touchWithheld(.palm)])
    }

    @Test func theConfirmedPatternsAreReadUntilTheyLapse() {
        var h = GhostTouchTests.harness()
        let p = GhostTouchTests.period
        GhostTouchTests.tap(&h, at: 1, id: 1)
        GhostTouchTests.tap(&h, at: 1 + p, id: 2)
        #expect(h.filter.ghostPatterns() == [], "two taps are a candidate, not a pattern")
        GhostTouchTests.tap(&h, at: 1 + 2 * p, id: 3)
        let patterns = h.filter.ghostPatterns()
        #expect(patterns.count == 1)
        #expect(patterns.first.map { $0.x == 50 && $0.y == 50 && abs($0.period - p) < 1e-9 && $0.occurrences == 3 } == true)
        // Read only: asking does not take the notices.
        #expect(h.filter.takeNotices().count == 2)
        // Three periods with no tap: it predicts nothing more, and is not said.
        #expect(h.filter.ghostPatterns(at: 1 + 4.9 * p).count == 1)
        #expect(h.filter.ghostPatterns(at: 1 + 5.2 * p) == [])
    }
}
