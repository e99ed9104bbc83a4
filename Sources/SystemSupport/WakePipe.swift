#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking pipe that wakes a thread blocked in `poll(2)`: any thread
/// (or a signal handler: `wake()` is async-signal-safe) makes `readFD`
/// readable; the polling thread watches it and calls `drain()`. The
/// project's one way to wake a blocked thread.
public final class WakePipe: @unchecked Sendable {
    public let readFD: Int32
    private let writeFD: Int32
    /// The write end, for a signal handler that wakes the pipe itself.
    public var writeDescriptor: Int32 { writeFD }

    public init() throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SystemError("cannot create a pipe", errno: errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Makes `readFD` readable (a full pipe is already readable).
    public func wake() {
        var byte: UInt8 = 1
        while write(writeFD, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Empties the pipe.
    public func drain() {
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        while true {
            let n = withUnsafeMutableBytes(of: &bytes) { read(readFD, $0.baseAddress, $0.count) }
            if n > 0 || (n < 0 && errno == EINTR) { continue }
            return
        }
    }
}
