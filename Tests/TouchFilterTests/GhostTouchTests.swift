import Testing
import TestSupport
import Engine
@testable import TouchFilter

/// A small seeded generator (SplitMix64), so the random sequences are the
/// same on every run.
struct SeededRandom {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range`.
    mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }

    /// About normal with standard deviation `sd` (twelve uniforms, less 6).
    mutating func normal(sd: Double) -> Double {
        var sum = 0.0
        for _ in 0..<12 { sum += uniform(0...1) }
        return sd * (sum - 6)
    }
}

@Suite("Ghost touches: periodic still taps at one place are quarantined")
struct GhostTouchTests {
    let on = true, off = false
    static let period = 12.9
    static let quarantine = FilterRules(ghostTouches: .quarantine)

    /// The test panel with a resolution of 20 units per mm on X and Y
    /// (4095 units: about 205 mm), so 1 mm is 20 units.
    static func panel() -> DeviceDescription {
        Panels.tenSlots(extraAbs: [Code.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 4095, resolution: 20),
                                   Code.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 4095, resolution: 20)])
    }

    static func harness(_ rules: FilterRules = quarantine) -> FilterHarness {
        FilterHarness(device: panel(), rules: rules)
    }

    /// One touch in slot 0: down at `t` at (x, y), moved by `move` units on
    /// X at t + 10 ms if not 0, lifted at t + `duration`; verdict `verdict`.
    /// Returns what the copy got from just before its down until 100 ms after its lift.
    @discardableResult
    static func tap(_ h: inout FilterHarness, at t: Double, x: Int32 = 1000, y: Int32 = 1000, duration: Double = 0.02,
                    move: Int32 = 0, id: Int32, verdict: TouchFilterMachine.Verdict = .free) -> [TouchFilterMachine.Output] {
        h.run(until: t - 0.001)
        let before = h.written.count
        h.frame(t, Ev.down(slot: 0, id: id, x: x, y: y), [0: verdict])
        if move != 0 { h.frame(t + 0.01, [.x(x + move)], [0: verdict]) }
        h.frame(t + duration, [.id(-1)])
        // Its end is out by then (a lag is 50 ms at most); the next tap may follow.
        h.run(until: t + duration + 0.1)
        return Array(h.written[before...])
    }

    func wellFormed(_ h: FilterHarness) -> [String] {
        var v = MultitouchValidator()
        v.read(h.written)
        return v.problems + (v.isIdle ? [] : ["touches left down"])
    }

    // MARK: The detector alone

    @Test func aPatternIsConfirmedByItsThirdTapAtTheSameInterval() {
        var d = GhostTapDetector()
        let p = Self.period
        #expect(d.recordTap(at: 10, x: 50, y: 50) == nil)
        #expect(!d.predictsGhost(at: 10 + p, x: 50, y: 50))
        #expect(d.recordTap(at: 10 + p, x: 50, y: 50) == nil)
        // Two taps, one interval: the third is predicted at that interval
        // (5 % of it either way), not at twice it, nor 1 mm away.
        #expect(d.predictsGhost(at: 10 + 2 * p, x: 50, y: 50))
        #expect(d.predictsGhost(at: 10 + 2 * p + 0.049 * p, x: 50.9, y: 50))
        #expect(!d.predictsGhost(at: 10 + 2 * p + 0.051 * p, x: 50, y: 50))
        #expect(!d.predictsGhost(at: 10 + 3 * p, x: 50, y: 50))
        #expect(!d.predictsGhost(at: 10 + 2 * p, x: 51.1, y: 50))
        #expect(d.confirmed == [])
        let confirmed = d.recordTap(at: 10 + 2 * p, x: 50, y: 50)
        #expect(confirmed?.x == 50 && confirmed?.y == 50 && confirmed?.occurrences == 3)
        #expect(abs((confirmed?.period ?? 0) - p) < 1e-9)
        // Confirmed: one or two missed taps do not break it; three do.
        #expect(d.predictsGhost(at: 10 + 3 * p, x: 50, y: 50))
        #expect(d.predictsGhost(at: 10 + 5 * p, x: 50, y: 50))
        #expect(!d.predictsGhost(at: 10 + 6 * p, x: 50, y: 50))
        // Said once.
        #expect(d.recordTap(at: 10 + 4 * p, x: 50, y: 50) == nil)
        #expect(d.confirmed.map(\.occurrences) == [4])
        // Lapsed (no tap for more than 3 periods): forgotten.
        #expect(d.recordTap(at: 10 + 8 * p + 1, x: 200, y: 200) == nil)
        #expect(d.confirmed == [])
        #expect(!d.predictsGhost(at: 10 + 8 * p, x: 50, y: 50))
    }

    @Test func quickTapsAreNoPatternAndAPersonBetweenGhostsBreaksNoConfirmedOne() {
        var d = GhostTapDetector()
        // A quick triple tap, perfectly regular: under the 1 s floor.
        for k in 0..<3 { #expect(d.recordTap(at: 1 + 0.3 * Double(k), x: 10, y: 10) == nil) }
        #expect(!d.predictsGhost(at: 1.9, x: 10, y: 10))
        // A confirmed pattern; a tap at its place at another time leaves it.
        for k in 0..<3 { _ = d.recordTap(at: 10 + 5 * Double(k), x: 80, y: 80) }
        #expect(d.recordTap(at: 22, x: 80, y: 80) == nil)
        #expect(d.predictsGhost(at: 25, x: 80, y: 80))
    }

    @Test func theMemoryStaysBoundedUnder10000RandomTaps() {
        var d = GhostTapDetector()
        var r = SeededRandom(state: 27)
        var t = 0.0
        for _ in 0..<10_000 {
            t += r.uniform(0.05...20)
            _ = d.recordTap(at: t, x: r.uniform(0...150), y: r.uniform(0...90))
            #expect(d.count <= GhostTapDetector.capacity)
        }
        // The same at one place: every tap there makes candidates.
        for _ in 0..<10_000 {
            t += r.uniform(1...3)
            _ = d.recordTap(at: t, x: 40 + r.uniform(-0.5...0.5), y: 40)
            #expect(d.count <= GhostTapDetector.capacity)
        }
    }

    // MARK: Through the filter

    @Test func aPeriodicStillTapIsForwardedTwiceThenQuarantinedAndARealTapThereIsNot() {
        var h = Self.harness()
        let p = Self.period
        let first = Self.tap(&h, at: 1, id: 1)
        #expect(first == frames((1, cloneDown(slot: 0, id: 0, x: 1000, y: 1000)
                                     + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(1000), .absY(1000)]),
                                (1.02, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        let second = Self.tap(&h, at: 1 + p, id: 2)
        #expect(second == frames((1 + p, [.id(1), .x(1000), .y(1000), .pressure(50),
                                          .key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on)]),
                                 (1 + p + 0.02, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.filter.takeNotices() == [])
        // From the third on: nothing of it reaches the copy.
        #expect(Self.tap(&h, at: 1 + 2 * p, id: 3) == [])
        let notices = h.filter.takeNotices()
        #expect(notices.count == 2 && notices.last == .ghostQuarantined(time: 1 + 2 * p, x: 50, y: 50))
        guard case .ghostPattern(let pattern) = notices.first else { Issue.record("no pattern: \(notices)"); return }
        #expect(pattern.x == 50 && pattern.y == 50 && abs(pattern.period - p) < 1e-9 && pattern.occurrences == 3)
        for k in 3..<8 {
            #expect(Self.tap(&h, at: 1 + Double(k) * p, id: Int32(k + 1)) == [])
        }
        #expect(h.filter.takeNotices().count == 5)
        // A person's tap there at another time, even a short still one: forwarded.
        let real = Self.tap(&h, at: 1 + 7.5 * p, id: 20)
        #expect(real.begun == [2] && real.ended == 1)
        // And the pattern goes on.
        #expect(Self.tap(&h, at: 1 + 8 * p, id: 21) == [])
        #expect(h.filter.takeNotices() == [.ghostQuarantined(time: 1 + 8 * p, x: 50, y: 50)])
        #expect(wellFormed(h) == [])
    }

    @Test func aTouchAtThePredictedTimeAndPlaceThatMovesIsForwardedWholeWithItsLag() {
        var h = Self.harness()
        let p = Self.period
        Self.tap(&h, at: 1, id: 1)
        Self.tap(&h, at: 1 + p, id: 2)
        let t = 1 + 2 * p
        h.run(until: t - 0.001)
        #expect(h.frame(t, Ev.down(slot: 0, id: 3, x: 1000, y: 1000)) == [])
        #expect(h.filter.nextDeadline == t + 0.05)
        // 2 mm at 10 ms: no ghost; released now, every frame lagging 10 ms.
        let lag = (t + 0.01) - t
        var out = h.frame(t + 0.01, [.x(1040)])
        out += h.frame(t + 0.03, [.id(-1)])
        out += h.run(until: t + 1)
        #expect(out == frames((t + 0.01, [.id(2), .x(1000), .y(1000), .pressure(50),
                                          .key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on)]),
                              (t + 0.01 + lag, [.x(1040), .absX(1040)]),
                              (t + 0.03 + lag, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.filter.takeNotices() == [])
        #expect(wellFormed(h) == [])
    }

    @Test func aTouchAtThePredictedTimeAndPlaceThatStaysDownIsForwardedWholeWithItsLag() {
        var h = Self.harness()
        let p = Self.period
        Self.tap(&h, at: 1, id: 1)
        Self.tap(&h, at: 1 + p, id: 2)
        let t = 1 + 2 * p
        h.run(until: t - 0.001)
        #expect(h.frame(t, Ev.down(slot: 0, id: 3, x: 1000, y: 1000)) == [])
        #expect(h.frame(t + 0.03, [.pressure(60)]) == [])
        // Down for 50 ms: released at t + 50 ms, D = 50 ms.
        #expect(h.advance(t + 0.05) == frames((t + 0.05, [.id(2), .x(1000), .y(1000), .pressure(50),
                                                          .key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on)])))
        let lag = (t + 0.05) - t
        var out = h.frame(t + 0.3, [.id(-1)])
        out += h.run(until: t + 1)
        #expect(out == frames((t + 0.03 + lag, [.pressure(60)]),
                              (t + 0.3 + lag, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
        #expect(h.filter.takeNotices() == [])
    }

    @Test func aPredictedGhostInAStartAreaIsQuarantinedToo() {
        var h = Self.harness()
        let p = Self.period
        Self.tap(&h, at: 1, x: 5, id: 1, verdict: .startArea)
        Self.tap(&h, at: 1 + p, x: 5, id: 2, verdict: .startArea)
        #expect(Self.tap(&h, at: 1 + 2 * p, x: 5, id: 3, verdict: .startArea) == [])
        #expect(h.filter.takeNotices().count == 2)
        // Still for 60 ms in the start area (hold 80 ms): past the ghost's
        // 50 ms it is a touch, held and released as any in a start area.
        let long = Self.tap(&h, at: 1 + 3 * p, x: 5, duration: 0.06, id: 4, verdict: .startArea)
        #expect(long.begun.count == 1 && long.ended == 1)
        #expect(long.frameDues.first == 1 + 3 * p + 0.06)
        #expect(wellFormed(h) == [])
    }

    @Test func twoInterleavedPatternsAtTwoPlacesAreBothCaught() {
        var h = Self.harness()
        // A every 12.9 s at (500, 500), B every 7.3 s at (3000, 3000), for 90 s.
        var taps: [(t: Double, x: Int32, pattern: Int)] = []
        for k in 0..<7 { taps.append((1 + Double(k) * 12.9, 500, 0)) }
        for k in 0..<12 { taps.append((3 + Double(k) * 7.3, 3000, 1)) }
        taps.sort { $0.t < $1.t }
        var seen = [0, 0]
        for (i, tap) in taps.enumerated() {
            let out = Self.tap(&h, at: tap.t, x: tap.x, y: tap.x, id: Int32(i + 1))
            seen[tap.pattern] += 1
            #expect(out.isEmpty == (seen[tap.pattern] >= 3), "tap \(i) at \(tap.t) of pattern \(tap.pattern)")
        }
        let notices = h.filter.takeNotices()
        let patterns = notices.compactMap { n -> GhostTapDetector.Pattern? in
            if case .ghostPattern(let p) = n { return p } else { return nil }
        }
        // B's third tap (17.6 s) comes before A's (26.8 s).
        #expect(patterns.map(\.x) == [150, 25] && patterns.map(\.y) == [150, 25])
        #expect(patterns.count == 2 && abs(patterns[0].period - 7.3) < 1e-9 && abs(patterns[1].period - 12.9) < 1e-9)
        #expect(notices.count - patterns.count == (7 - 2) + (12 - 2))
        #expect(wellFormed(h) == [])
    }

    @Test func aSeededIrregularHumanTappingSequenceAtOneButtonIsNeverQuarantined() {
        var h = Self.harness()
        var r = SeededRandom(state: 12_9)
        var t = 1.0
        // People at a button centred at (1000, 1000): landings scattered
        // (2 mm standard deviation), 40–250 ms down, some sliding up to
        // 1.5 mm, at irregular intervals of 0.4–8 s.
        for i in 0..<1500 {
            t += r.uniform(0.4...8)
            let x = Int32(1000 + 20 * r.normal(sd: 2)), y = Int32(1000 + 20 * r.normal(sd: 2))
            let duration = r.uniform(0.04...0.25)
            let move = Int32(20 * r.uniform(0...1.5))
            let out = Self.tap(&h, at: t, x: x, y: y, duration: duration, move: move, id: Int32(i % 60_000))
            #expect(out.begun.count == 1 && out.ended == 1, "tap \(i) at \(t)")
        }
        // A button that registers every tap at the same point, 30 ms and
        // still, tapped at intervals that never repeat within 5 %.
        // Each interval is 10–40 % shorter or longer than the one before.
        var interval = 3.0
        for i in 0..<1500 {
            let shorter = interval > 15 || (interval > 2 && r.uniform(0...1) < 0.5)
            interval *= shorter ? r.uniform(0.6...0.9) : r.uniform(1.1...1.4)
            t += interval
            let out = Self.tap(&h, at: t, x: 2000, y: 2000, duration: 0.03, id: Int32(i % 60_000))
            #expect(out.begun.count == 1 && out.ended == 1, "tap \(i) at \(t)")
        }
        #expect(h.filter.takeNotices() == [])
        #expect(wellFormed(h) == [])
    }

    @Test func withTheRuleOffEveryTapIsForwarded() {
        var h = Self.harness(.none)
        for k in 0..<6 {
            let out = Self.tap(&h, at: 1 + Double(k) * Self.period, id: Int32(k + 1))
            #expect(out.begun.count == 1 && out.ended == 1)
        }
        #expect(h.filter.takeNotices() == [])
        #expect(h.filter.tapScale == nil)
    }

    @Test func withoutAResolutionAMillimetreIsA200thOfTheAxis() throws {
        let h = FilterHarness(rules: Self.quarantine)
        let scale = try #require(h.filter.tapScale)
        #expect(scale.unitsPerMMX == 4095.0 / 200 && scale.unitsPerMMY == 4095.0 / 200)
        #expect(try #require(Self.harness().filter.tapScale).unitsPerMMX == 20)
    }
}

extension Array where Element == TouchFilterMachine.Output {
    /// Tracking ids begun, and touches ended.
    var begun: [Int32] { filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value) }
    var ended: Int { filter { $0.code == Code.ABS_MT_TRACKING_ID && $0.value < 0 }.count }
}
