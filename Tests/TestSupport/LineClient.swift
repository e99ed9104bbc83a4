import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking NDJSON client over a real Unix socket, with timeouts: it
/// connects (retrying a refused or missing socket for about 2 s unless told
/// not to), sends bytes or text, and reads whole lines.
public final class LineClient {
    /// The connected socket.
    public let fd: Int32
    private var buffer: [UInt8] = []
    /// Where the unread bytes of `buffer` start (what is before was read).
    private var start = 0
    /// Whether the server has closed its end (seen by a read).
    public private(set) var eof = false
    private var closed = false

    public init(path: String, retry: Bool = true) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8).prefix(raw.count - 1))
        }
        var result: Int32 = -1
        for _ in 0..<100 {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 || (errno != ECONNREFUSED && errno != ENOENT) || !retry { break }
            usleep(20_000)
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            throw HarnessError("connect \(path): \(code)")
        }
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends all of `bytes` (no SIGPIPE: a closed peer is an error).
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                throw HarnessError("send: \(errno)")
            }
            offset += n
        }
    }

    /// The next line (without `\n`), nil at EOF or after `timeout` seconds.
    public func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // Lines are taken by moving `start`, not by removing them from
            // the front (which moved the rest of up to 64 KB per line).
            if let i = buffer[start...].firstIndex(of: 0x0a) {
                let line = String(decoding: buffer[start..<i], as: UTF8.self)
                start = i + 1
                return line
            }
            if eof { return nil }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                eof = true
                continue
            }
            buffer.removeSubrange(..<start)
            start = 0
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Lines until one satisfies `stop` (included), EOF, or the timeout.
    public func readUntil(timeout: Double = 20, _ stop: (String) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while deadline.timeIntervalSinceNow > 0, let line = readLine(timeout: deadline.timeIntervalSinceNow) {
            lines.append(line)
            if stop(line) { break }
        }
        return lines
    }

    /// Every line until EOF (bounded by `timeout`).
    public func readAll(timeout: Double = 30) -> [String] {
        readUntil(timeout: timeout) { _ in false }
    }

    /// Closes the socket (once; also on deinit).
    public func close() {
        if !closed { closed = true; Glibc.close(fd) }
    }

    deinit { close() }
}
