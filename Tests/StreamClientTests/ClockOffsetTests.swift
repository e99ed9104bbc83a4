import Testing
import TestSupport
import StreamClient

/// The clock estimate on a virtual clock: a known offset, trips that split
/// unevenly and jitter, a daemon clock that drifts.
@Suite("Stream: the daemon's clock, estimated")
struct ClockOffsetTests {
    /// A client asking every half second; the daemon's clock is `offset`
    /// ahead (and runs `rate` times as fast); each way takes its own random
    /// time (the way back much longer now and then, as a busy loop makes it).
    static func exchanges(count: Int, offset: Double, rate: Double = 1, seed: UInt64,
                          into clock: inout ClockOffset) -> [(t: Double, error: Double, uncertainty: Double)] {
        var random = SeededRandom(seed: seed)
        func delay(_ most: Double) -> Double { 0.0001 + Double(random.below(1_000_000)) / 1_000_000 * most }
        var log: [(Double, Double, Double)] = []
        var t = 5.0
        for _ in 0..<count {
            let up = delay(0.003), down = delay(random.below(4) == 0 ? 0.025 : 0.002)
            let ts = (t + up) * rate + offset
            clock.add(sent: t, daemon: ts, received: t + up + down)
            let now = t + up + down
            let truth = now * rate + offset
            log.append((now, clock.daemonTime(at: now)! - truth, clock.uncertainty))
            t += 0.5
        }
        return log
    }

    @Test func aKnownOffsetIsRecoveredWithinTheBestRoundTripsHalf() {
        var clock = ClockOffset()
        let log = Self.exchanges(count: 200, offset: 1234.5, seed: 29, into: &clock)
        #expect(clock.offset != nil)
        // Whatever the split of a trip, the truth is within its half of the estimate.
        #expect(log.allSatisfy { abs($0.error) <= $0.uncertainty + 1e-9 })
        #expect(abs(clock.offset! - 1234.5) <= clock.uncertainty + 1e-9, "\(clock.offset!) ± \(clock.uncertainty)")
        // The best of 200 trips of 0.2 to 28 ms: well under a millisecond either way.
        #expect(clock.uncertainty < 0.001, "\(clock.uncertainty)")
    }

    @Test func aLongerTripNeverReplacesAShorterOneUntilItIsStale() {
        var clock = ClockOffset(maximumAge: 60)
        let ok1 = clock.add(sent: 10, daemon: 110.0005, received: 10.001)
        #expect(ok1)
        let ok2 = clock.add(sent: 11, daemon: 111.004, received: 11.010)
        #expect(!ok2, "a 10 ms trip after a 1 ms one")
        #expect(clock.offset == 100 && abs(clock.uncertainty - 0.0005) < 1e-9)
        #expect(!clock.wantsExchange(at: 15) && clock.wantsExchange(at: 22))
        let ok3 = clock.add(sent: 80, daemon: 180.006, received: 80.010)
        #expect(ok3, "the 1 ms trip is 70 s old")
        #expect(abs(clock.offset! - 100.001) < 1e-9 && abs(clock.uncertainty - 0.005) < 1e-9)
    }

    @Test func theWindowForgetsTheOldest() {
        var clock = ClockOffset(maximumAge: 1000, window: 3)
        _ = clock.add(sent: 0, daemon: 100.0001, received: 0.0002)
        for k in 1...3 { _ = clock.add(sent: Double(k), daemon: Double(k) + 100.005, received: Double(k) + 0.01) }
        #expect(abs(clock.uncertainty - 0.005) < 1e-9, "the best trip left the window")
    }

    @Test func driftIsFollowed() {
        // 100 ppm apart: 6 ms a minute. Stale estimates give way, so the error stays small.
        var clock = ClockOffset(maximumAge: 20)
        let log = Self.exchanges(count: 2_000, offset: -50, rate: 1.0001, seed: 7, into: &clock)
        let worst = log.dropFirst(10).map { abs($0.error) }.max()!
        #expect(worst < 0.004, "\(worst)")
    }

    @Test func nonsenseIsIgnored() {
        var clock = ClockOffset()
        let ok4 = clock.add(sent: 2, daemon: 5, received: 1)
        #expect(!ok4)
        let ok5 = clock.add(sent: .nan, daemon: 5, received: 1)
        #expect(!ok5)
        let ok6 = clock.add(sent: 1, daemon: .infinity, received: 2)
        #expect(!ok6)
        #expect(clock.offset == nil && clock.daemonTime(at: 3) == nil && clock.wantsExchange(at: 0))
    }
}
