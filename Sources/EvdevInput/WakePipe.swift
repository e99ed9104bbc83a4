#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking pipe that wakes a thread blocked in `poll(2)`: any
/// thread calls `wake()`, the polling thread watches `readFD` and calls
/// `drain()`.
final class WakePipe: @unchecked Sendable {
    let readFD: Int32
    private let writeFD: Int32

    init() throws(DeviceOpenError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw DeviceOpenError.from(errno: errno) }
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
    func wake() {
        var byte: UInt8 = 1
        while write(writeFD, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Empties the pipe.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let n = bytes.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            if n > 0 || (n < 0 && errno == EINTR) { continue }
            return
        }
    }
}
