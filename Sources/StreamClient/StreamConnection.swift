#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// A blocking client connection to the daemon's Unix stream socket: read
/// the stream a line at a time, send commands. One thread uses it at a time.
public final class StreamConnection {
    /// The socket path connected to.
    public let path: String
    /// The longest line accepted from the daemon, without its `\n`.
    public let lineLimit: Int
    /// The socket, or -1 once closed.
    public private(set) var fileDescriptor: Int32

    /// Received bytes: `start..<count` are not yet returned, of which
    /// `start..<start + scanned` are known to hold no newline.
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var start = 0
    private var scanned = 0
    private var sawEOF = false
    /// How many bytes of an unterminated last line were dropped at EOF.
    public private(set) var discardedAtEOF = 0

    private static let readChunk = 64 * 1024

    /// Connects to the daemon at `path`. A missing socket or one nobody
    /// listens on is `.notRunning` (retryable: the daemon may be starting).
    public init(path: String, lineLimit: Int = 1 << 20) throws(StreamConnectionError) {
        self.path = path
        self.lineLimit = lineLimit
        let limit = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= limit, !bytes.contains(0) else {
            throw .pathTooLong(path: path, limit: limit)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed(path: path, errno: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while result != 0 && errno == EINTR
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            switch code {
            case ENOENT, ECONNREFUSED: throw .notRunning(path: path, errno: code)
            case EACCES, EPERM: throw .permissionDenied(path: path)
            default: throw .connectFailed(path: path, errno: code)
            }
        }
        fileDescriptor = fd
        capacity = Self.readChunk * 2
        buffer = .allocate(capacity: capacity)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// Closes the socket (idempotent).
    public func close() {
        if fileDescriptor >= 0 {
            Glibc.close(fileDescriptor)
            fileDescriptor = -1
        }
    }

    // MARK: Reading

    /// The next line, without its `\n`, as the daemon sent it byte for byte;
    /// nil when the daemon closed the connection. An unterminated last line
    /// is dropped at EOF (it would be a truncated event; `discardedAtEOF`
    /// counts its bytes). Waits at most `timeout` seconds (nil: no limit),
    /// then throws `.timedOut`; a signal throws `.interrupted`; both leave
    /// the connection usable. A line over `lineLimit` throws `.lineTooLong`.
    public func readLine(timeout: Double? = nil) throws(StreamConnectionError) -> [UInt8]? {
        let deadline = timeout.map { MonotonicClock.seconds + max(0, $0) }
        while true {
            if let line = try nextBufferedLine() { return line }
            if sawEOF || fileDescriptor < 0 {
                if fileDescriptor < 0 && !sawEOF { throw .closed }
                discardedAtEOF += count - start
                start = count
                scanned = 0
                return nil
            }
            try waitReadable(deadline: deadline)
            try fill()
        }
    }

    /// Whether a complete line is already buffered (so `readLine` returns
    /// without waiting): lets a caller batch what has arrived.
    public var hasBufferedLine: Bool {
        count > start && memchr(buffer + start, 0x0A, count - start) != nil
    }

    /// A complete buffered line, or nil.
    private func nextBufferedLine() throws(StreamConnectionError) -> [UInt8]? {
        let pending = count - start
        guard pending > scanned else { return nil }
        guard let hit = memchr(buffer + start + scanned, 0x0A, pending - scanned) else {
            scanned = pending
            if pending > lineLimit { throw .lineTooLong(limit: lineLimit) }
            return nil
        }
        let newline = hit.assumingMemoryBound(to: UInt8.self) - buffer
        let length = newline - start
        guard length <= lineLimit else { throw .lineTooLong(limit: lineLimit) }
        let line = Array(UnsafeBufferPointer(start: buffer + start, count: length))
        start = newline + 1
        scanned = 0
        if start == count { start = 0; count = 0 }
        return line
    }

    /// Waits until the socket is readable or the deadline passes.
    private func waitReadable(deadline: Double?) throws(StreamConnectionError) {
        var milliseconds: Int32 = -1
        if let deadline {
            let remaining = deadline - MonotonicClock.seconds
            if remaining <= 0 { throw .timedOut }
            milliseconds = Int32(min((remaining * 1000).rounded(.up), 86_400_000))
        }
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 {
            if errno == EINTR { throw .interrupted }
            throw .readFailed(errno: errno)
        }
        if ready == 0 { throw .timedOut }
    }

    /// Reads what is available into the buffer (making room first).
    private func fill() throws(StreamConnectionError) {
        if capacity - count < Self.readChunk {
            let pending = count - start
            if start > 0 && pending + Self.readChunk <= capacity {
                (buffer).update(from: buffer + start, count: pending)
            } else {
                var newCapacity = capacity * 2
                while newCapacity < pending + Self.readChunk { newCapacity *= 2 }
                let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
                grown.update(from: buffer + start, count: pending)
                buffer.deallocate()
                buffer = grown
                capacity = newCapacity
            }
            start = 0
            count = pending
        }
        let n = read(fileDescriptor, buffer + count, capacity - count)
        if n > 0 {
            count += n
        } else if n == 0 {
            sawEOF = true
        } else {
            switch errno {
            case EINTR: throw .interrupted
            case EAGAIN: return
            case ECONNRESET, EPIPE: throw .connectionLost(errno: errno)
            default: throw .readFailed(errno: errno)
            }
        }
    }

    // MARK: Writing

    /// Sends one command line; a `\n` is added when missing.
    public func send(_ command: String) throws(StreamConnectionError) {
        var bytes = Array(command.utf8)
        if bytes.last != 0x0A { bytes.append(0x0A) }
        try send(bytes: bytes)
    }

    /// Sends raw bytes, all of them (never raising SIGPIPE).
    public func send(bytes: [UInt8]) throws(StreamConnectionError) {
        guard fileDescriptor >= 0 else { throw .closed }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fileDescriptor, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EPIPE || errno == ECONNRESET) {
                throw .connectionLost(errno: errno)
            } else {
                throw .writeFailed(errno: n < 0 ? errno : EIO)
            }
        }
    }

    // MARK: Socket path

    /// The socket path by the rule of design "Socket": `explicit`
    /// (`--socket`), else `$TRANSITIOND_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/transitiond.sock`, else
    /// `/run/transitiond/transitiond.sock`. Empty values count as unset.
    /// Pure: the same as `SocketLocation.resolve`, which the
    /// server uses.
    public static func resolveSocketPath(explicit: String?, environment: [String: String]) -> String {
        SocketLocation.resolve(explicit: explicit, environment: environment)
    }

    /// The process's values of the variables `resolveSocketPath` reads.
    public static func socketEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["TRANSITIOND_SOCKET", "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }
}
