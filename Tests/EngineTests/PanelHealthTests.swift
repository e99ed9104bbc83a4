import Testing
@testable import Engine

@Suite("Panel health: report rate while touched, jitter, degraded once")
struct PanelHealthTests {
    /// A finger moving one step a frame, every `1 / rate` seconds from `start`, `count` frames.
    static func drag(_ health: inout PanelHealth, from start: Double, rate: Double, count: Int,
                     x: inout Double) -> [PanelHealth.Change] {
        var changes: [PanelHealth.Change] = []
        for k in 0..<count {
            x += 0.001
            let change = health.frame(TouchFrame(time: start + Double(k) / rate, contacts: [Contact(id: 1, x: x, y: 0.5)]))
            if change != .none { changes.append(change) }
        }
        return changes
    }

    static func close(_ value: Double?, _ expected: Double, within tolerance: Double) -> Bool {
        guard let value else { return false }
        return abs(value - expected) <= tolerance
    }

    @Test func healthyAt120HzThenDegradedAt25HzOnce() {
        var health = PanelHealth()
        var x = 0.1
        #expect(Self.drag(&health, from: 0, rate: 120, count: 200, x: &x).isEmpty)
        var report = health.report
        #expect(!report.degraded)
        #expect(report.samples == 128)
        #expect(Self.close(report.medianRate, 120, within: 0.5))
        #expect(Self.close(report.p5Rate, 120, within: 0.5))
        #expect(Self.close(report.jitterMilliseconds, 0, within: 0.01))

        let changes = Self.drag(&health, from: 2, rate: 25, count: 200, x: &x)
        #expect(changes.count == 1)
        guard case .degraded(let said)? = changes.first else {
            Issue.record("expected one .degraded, got \(changes)")
            return
        }
        // It turns when more than half the window is 25 Hz intervals.
        #expect(Self.close(said.medianRate, 25, within: 0.5) || Self.close(said.medianRate, 1 / ((1.0 / 25 + 1.0 / 120) / 2), within: 0.5))
        #expect(said.degraded)
        report = health.report
        #expect(report.degraded)
        #expect(Self.close(report.medianRate, 25, within: 0.1))
        #expect(Self.close(report.p5Rate, 25, within: 0.1))
    }

    @Test func theFifthPercentileSeesTheSlowTail() {
        var health = PanelHealth()
        var x = 0.1
        var t = 0.0
        // 90 % of the intervals 10 ms, 10 % 40 ms.
        for k in 0..<128 {
            t += k % 10 == 9 ? 0.040 : 0.010
            x += 0.001
            _ = health.frame(TouchFrame(time: t, contacts: [Contact(id: 1, x: x, y: 0.5)]))
        }
        let report = health.report
        #expect(Self.close(report.medianRate, 100, within: 0.5))
        #expect(Self.close(report.p5Rate, 25, within: 1))
        #expect(!report.degraded)
    }

    @Test func gapsWithoutContactsAndStillFramesAreNoIntervals() {
        var health = PanelHealth()
        var x = 0.1
        for stroke in 0..<10 {
            let start = Double(stroke) * 5
            // 12 frames: a touch-down, then 11 moves, 10 intervals.
            _ = Self.drag(&health, from: start, rate: 100, count: 12, x: &x)
            // Lifted: the seconds until the next stroke are no interval.
            _ = health.frame(TouchFrame(time: start + 0.2, contacts: []))
        }
        var report = health.report
        #expect(report.samples == 100)
        #expect(Self.close(report.medianRate, 100, within: 0.5))
        #expect(Self.close(report.p5Rate, 100, within: 0.5))

        // A finger resting (frames without a move) then moving again after a long pause: no interval.
        _ = health.frame(TouchFrame(time: 100, contacts: [Contact(id: 2, x: 0.5, y: 0.5)]))
        _ = health.frame(TouchFrame(time: 100.01, contacts: [Contact(id: 2, x: 0.6, y: 0.5)]))
        _ = health.frame(TouchFrame(time: 100.02, contacts: [Contact(id: 2, x: 0.6, y: 0.5), Contact(id: 3, x: 0.1, y: 0.1)]))
        _ = health.frame(TouchFrame(time: 101, contacts: [Contact(id: 2, x: 0.7, y: 0.5)]))
        report = health.report
        #expect(report.samples == 100)
        #expect(!report.degraded)
    }

    @Test func notJudgedBeforeEnoughSamples() {
        var health = PanelHealth(settings: .init(minimumSamples: 32))
        var x = 0.1
        // The first frame is a touch-down, not a move: 33 frames, 31 intervals.
        #expect(Self.drag(&health, from: 0, rate: 20, count: 33, x: &x).isEmpty)
        #expect(health.report.samples == 31)
        #expect(!health.report.degraded)
        #expect(Self.drag(&health, from: 1.65, rate: 20, count: 1, x: &x).count == 1)
        #expect(health.report.degraded)
    }

    @Test func recoversOnceAboveTheLimitWithMargin() {
        var health = PanelHealth(settings: .init(window: 64, minimumSamples: 16))
        var x = 0.1
        #expect(Self.drag(&health, from: 0, rate: 30, count: 100, x: &x).count == 1)
        // 52 Hz is above 50 but below 55: still degraded.
        #expect(Self.drag(&health, from: 10, rate: 52, count: 100, x: &x).isEmpty)
        #expect(health.degraded)
        let changes = Self.drag(&health, from: 20, rate: 120, count: 100, x: &x)
        #expect(changes.count == 1)
        if case .recovered(let report)? = changes.first { #expect(!report.degraded) } else { Issue.record("\(changes)") }
        #expect(!health.report.degraded)
    }

    @Test func jitterIsTheInterquartileRange() {
        var health = PanelHealth()
        var t = 0.0
        var x = 0.1
        // Intervals alternating 6 and 10 ms: quartiles 6 and 10 → 4 ms.
        for k in 0..<129 {
            x += 0.001
            _ = health.frame(TouchFrame(time: t, contacts: [Contact(id: 1, x: x, y: 0.5)]))
            t += k % 2 == 0 ? 0.006 : 0.010
        }
        #expect(Self.close(health.report.jitterMilliseconds, 4, within: 0.1))
    }

    /// The window is kept sorted as intervals come and go (no sort per
    /// judgement): after the ring has turned many times with uneven
    /// intervals, the report is what sorting the last `window` intervals gives.
    @Test func theKeptSortedWindowMatchesASortOfTheLastIntervals() {
        var health = PanelHealth(settings: PanelHealth.Settings(window: 16, minimumSamples: 4))
        var times: [Double] = []
        var t = 0.0
        var x = 0.1
        var seed: UInt64 = 7
        for _ in 0..<301 {
            x += 0.001
            _ = health.frame(TouchFrame(time: t, contacts: [Contact(id: 1, x: x, y: 0.5)]))
            times.append(t)
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            t += 0.004 + Double(seed >> 54) / 1024 * 0.02   // 4–24 ms, repeats among them
        }
        // The intervals as the health takes them: between the frames' times.
        let last = zip(times.dropFirst(), times).map { $0 - $1 }.suffix(16).sorted()
        let report = health.report
        #expect(report.samples == 16)
        #expect(report.medianRate == PanelHealth.percentile(last, 0.5).map { 1 / $0 })
        #expect(report.p5Rate == PanelHealth.percentile(last, 0.95).map { 1 / $0 })
        #expect(report.jitterMilliseconds == PanelHealth.percentile(last, 0.75).flatMap { high in
            PanelHealth.percentile(last, 0.25).map { (high - $0) * 1000 }
        })
    }

    @Test func countsResyncsGhostsAndStuckContacts() {
        var health = PanelHealth()
        health.resynced()
        health.resynced()
        health.ghostTouchesQuarantined(3)
        health.contactsStuck(1)
        let report = health.report
        #expect(report.resyncs == 2 && report.ghostTouches == 3 && report.stuckContacts == 1)
        #expect(report.medianRate == nil && report.p5Rate == nil && report.jitterMilliseconds == nil)
    }

    @Test func aLowerLimitAtReloadRecovers() {
        var health = PanelHealth()
        var x = 0.1
        _ = Self.drag(&health, from: 0, rate: 25, count: 100, x: &x)
        #expect(health.degraded)
        guard case .recovered = health.update(.init(minReportRate: 20)) else {
            Issue.record("expected recovered")
            return
        }
        #expect(!health.degraded)
    }
}
