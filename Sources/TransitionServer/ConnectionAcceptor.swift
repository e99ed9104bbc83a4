#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix

/// Takes new connections off the listening socket on a thread of its own,
/// blocked in `poll(2)`, and hands each batch of connected descriptors to
/// the server's event loop (one hop per batch of connections, none per
/// event). The server accepts this way, rather than with NIO's
/// `ServerBootstrap`, because it keeps each connection's descriptor: event
/// lines go out with one plain `send(2)` each, and NIO's channel only reads
/// commands and takes over the writes of a client that falls behind.
final class ConnectionAcceptor: @unchecked Sendable {
    /// Connections taken per hand-over, at most.
    static let batchLimit = 256

    private let listening: CInt
    private let wake: (read: CInt, write: CInt)
    private let pool = NIOThreadPool(numberOfThreads: 1)
    private let logger: Logger
    private let deliver: @Sendable ([CInt]) -> Void

    /// Takes ownership of `listening`; `deliver` gets the new connections
    /// (close-on-exec), on the acceptor's thread.
    init(listening: CInt, path: String, logger: Logger, deliver: @escaping @Sendable ([CInt]) -> Void) throws(SocketPathError) {
        var pipe: [CInt] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else {
            throw SocketPathError(kind: .system, path: path, message: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in pipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.listening = listening
        self.wake = (pipe[0], pipe[1])
        self.logger = logger
        self.deliver = deliver
    }

    func start() {
        pool.start()
        pool.submit { [self] state in
            guard case .active = state else { return }
            acceptUntilStopped()
        }
    }

    /// Stops accepting; the future completes (on `loop`) once the thread
    /// has ended and the listening socket is closed.
    func stop(on loop: EventLoop) -> EventLoopFuture<Void> {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        let promise = loop.makePromise(of: Void.self)
        pool.shutdownGracefully { [self] _ in
            close(listening)
            close(wake.read)
            close(wake.write)
            promise.succeed(())
        }
        return promise.futureResult
    }

    // MARK: The thread

    private func acceptUntilStopped() {
        var batch: [CInt] = []
        batch.reserveCapacity(Self.batchLimit)
        while true {
            var fds = [pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                logger.error("cannot wait for connections: poll: \(String(cString: strerror(errno))); no longer accepting")
                return
            }
            if fds[1].revents != 0 { return }
            var pause = false
            while batch.count < Self.batchLimit {
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
                // say so and try again in a moment rather than spin.
                logger.warning("cannot accept a connection: \(String(cString: strerror(error))); retrying in 100 ms")
                pause = true
                break
            }
            if !batch.isEmpty {
                deliver(batch)
                batch.removeAll(keepingCapacity: true)
            }
            if pause {
                var wakeOnly = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
                if poll(&wakeOnly, 1, 100) > 0 { return }
            }
        }
    }
}
