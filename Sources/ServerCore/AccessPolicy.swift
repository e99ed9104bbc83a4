/// Who is at the other end of a Unix socket: the kernel's `SO_PEERCRED`
/// (pid, uid, gid) plus the process's supplementary groups.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// `pid 0` is a peer whose process is not known (a TCP connection).
    public var description: String { pid > 0 ? "pid \(pid) uid \(uid)" : "uid \(uid)" }
}

/// Who may send the commands that change state (`run`, `drive`, `release`,
/// `cancel`): root, and the configured uids and groups.
public struct AccessPolicy: Sendable, Equatable {
    public var uids: [UInt32]
    public var gids: [UInt32]

    public init(uids: [UInt32], gids: [UInt32]) {
        self.uids = uids
        self.gids = gids
    }

    public func allowsChanges(by peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || uids.contains(peer.uid) { return true }
        if gids.contains(peer.gid) { return true }
        return peer.groups.contains { gids.contains($0) }
    }
}
