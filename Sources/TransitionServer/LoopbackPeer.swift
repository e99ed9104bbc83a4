#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a loopback TCP connection. TCP has no
/// `SO_PEERCRED`, but on this machine the kernel knows which uid owns the
/// connecting socket: it is the entry of `/proc/net/tcp` (or `tcp6`) whose
/// local address is our peer's and whose remote address is ours. A peer
/// that is not on loopback, or not found (another network namespace, gone
/// already), has no credentials: it may subscribe but not command.
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
            if address.count == 4 { return address[0] == 127 }
            guard address.count == 16 else { return false }
            if address[0..<15].allSatisfy({ $0 == 0 }) && address[15] == 1 { return true }
            return address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF
                && address[12] == 127
        }

        /// As `/proc/net/tcp*` writes it: each 32-bit word of the address in
        /// hex as the machine reads it, `:`, the port in hex.
        public var procText: String {
            var text = ""
            var i = 0
            while i + 4 <= address.count {
                let word = UInt32(address[i]) | UInt32(address[i + 1]) << 8 | UInt32(address[i + 2]) << 16
                    | UInt32(address[i + 3]) << 24
                text += hex(UInt32(littleEndian: word), width: 8)
                i += 4
            }
            return text + ":" + hex(UInt32(port), width: 4)
        }

        private func hex(_ value: UInt32, width: Int) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
    }

    /// The uid owning the socket at `peer` connected to `local`, from a
    /// `/proc/net/tcp`-format table; nil when no entry matches.
    public static func uid(peer: Endpoint, local: Endpoint, table: String) -> UInt32? {
        let wantedLocal = peer.procText
        let wantedRemote = local.procText
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[1] == wantedLocal, fields[2] == wantedRemote else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    /// The credentials of a loopback peer: its socket's uid, that user's
    /// primary group and its groups from the user database (a TCP peer's
    /// process is not known, so the pid is 0). nil when the uid cannot be
    /// established.
    public static func credentials(peer: Endpoint, local: Endpoint) -> PeerCredentials? {
        guard peer.isLoopback, peer.address.count == local.address.count else { return nil }
        let path = peer.address.count == 4 ? "/proc/net/tcp" : "/proc/net/tcp6"
        guard let table = readSmallFile(path, limit: 64 << 20),
              let uid = uid(peer: peer, local: local, table: table) else { return nil }
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

    /// A file of `/proc` read whole (its size is not known in advance).
    private static func readSmallFile(_ path: String, limit: Int) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
