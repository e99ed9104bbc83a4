#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import ServerCore

extension PeerCredentials {
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
