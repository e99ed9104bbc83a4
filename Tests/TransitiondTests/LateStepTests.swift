import Engine
import Inputs
import NIOCore
import NIOPosix
import SystemSupport
import Testing
import TestSupport

/// A step whose work takes longer than the step (a fan-out to a thousand
/// clients on a busy machine) makes the next step due at once. NIO runs
/// whatever is ready before it polls its sockets again, so a driver that
/// set its late timers for "now" kept the loop from polling for as long as
/// the work stayed late: a thousand clients connecting during a stream
/// waited half a minute in the listen queue, 16 accepts a second. Here a
/// driver is late on every step, and a connection must still be accepted.
@Suite("Late steps")
struct LateStepTests {
    @Test func aDriverThatIsAlwaysLateStillLetsTheLoopPoll() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let accepted = Locked(0)
        let path = temporarySocketPath("late")
        let listener = try ServerBootstrap(group: loop)
            .childChannelInitializer { channel in
                accepted.withLock { $0 += 1 }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).wait()
        defer { try? listener.close().wait() }

        let driver = EngineDriver(loop: loop, clock: MonotonicClock(), timeline: .live)
        let steps = Locked(0)
        let stop = Locked(false)
        driver.onDue = { _ in
            // 2 ms of work, then the next step due already (1 ms ago).
            let end = MonotonicClock.nanoseconds + 2_000_000
            while MonotonicClock.nanoseconds < end {}
            steps.withLock { $0 += 1 }
            if !stop.withLock({ $0 }) { driver.schedule(at: driver.now - 0.001) }
        }
        try loop.submit { driver.schedule(at: driver.now) }.wait()
        #expect(waitUntil(timeout: 10) { steps.withLock { $0 } >= 5 }, "the driver runs")

        let client = try LineClient(path: path)
        defer { client.close() }
        let polled = waitUntil(timeout: 5) { accepted.withLock { $0 } == 1 }
        let stepsThen = steps.withLock { $0 }
        try loop.submit {
            stop.withLock { $0 = true }
            driver.cancel()
        }.wait()
        #expect(polled, "the connection was accepted while every step was late")
        #expect(stepsThen > 5, "the steps went on meanwhile")
    }
}
