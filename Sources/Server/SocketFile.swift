#if canImport(Glibc)
import Glibc
import ServerCore
#endif

/// Why the server cannot take its socket path.
public struct SocketPathError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case inUse, notASocket, tooLong, unsafeFolder, system }
    public var kind: Kind
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

/// Prepares the socket's path before binding (design "Socket": a live
/// daemon's socket is never taken over; a stale one is replaced; a folder
/// every user may write without the sticky bit is refused).
public enum SocketFile {
    /// Makes `path` free to bind: creates its folder if missing; if a socket
    /// is there, connects to it — someone answers: in use; refused: stale,
    /// removed. Anything that is not a socket is left alone and refused.
    public static func prepare(_ path: String) throws(SocketPathError) {
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw SocketPathError(kind: .tooLong, path: path, message: "socket path is too long (at most 107 bytes)")
        }
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty && access(folder, F_OK) != 0 {
            if mkdir(folder, 0o755) != 0 && errno != EEXIST {
                throw SocketPathError(kind: .system, path: path,
                                      message: "cannot create its folder \(folder): \(String(cString: strerror(errno)))")
            }
        }
        try checkFolder(folder.isEmpty ? "/" : folder, of: path)
        var info = stat()
        guard lstat(path, &info) == 0 else { return }   // nothing there
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SocketPathError(kind: .notASocket, path: path, message: "exists and is not a socket; not touching it")
        }
        switch probe(path) {
        case .answers:
            throw SocketPathError(kind: .inUse, path: path,
                                  message: "another transitiond is serving this socket (stop it, or use another --socket)")
        case .refused:
            if unlink(path) != 0 && errno != ENOENT {
                throw SocketPathError(kind: .system, path: path,
                                      message: "cannot remove the stale socket: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// A folder any user may write and that is not sticky lets another
    /// user replace the socket (or what the daemon takes for it): refused.
    static func checkFolder(_ folder: String, of path: String) throws(SocketPathError) {
        var info = stat()
        guard stat(folder, &info) == 0 else { return }
        let worldWritable = info.st_mode & mode_t(S_IWOTH) != 0
        let sticky = info.st_mode & mode_t(S_ISVTX) != 0
        if worldWritable && !sticky {
            throw SocketPathError(kind: .unsafeFolder, path: path,
                                  message: "its folder \(folder) may be written by every user and is not sticky, so another user could replace the socket; use a folder only its owner may write (such as $XDG_RUNTIME_DIR or /run/transitiond), or make it sticky (chmod +t)")
        }
    }

    enum Probe { case answers, refused }

    /// Whether something accepts connections at `path`.
    static func probe(_ path: String) -> Probe {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .refused }
        defer { close(fd) }
        let result = withAddress(path) { connect(fd, $0, $1) }
        return result == 0 ? .answers : .refused
    }

    /// Calls `body` with `path` as a Unix socket address (for `bind` and
    /// `connect`); the path's length is checked by `prepare`.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8).prefix(raw.count - 1))
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Removes the socket file if it is still ours (a socket).
    public static func remove(_ path: String) {
        var info = stat()
        if lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK {
            unlink(path)
        }
    }
}
