#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SystemSupport
import Clocks

/// Takes new connections off the listening socket on a thread of its own,
/// blocked in `poll(2)`, and hands each batch of connected descriptors to
/// the server's event loop (one hop per batch of connections, none per
/// event). The server accepts this way, rather than with NIO's
/// `ServerBootstrap`, because it keeps each connection's descriptor: event
/// lines go out with one plain `send(2)` each, and NIO's channel only reads
/// commands and takes over the writes of a client that falls behind.
///
/// At most `inFlightLimit` connections are handed over and not yet
/// registered (`registered(_:)`): past that it stops accepting, and a
/// connect flood waits in the kernel's listen queue instead of in the
/// event loop's task queue, where it would use up descriptors and delay
/// everything else, shutdown included.
final class ConnectionAcceptor: @unchecked Sendable {
    /// Connections handed over and not yet registered, at most.
    static let inFlightLimit = 256

    private struct State {
        var inFlight = 0
        var paused = false
        var stopping = false
    }

    private let listening: CInt
    private let path: String
    private let wake: WakePipe
    private var started = false
    private var stopped = false
    /// Completed (on the thread, or at `stop` if it never started) once the
    /// listening socket is closed.
    private var finished: EventLoopPromise<Void>?
    private let state = NIOLockedValueBox(State())
    private let logger: Logger
    private let deliver: @Sendable ([CInt]) -> Void

    /// Takes ownership of `listening`; `deliver` gets the new connections
    /// (close-on-exec), on the acceptor's thread, and must call
    /// `registered(_:)` once it has dealt with them.
    init(listening: CInt, path: String, logger: Logger, deliver: @escaping @Sendable ([CInt]) -> Void) throws(SocketPathError) {
        do {
            wake = try WakePipe()
        } catch {
            throw SocketPathError(kind: .system, path: path, message: error.description)
        }
        self.listening = listening
        self.path = path
        self.logger = logger
        self.deliver = deliver
    }

    /// Starts the thread (once); `stop` completes on `loop`.
    func start(on loop: EventLoop) throws(SystemError) {
        guard !started, !stopped else { return }
        let finished = loop.makePromise(of: Void.self)
        do {
            try NativeThread(name: "accept", detached: true) { [self] in
                acceptUntilStopped()
                close(listening)
                finished.succeed(())
            }
        } catch {
            finished.succeed(())   // never used: nothing may wait on it
            throw error
        }
        self.finished = finished
        started = true
    }

    /// The server has dealt with `count` handed-over connections.
    func registered(_ count: Int) {
        let resume = state.withLockedValue { s -> Bool in
            s.inFlight -= count
            guard s.paused && s.inFlight < Self.inFlightLimit else { return false }
            s.paused = false
            return true
        }
        if resume { wake.wake() }
    }

    /// Stops accepting; the future completes (on `loop`) once the thread
    /// has ended and the listening socket is closed. Also for an acceptor
    /// that was never started.
    func stop(on loop: EventLoop) -> EventLoopFuture<Void> {
        state.withLockedValue { $0.stopping = true }
        wake.wake()
        guard started, let finished else {
            if !stopped { close(listening) }
            stopped = true
            return loop.makeSucceededVoidFuture()
        }
        stopped = true
        return finished.futureResult.hop(to: loop)
    }

    // MARK: The thread

    private func acceptUntilStopped() {
        var batch: [CInt] = []
        batch.reserveCapacity(Self.inFlightLimit)
        var failures = FailureReport()
        while true {
            let room = state.withLockedValue { s -> Int in
                let room = max(0, Self.inFlightLimit - s.inFlight)
                s.paused = room == 0
                return room
            }
            var fds = [pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listening, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, room > 0 ? 2 : 1, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("cannot wait for connections on \(path): poll: \(String(cString: strerror(errno))); no longer accepting")
                return
            }
            if fds[0].revents != 0 {
                wake.drain()
                if state.withLockedValue({ $0.stopping }) { return }
                continue
            }
            var pause = false
            while batch.count < room {
                let fd = accept(listening, nil, nil)
                if fd >= 0 {
                    // (Glibc's module has no accept4.) NIO makes it non-blocking.
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    batch.append(fd)
                    continue
                }
                let error = errno
                if error == EINTR || error == ECONNABORTED || error == EPROTO { continue }
                if error == EAGAIN || error == EWOULDBLOCK { break }
                // Out of descriptors or memory: the connection stays queued;
                // say so (now and then) and try again in a moment rather than spin.
                if let message = failures.note(error) { logger.warning("cannot accept a connection on \(path): \(message)") }
                pause = true
                break
            }
            if !batch.isEmpty {
                state.withLockedValue { $0.inFlight += batch.count }
                deliver(batch)
                batch.removeAll(keepingCapacity: true)
            }
            if pause {
                var wakeOnly = [pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
                _ = poll(&wakeOnly, 1, 100)
                if state.withLockedValue({ $0.stopping }) { return }
            }
        }
    }

    /// Says why accepting failed at most every 10 s, with how often.
    private struct FailureReport {
        private var last: MonotonicClock.Instant? = nil
        private var suppressed = 0

        mutating func note(_ error: Int32) -> String? {
            let now = MonotonicClock().now
            if let last, last.duration(to: now) < .seconds(10) {
                suppressed += 1
                return nil
            }
            let more = suppressed > 0 ? " (and \(suppressed) times since the last report)" : ""
            last = now
            suppressed = 0
            return "\(String(cString: strerror(error)))\(more); retrying every 100 ms"
        }
    }
}
