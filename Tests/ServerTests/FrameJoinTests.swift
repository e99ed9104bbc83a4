import Testing
import WireProtocol
@testable import ServerCore

/// Touch to frame: reports of presented frames joined to the input behind
/// their lines, on a clock the test gives.
@Suite("Server: frames joined to their input")
struct FrameJoinTests {
    static let ms: Int64 = 1_000_000

    @Test func aReportJoinsTheInputBehindItsLine() {
        var join = FrameJoin()
        join.note(seq: 10, inputTime: 1_000 * Self.ms)
        join.note(seq: 11, inputTime: 1_008 * Self.ms)
        let samples = join.join([FrameReport(seq: 10, presented: 1.030), FrameReport(seq: 11, presented: 1.047)],
                                from: ClientID(1), now: 1_050 * Self.ms)
        #expect(samples.count == 2 && abs(samples[0] - 0.030) < 1e-9 && abs(samples[1] - 0.039) < 1e-9, "\(samples)")
    }

    @Test func linesOfNoInputOldOnesAndRepeatsJoinNothing() {
        var join = FrameJoin(capacity: 4)
        for seq in UInt64(1)...6 { join.note(seq: seq, inputTime: Int64(seq) * Self.ms) }
        let client = ClientID(1)
        // 1 and 2 were overwritten by 5 and 6; 9 was never noted (an animation frame's).
        #expect(join.join([FrameReport(seq: 1, presented: 1), FrameReport(seq: 9, presented: 1)], from: client, now: 0).isEmpty)
        #expect(join.join([FrameReport(seq: 4, presented: 0.010)], from: client, now: 0).count == 1)
        // A frame showing no newer line, or an older one, is no new sample.
        #expect(join.join([FrameReport(seq: 4, presented: 0.020), FrameReport(seq: 3, presented: 0.020)],
                          from: client, now: 0).isEmpty)
        // Another client's seqs are its own.
        #expect(join.join([FrameReport(seq: 4, presented: 0.020)], from: ClientID(2), now: 0).count == 1)
    }

    @Test func aLyingClientGetsClippedSamples() {
        var join = FrameJoin(longest: 10)
        join.note(seq: 1, inputTime: 5_000 * Self.ms)
        join.note(seq: 2, inputTime: 5_000 * Self.ms)
        join.note(seq: 3, inputTime: 5_000 * Self.ms)
        let samples = join.join([FrameReport(seq: 1, presented: -1e300), FrameReport(seq: 2, presented: 1e300),
                                 FrameReport(seq: 3, presented: 4.9)], from: ClientID(1), now: 0)
        #expect(samples == [0, 10, 0])
    }

    @Test func aClientIsHeldToItsRate() {
        var join = FrameJoin(capacity: 10_000, perSecond: 100)
        for seq in UInt64(1)...1_000 { join.note(seq: seq, inputTime: 0) }
        let client = ClientID(3)
        func report(_ seqs: ClosedRange<UInt64>) -> [FrameReport] { seqs.map { FrameReport(seq: $0, presented: 0.01) } }
        var counted = 0
        // 600 reports in one second, 10 every 1/60 s: 100 of them count, the bucket's worth, and then its refill.
        for k in 0..<60 {
            let first = UInt64(k * 10 + 1)
            counted += join.join(report(first...(first + 9)), from: client, now: Int64(k) * 1_000_000_000 / 60).count
        }
        #expect(counted >= 100 && counted <= 200, "\(counted)")
        join.forget(client)
        #expect(join.join(report(700...709), from: client, now: 0).count == 10, "a client that comes back starts afresh")
    }
}
