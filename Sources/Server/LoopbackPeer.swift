#if canImport(Glibc)
import Glibc
import ServerCore
#endif

/// Who is at the other end of a loopback TCP connection. TCP has no
/// `SO_PEERCRED`, but on this machine the kernel knows which uid owns the
/// connecting socket: one `sock_diag` query (netlink, `inet_diag`) for that
/// exact connection — the peer's address and port as the source, ours as
/// the destination — answers with its owner, whatever the number of
/// sockets on the machine. A peer that is not on loopback, or not found
/// (another network namespace, gone already, not established, or netlink
/// refused, as under the hardened service), has no credentials: it may
/// subscribe but not command.
public enum LoopbackPeer {
    /// One end of a connection: the address bytes as the kernel stores them
    /// (4 for IPv4, 16 for IPv6, network order) and the port.
    public struct Endpoint: Sendable, Equatable {
        public var address: [UInt8]
        public var port: UInt16

        public init(address: [UInt8], port: UInt16) {
            self.address = address
            self.port = port
        }

        /// 127.0.0.0/8, `::1`, or an IPv4-mapped loopback address.
        public var isLoopback: Bool {
            let plain = unmapped.address
            if plain.count == 4 { return plain[0] == 127 }
            return plain.count == 16 && plain[0..<15].allSatisfy({ $0 == 0 }) && plain[15] == 1
        }

        /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as a dual-stack
        /// listener sees an IPv4 peer) as the IPv4 one the kernel lists
        /// its socket under; any other address as it is.
        public var unmapped: Endpoint {
            guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }),
                  address[10] == 0xFF, address[11] == 0xFF else { return self }
            return Endpoint(address: Array(address[12..<16]), port: port)
        }
    }

    /// The credentials of a loopback peer: its socket's uid, that user's
    /// primary group and its groups from the user database (a TCP peer's
    /// process is not known, so the pid is 0). nil when the uid cannot be
    /// established.
    public static func credentials(peer: Endpoint, local: Endpoint) -> PeerCredentials? {
        let peer = peer.unmapped, local = local.unmapped
        guard peer.isLoopback, peer.address.count == local.address.count,
              let uid = SocketDiagnostics.owner(source: peer, destination: local) else { return nil }
        return userCredentials(uid: uid)
    }

    /// A uid with the gid and groups the user database gives it.
    static func userCredentials(uid: UInt32) -> PeerCredentials {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return PeerCredentials(pid: 0, uid: uid, gid: UInt32.max, groups: [])
        }
        let gid = entry.pw_gid
        var count: CInt = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0, count > 0, count <= 65_536 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &groups, &count)
        }
        return PeerCredentials(pid: 0, uid: uid, gid: gid, groups: Array(groups.prefix(max(0, Int(count)))))
    }
}

/// The kernel's socket diagnostics (`sock_diag(7)`, `NETLINK_SOCK_DIAG`)
/// for one TCP connection: the uid that owns the socket whose source and
/// destination are the given ends, if it is established. The request and
/// answer are the kernel's fixed `inet_diag` layouts, written here because
/// Glibc's Swift module has no `linux/inet_diag.h`.
enum SocketDiagnostics {
    private static let sockDiagByFamily: UInt16 = 20    // SOCK_DIAG_BY_FAMILY
    private static let netlinkSockDiag: CInt = 4          // NETLINK_SOCK_DIAG
    private static let requestFlag: UInt16 = 1            // NLM_F_REQUEST
    private static let errorType: UInt16 = 2              // NLMSG_ERROR
    private static let established: UInt8 = 1            // TCP_ESTABLISHED

    /// The owner's uid, or nil (no such established socket, or netlink
    /// unavailable). Waits at most 200 ms for the kernel's answer.
    static func owner(source: LoopbackPeer.Endpoint, destination: LoopbackPeer.Endpoint) -> UInt32? {
        guard source.address.count == destination.address.count,
              source.address.count == 4 || source.address.count == 16 else { return nil }
        let fd = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), netlinkSockDiag)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = self.request(source: source, destination: destination)
        // An unconnected netlink socket sends to the kernel.
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { return nil }
        var answer = [UInt8](repeating: 0, count: 8192)
        var received = -1
        repeat {
            received = answer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        } while received < 0 && errno == EINTR
        return uid(inAnswer: Array(answer.prefix(max(0, received))))
    }

    /// `nlmsghdr` + `inet_diag_req_v2` for the one socket with these ends.
    static func request(source: LoopbackPeer.Endpoint, destination: LoopbackPeer.Endpoint) -> [UInt8] {
        var bytes: [UInt8] = []
        func u16(_ v: UInt16) { withUnsafeBytes(of: v) { bytes += $0 } }
        func u32(_ v: UInt32) { withUnsafeBytes(of: v) { bytes += $0 } }
        func address(_ a: [UInt8]) { bytes += a + [UInt8](repeating: 0, count: 16 - a.count) }
        u32(16 + 56); u16(sockDiagByFamily); u16(requestFlag); u32(1); u32(0)       // nlmsghdr
        bytes += [UInt8(source.address.count == 4 ? AF_INET : AF_INET6), UInt8(IPPROTO_TCP), 0, 0]
        u32(UInt32(1) << established)                                              // idiag_states
        u16(source.port.bigEndian); u16(destination.port.bigEndian)                // inet_diag_sockid
        address(source.address); address(destination.address)
        u32(0); u32(UInt32.max); u32(UInt32.max)                                   // any interface, no cookie
        return bytes
    }

    /// The uid of an `inet_diag_msg` answer for an established socket.
    static func uid(inAnswer bytes: [UInt8]) -> UInt32? {
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        // nlmsghdr (16) + inet_diag_msg: family, state, timer, retrans,
        // sockid (48), expires, rqueue, wqueue, uid (at 64), inode.
        guard bytes.count >= 16 + 72, u16(4) == sockDiagByFamily, bytes[16 + 1] == established else { return nil }
        return u32(16 + 64)
    }
}
