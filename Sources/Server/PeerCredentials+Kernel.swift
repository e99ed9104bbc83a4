#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import ServerCore

extension PeerCredentials {
    /// A Unix socket peer's supplementary groups: the kernel's
    /// `SO_PEERGROUPS` (as they were when it connected; readable however
    /// hardened the daemon's view of /proc is, as its unit's
    /// `ProtectProc=invisible`), with `/proc/PID/status`'s for what that
    /// cannot tell: gid 0, which reads like the option's zeroed padding, and
    /// a peer in more than `KernelPeerGroups.capacity` groups.
    static func groups(of channel: Channel, pid: Int32) -> [UInt32] {
        Array(Set(kernelGroups(of: channel) ?? []).union(supplementaryGroups(of: pid))).sorted()
    }

    /// `SO_PEERGROUPS`' nonzero groups; nil when the kernel could not say
    /// (no such socket, or more groups than fit).
    static func kernelGroups(of channel: Channel) -> [UInt32]? {
        guard let provider = channel as? SocketOptionProvider else { return nil }
        var groups: [UInt32]?
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(KernelPeerGroups.option))
            .assumeIsolated()
            .whenSuccess { (value: KernelPeerGroups.Storage) in
                groups = (0..<KernelPeerGroups.capacity).map { value[$0] }.filter { $0 != 0 }
            }
        return groups
    }

    /// The supplementary groups of a process, from `/proc/PID/status`
    /// (`Groups:`); empty if the process is gone or unreadable.
    public static func supplementaryGroups(of pid: Int32) -> [UInt32] {
        guard pid > 0, let file = fopen("/proc/\(pid)/status", "r") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            if text.hasPrefix("Groups:") {
                return text.dropFirst(7).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                    .compactMap { UInt32($0) }
            }
        }
        return []
    }
}

/// `getsockopt(SO_PEERGROUPS)`'s answer: the peer's groups, as many as
/// fit (NIO zeroes the rest; the kernel lists them in ascending order).
enum KernelPeerGroups {
    typealias Storage = SIMD64<UInt32>
    static let capacity = 64
    /// `SO_PEERGROUPS` on Linux.
    static let option: CInt = 59
}

/// `struct ucred` as `getsockopt(SO_PEERCRED)` fills it (Glibc's module
/// does not export it).
struct KernelPeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
    /// `SO_PEERCRED` on Linux.
    static let option: CInt = 17
}

extension PeerCredentials {
    /// The kernel's `SO_PEERCRED` of a Unix socket channel's peer (one
    /// `getsockopt` on its descriptor, through NIO's `SocketOptionProvider`;
    /// called on the channel's loop, where it completes at once); nil for a
    /// channel that has no such socket (an `EmbeddedChannel`, TCP) or a
    /// peer the kernel cannot tell.
    static func kernelCredentials(of channel: Channel) -> KernelPeerCredentials? {
        guard let provider = channel as? SocketOptionProvider else { return nil }
        var credentials: KernelPeerCredentials?
        provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(KernelPeerCredentials.option))
            .assumeIsolated()
            .whenSuccess { (value: KernelPeerCredentials) in credentials = value }
        return credentials
    }
}
