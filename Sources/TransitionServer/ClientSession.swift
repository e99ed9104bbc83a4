#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import TransitionEngine

/// One connected client: its channel, its write descriptor, what it
/// subscribed to, who it is, and its outbox. Confined to the server's event
/// loop.
///
/// Lines go out one of two ways. While the client keeps up, each is written
/// at once with one `send(2)` on `descriptor` (the hot path: no pipeline,
/// no queue). When the kernel's buffer is full (a partial write or
/// `EAGAIN`), the rest goes to the NIO channel, which waits for the socket
/// to drain; from then on lines go through the channel, and through the
/// outbox's coalescing once the channel is over its high-water mark, until
/// the channel has written everything and the outbox is empty.
final class ClientSession: @unchecked Sendable {
    let channel: Channel
    let descriptor: ConnectionDescriptor
    let number: Int
    var framer: LineFramer
    var outbox: ClientOutbox
    /// Transition indices it wants; nil = all.
    var filter: Set<Int>? = nil
    let peer: PeerCredentials?
    var closing = false
    /// Lines handed to the channel and not yet written (or failed).
    private(set) var channelPending = 0
    private var needsFlush = false

    init(channel: Channel, descriptor: ConnectionDescriptor, number: Int, peer: PeerCredentials?,
         lineLimit: Int, backlogLimit: Int) {
        self.channel = channel
        self.descriptor = descriptor
        self.number = number
        self.peer = peer
        self.framer = LineFramer(limit: lineLimit)
        self.outbox = ClientOutbox(backlogLimit: backlogLimit)
    }

    /// A name for logs.
    var label: String { peer.map { "client \(number) (\($0))" } ?? "client \(number)" }

    func wants(_ transition: Int) -> Bool { filter?.contains(transition) ?? true }

    /// Whether nothing of this client's is waiting: a new line may be
    /// written straight to the socket.
    var isCaughtUp: Bool { channelPending == 0 && outbox.isEmpty }

    /// Writes or queues a line; returns false if the client overflowed.
    func send(_ line: ByteBuffer, _ priority: ClientOutbox.Priority) -> Bool {
        guard !closing else { return true }
        switch outbox.enqueue(line, priority, writable: channelPending == 0 || channel.isWritable) {
        case .write(let bytes):
            deliver(bytes)
            return true
        case .queued:
            return true
        case .overflow:
            return false
        }
    }

    /// Writes lines that may not be coalesced away, when `isCaughtUp`.
    func sendInOrder(_ lines: ByteBuffer) {
        guard !closing else { return }
        deliver(lines)
    }

    /// Writes a last line after whatever the channel holds (the socket
    /// first if it holds nothing); completes when it is written.
    func writeFinal(_ line: ByteBuffer) -> EventLoopFuture<Void> {
        var rest = line
        if channelPending == 0 {
            switch descriptor.send(line) {
            case .all: return channel.eventLoop.makeSucceededVoidFuture()
            case .some(let written): rest.moveReaderIndex(forwardBy: written)
            case .none: break
            }
        }
        return channel.writeAndFlush(rest)
    }

    /// Moves queued lines on while the socket or the channel takes them.
    func drain() {
        guard !closing else { return }
        while !closing, channelPending == 0 || channel.isWritable, let line = outbox.next() {
            deliver(line)
        }
        flush()
    }

    /// Flushes what was handed to the channel.
    func flush() {
        if needsFlush {
            needsFlush = false
            channel.flush()
        }
    }

    /// Writes a line that is next in order: straight to the socket if the
    /// channel holds nothing, else after what the channel holds.
    private func deliver(_ line: ByteBuffer) {
        guard channelPending == 0 else {
            handToChannel(line)
            return
        }
        switch descriptor.send(line) {
        case .all:
            return
        case .some(let written):
            var rest = line
            rest.moveReaderIndex(forwardBy: written)
            handToChannel(rest)
        case .none:
            // Full (EAGAIN) or failed (the peer left): the channel waits for
            // room, or fails the write and closes the connection.
            handToChannel(line)
        }
    }

    private func handToChannel(_ line: ByteBuffer) {
        channelPending += 1
        needsFlush = true
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [self] result in
            channelPending -= 1
            switch result {
            case .success:
                if channelPending == 0 && !outbox.isEmpty { drain() }
            case .failure:
                closing = true  // the channel is closing: nothing more to send
            }
        }
        channel.write(line, promise: written)
    }
}

/// A client connection's own descriptor for writing (a duplicate of the one
/// the NIO channel reads from, so that it stays valid — never another
/// connection's — until the server closes it). Confined to the event loop.
final class ConnectionDescriptor: @unchecked Sendable {
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

    /// Closes it (once).
    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
