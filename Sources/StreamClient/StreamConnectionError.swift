#if canImport(Glibc)
import Glibc
#endif

/// What went wrong connecting to, reading from or writing to the daemon.
public enum StreamConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No socket at the path (ENOENT) or nobody listening on it
    /// (ECONNREFUSED: a stale socket file): the daemon is not running.
    case notRunning(path: String, errno: Int32)
    /// The socket exists but this user may not connect (EACCES/EPERM).
    case permissionDenied(path: String)
    /// The path does not fit in a `sockaddr_un` (at most `limit` bytes).
    case pathTooLong(path: String, limit: Int)
    /// Any other `socket`/`connect` failure.
    case connectFailed(path: String, errno: Int32)
    /// `readLine(timeout:)` saw no complete line in time (the connection is
    /// fine; call again).
    case timedOut
    /// A signal interrupted the wait (EINTR; the connection is fine): lets a
    /// caller check its signal flags.
    case interrupted
    /// The daemon sent a line longer than the limit without a newline.
    case lineTooLong(limit: Int)
    /// The daemon went away mid-stream (ECONNRESET, EPIPE).
    case connectionLost(errno: Int32)
    /// Any other read or write failure.
    case readFailed(errno: Int32)
    case writeFailed(errno: Int32)
    /// The connection was closed by `close()`.
    case closed

    /// Whether connecting again later may succeed (the daemon may be
    /// starting or restarting).
    public var isRetryable: Bool {
        switch self {
        case .notRunning, .connectionLost, .timedOut, .interrupted: return true
        case .connectFailed(_, let code): return code == EAGAIN || code == ETIMEDOUT || code == EINTR
        case .permissionDenied, .pathTooLong, .lineTooLong, .readFailed, .writeFailed, .closed: return false
        }
    }

    public var description: String {
        switch self {
        case .notRunning(let path, let code):
            let why = code == ENOENT ? "no such socket" : "connection refused"
            return "the daemon is not running at \(path) (\(why))"
        case .permissionDenied(let path):
            return "\(path): permission denied (the socket's group or mode does not let this user connect)"
        case .pathTooLong(let path, let limit):
            return "\(path): a socket path is at most \(limit) bytes"
        case .connectFailed(let path, let code):
            return "cannot connect to \(path): \(errorText(code))"
        case .timedOut:
            return "timed out waiting for the daemon"
        case .interrupted:
            return "interrupted"
        case .lineTooLong(let limit):
            return "the daemon sent a line longer than \(limit) bytes"
        case .connectionLost(let code):
            return "the connection was lost (\(errorText(code)))"
        case .readFailed(let code):
            return "read failed: \(errorText(code))"
        case .writeFailed(let code):
            return "write failed: \(errorText(code))"
        case .closed:
            return "the connection is closed"
        }
    }
}

/// `strerror` text for an errno.
func errorText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}
