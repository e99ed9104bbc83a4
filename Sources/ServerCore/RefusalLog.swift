#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// Who a connection is, for the per-peer limits and for rate-limiting the
/// log of what it is refused: its uid where the kernel can tell (a Unix
/// socket's `SO_PEERCRED`, a loopback WebSocket peer's socket owner), else
/// its remote address (a WebSocket peer whose uid is not known).
public enum PeerIdentity: Hashable, Sendable, CustomStringConvertible {
    case uid(UInt32)
    /// The address bytes (4 for IPv4, 16 for IPv6; an IPv4-mapped IPv6
    /// address as its IPv4 one), without the port: every connection from
    /// one address is one peer.
    case address([UInt8])

    public var description: String {
        switch self {
        case .uid(let uid):
            return "uid \(uid)"
        case .address(let bytes):
            if bytes.count == 4 { return "address " + bytes.map(String.init).joined(separator: ".") }
            var groups: [String] = []
            var i = 0
            while i + 1 < bytes.count {
                groups.append(String(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]), radix: 16))
                i += 2
            }
            return "address " + groups.joined(separator: ":")
        }
    }

    /// A TCP peer's address (an IPv4-mapped IPv6 one as IPv4); nil for
    /// another kind.
    public init?(address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self = .address(withUnsafeBytes(of: v4.address.sin_addr) { Array($0) })
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self = .address(Array(bytes[12..<16]))
            } else {
                self = .address(bytes)
            }
        case .unixDomainSocket:
            return nil
        }
    }
}

/// The rate limit of refusal lines in the log (refused connections and
/// commands, over-long lines), so that a peer that reconnects thousands of
/// times a second cannot flood the journal (issue 26: 20,000 reconnects
/// wrote 120,000 lines in 3 s). In any `window` (a minute) at most
/// `perPeer` lines are about one peer and at most `total` lines in all,
/// the summary lines included; the refusals beyond are counted, and the
/// next line logged is preceded by one that says how many were not.
/// The refusals themselves (the reply, the close) never wait for it.
///
/// A value with no clock: the caller says what time it is (nanoseconds on
/// a monotonic clock). O(1) a refusal; it remembers the lines of the last
/// window only.
public struct RefusalLog: Sendable {
    public static let window: Int64 = 60_000_000_000
    public let total: Int
    public let perPeer: Int

    /// When each of the last `total` lines was logged (a ring).
    private var stamps: [Int64] = []
    private var next = 0
    /// Per peer, when its last `perPeer` lines were logged (oldest first).
    private var peers: [PeerIdentity: [Int64]] = [:]
    /// Refusals not logged since the last line that was.
    private var suppressed = 0

    public init(total: Int = 200, perPeer: Int = 5) {
        self.total = max(2, total)
        self.perPeer = max(1, perPeer)
        stamps.reserveCapacity(self.total)
    }

    /// What to do with a refusal's line.
    public enum Verdict: Sendable, Equatable {
        /// Log it, after a summary line of `suppressedBefore` refusals not
        /// logged (`RefusalLog.summary`) when that is more than 0.
        case log(suppressedBefore: Int)
        /// Do not log it (it is counted for the next summary).
        case suppress
    }

    /// A refusal about `peer` (nil: a peer that cannot be told) at `now`.
    public mutating func note(_ peer: PeerIdentity?, at now: Int64) -> Verdict {
        let lines = suppressed > 0 ? 2 : 1
        guard room(at: now) >= lines, peerHasRoom(peer, at: now) else {
            suppressed += 1
            return .suppress
        }
        let before = suppressed
        suppressed = 0
        for _ in 0..<lines { stamp(now) }
        if let peer {
            var own = peers[peer] ?? []
            if own.count == perPeer { own.removeFirst() }
            own.append(now)
            peers[peer] = own
            // Peers with a line in the window are at most `total`: forget
            // the others now and then, so a flood from many addresses
            // leaves nothing behind.
            if peers.count > 2 * total { peers = peers.filter { now - $0.value.last! < Self.window } }
        }
        return .log(suppressedBefore: before)
    }

    /// The line that says how many refusals were not logged.
    public func summary(_ count: Int) -> String {
        "\(count) refusal\(count == 1 ? " was" : "s were") not logged (at most \(perPeer) a minute per peer and \(total) a minute in all)"
    }

    /// Lines that may still be logged in the window ending at `now`.
    private func room(at now: Int64) -> Int {
        guard stamps.count == total else { return total - stamps.count }
        // The ring is full: a slot is free for each of its oldest lines that
        // are out of the window.
        var free = 0
        var k = next
        while free < 2, now - stamps[k] >= Self.window {
            free += 1
            k = (k + 1) % total
            if k == next { break }
        }
        return free
    }

    private func peerHasRoom(_ peer: PeerIdentity?, at now: Int64) -> Bool {
        guard let peer, let own = peers[peer], own.count == perPeer else { return true }
        return now - own[0] >= Self.window
    }

    private mutating func stamp(_ now: Int64) {
        if stamps.count < total {
            stamps.append(now)
            next = stamps.count % total
        } else {
            stamps[next] = now
            next = (next + 1) % total
        }
    }
}
