#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// A client connection's own descriptor for writing (a duplicate of the one
/// the NIO channel reads from, so that it stays valid — never another
/// connection's — until the server closes it). Confined to the event loop.
final class ConnectionDescriptor {
    private var fd: CInt

    /// How much of a line a `send` wrote.
    enum Sent: Equatable {
        case all
        /// Part of it: this many bytes.
        case some(Int)
        /// Nothing: the socket is full, or the connection is gone.
        case none
    }

    init(_ fd: CInt) {
        self.fd = fd
    }

    var isOpen: Bool { fd >= 0 }

    /// One non-blocking `send(2)` of the readable bytes (retried on EINTR).
    func send(_ line: ByteBuffer) -> Sent {
        guard fd >= 0 else { return .none }
        let fd = self.fd
        return line.withUnsafeReadableBytes { bytes -> Sent in
            while true {
                let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if n == bytes.count { return .all }
                if n > 0 { return .some(n) }
                if n < 0 && errno == EINTR { continue }
                return .none
            }
        }
    }

    /// The peer's credentials (`SO_PEERCRED`) and supplementary groups.
    func peerCredentials() -> PeerCredentials? {
        guard fd >= 0 else { return nil }
        var cred = KernelPeerCredentials()
        var size = socklen_t(MemoryLayout<KernelPeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, KernelPeerCredentials.option, &cred, &size) == 0 else { return nil }
        return PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid,
                               groups: PeerCredentials.supplementaryGroups(of: cred.pid))
    }

    /// The uid of a Unix socket's peer (`SO_PEERCRED`), nil if not told.
    static func peerUID(of fd: CInt) -> UInt32? {
        var cred = KernelPeerCredentials()
        var size = socklen_t(MemoryLayout<KernelPeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, KernelPeerCredentials.option, &cred, &size) == 0 else { return nil }
        return cred.uid
    }

    /// Closes it (once).
    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
