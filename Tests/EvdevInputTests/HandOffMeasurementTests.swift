import SystemSupport
import Foundation
import NIOCore
import NIOPosix
import TestSupport
import Testing
import Engine
@testable import EvdevInput
@testable import Inputs

/// The input thread → event loop hand-over through DeviceHost under load:
/// every event and every read arrives, in order. The figures (throughput of
/// events through the host and the engine, the delay from a push on another
/// thread to the loop taking it) are printed, never asserted: timing bounds
/// belong to the benchmarks in `bench/`, not to the unit suite.
@Suite("Hand-over measurements", .serialized)
struct HandOffMeasurementTests {
    /// Many recorded gestures, pushed from a producer thread in reads of
    /// 64 events, as fast as it can.
    @Test func throughputThroughTheHost() throws {
        let (description, gesture) = try liveRecording("back-drag-finish.events")
        let span = gesture.last!.time - gesture.first!.time + 500_000
        // Far in the future: frames alone drive the engine, no tick is due.
        let base = Int64((MonotonicClock.seconds + 10_000) * 1e6) - gesture.first!.time
        let repeats = 400
        var stream: [InputEvent] = []
        stream.reserveCapacity(gesture.count * repeats)
        for r in 0..<repeats {
            let shift = base + Int64(r) * span
            stream += gesture.map { InputEvent(time: $0.time + shift, type: $0.type, code: $0.code, value: $0.value) }
        }
        let h = HostHarness()
        defer { h.shutdown() }
        h.source.push(.attached(AttachedDevice(path: "/dev/input/event1", description: description, grabbed: false)))
        let reads = stride(from: 0, to: stream.count, by: 64).map { Array(stream[$0..<min($0 + 64, stream.count)]) }
        let start = MonotonicClock.seconds
        let producer = Thread { [source = h.source] in
            for read in reads { source.push(.events(read)) }
        }
        producer.start()
        let total = stream.count
        #expect(h.waitFor(timeout: 120) { _ in h.onLoop { h.host.counters.inputEvents } == total })
        let seconds = MonotonicClock.seconds - start
        let counters = h.onLoop { h.host.counters }
        let rate = Double(total) / seconds
        print("DeviceHost throughput: \(total) events (\(counters.frames) frames, \(counters.transitionEvents) transition events) "
              + "in \(String(format: "%.3f", seconds)) s = \(Int(rate)) events/s; \(reads.count) reads arrived as \(counters.batches) batches")
        #expect(counters.frames > 0 && counters.transitionEvents > repeats * 3)
    }

    /// A 1 kHz trickle of one-frame reads: the delay from `push` on the
    /// producer thread to the host's `take` on the loop.
    @Test func handOffLatency() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let queue = ReportQueue(maximumPending: Int.max)
        let delays = Locked<[UInt64]>([])
        let pushTimes = Locked<[UInt64]>([])
        queue.setReady {
            loop.execute {
                var taken: [InputReport] = []
                queue.take(into: &taken)
                let now = NIODeadline.now().uptimeNanoseconds
                for case .events(let events, _) in taken {
                    // Each read carries its push time (ns) in its first event.
                    delays.withLock { $0.append(now - UInt64(events[0].time)) }
                    pushTimes.withLock { $0.append(UInt64(events[0].time)) }
                }
            }
        }
        let count = 1000
        for _ in 0..<count {
            let now = Int64(NIODeadline.now().uptimeNanoseconds)
            queue.push([.events([InputEvent(time: now, type: 3, code: 0x35, value: 1),
                                 InputEvent(time: now, type: 0, code: 0, value: 0)])])
            usleep(1000)   // paces the trickle at about 1 kHz
        }
        #expect(waitUntil(timeout: 10) { delays.withLock { $0.count } >= count })
        let sorted = delays.withLock { $0 }.sorted()
        #expect(sorted.count == count)
        let taken = pushTimes.withLock { $0 }
        #expect(taken == taken.sorted(), "reads are taken in the order they were pushed")
        guard sorted.count == count else { return }
        let p50 = Double(sorted[count / 2]) / 1000, p99 = Double(sorted[count * 99 / 100]) / 1000
        print("hand-over push → loop take: p50 \(String(format: "%.1f", p50)) µs, p99 \(String(format: "%.1f", p99)) µs over \(count) reads")
    }
}
