#if canImport(Glibc)
import Glibc
import ServerCore
#endif

/// The server's listening Unix stream socket: bound at the socket path
/// (no one but the owner can connect before its mode is set), listening with
/// a deep queue, non-blocking. The server accepts on it with NIO
/// (`ServerBootstrap.withBoundSocket`, as on a socket the service manager
/// passes).
enum ListeningSocket {
    /// Binds and listens at `path` (which `SocketFile.prepare` made free),
    /// the file made with `mode` by the umask around `bind` — never by a
    /// `chmod` of the path afterwards, which would follow a symlink put
    /// there in between by someone who can write the folder. Returns the
    /// descriptor.
    static func open(path: String, mode: UInt32, backlog: Int32) throws(SocketPathError) -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw failure(path, "cannot create a socket") }
        // Only this thread creates files while the daemon starts.
        let previous = umask(mode_t(~mode & 0o777))
        let bound = SocketFile.withAddress(path) { bind(fd, $0, $1) }
        let bindError = errno
        umask(previous)
        guard bound == 0 else {
            close(fd)
            errno = bindError
            throw failure(path, "cannot bind")
        }
        guard listen(fd, backlog) == 0 else {
            let error = failure(path, "cannot listen")
            close(fd)
            unlink(path)
            throw error
        }
        return fd
    }

    private static func failure(_ path: String, _ what: String) -> SocketPathError {
        SocketPathError(kind: .system, path: path, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
