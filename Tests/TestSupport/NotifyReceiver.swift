#if canImport(Glibc)
import Glibc
#endif

/// The test's `$NOTIFY_SOCKET`: a datagram socket bound at a path; each
/// message with the time it was read (monotonic seconds).
public final class NotifyReceiver {
    public let path: String
    private let fd: CInt

    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw HarnessError("cannot bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    public func receive(timeout: Double) -> (time: Double, text: String)? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        guard n >= 0 else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9, String(decoding: buffer[..<n], as: UTF8.self))
    }
}
