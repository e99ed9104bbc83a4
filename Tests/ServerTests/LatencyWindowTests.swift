import Testing
import WireProtocol
@testable import ServerCore

/// `state`'s last minute of latencies: percentiles by nearest rank, old
/// samples forgotten, a bounded store.
@Suite("Server: the last minute's latencies")
struct LatencyWindowTests {
    static let second: Int64 = 1_000_000_000

    @Test func medianAndNinetyFifthOfTheLastMinute() {
        var window = LatencyWindow()
        #expect(window.summary(at: 0) == nil)
        for k in 1...100 { window.add(Double(k) / 1000, at: Int64(k) * Self.second / 10) }
        #expect(window.summary(at: 10 * Self.second) == LatencyStatus.Summary(p50: 0.050, p95: 0.095, samples: 100))
        // 65 s on: the first 50 (taken before 5.0 s) are over a minute old.
        let later = window.summary(at: 65 * Self.second + 1)
        #expect(later?.samples == 50 && later?.p50 == 0.075, "\(String(describing: later))")
        #expect(window.summary(at: 200 * Self.second) == nil)
    }

    @Test func theStoreIsBounded() {
        var window = LatencyWindow(capacity: 10)
        for k in 0..<1_000 { window.add(Double(k), at: 0) }
        #expect(window.summary(at: 0) == LatencyStatus.Summary(p50: 994, p95: 999, samples: 10))
        window.add(.nan, at: 0)
        #expect(window.summary(at: 0)?.samples == 10)
    }
}
