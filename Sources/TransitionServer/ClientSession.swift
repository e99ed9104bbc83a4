import NIOCore
import TransitionEngine

/// One connected client: its channel, what it subscribed to, who it is, and
/// its outbox. Confined to the server's event loop.
final class ClientSession: @unchecked Sendable {
    let channel: Channel
    let number: Int
    var framer: LineFramer
    var outbox: ClientOutbox
    /// Transition indices it wants; nil = all.
    var filter: Set<Int>? = nil
    var peer: PeerCredentials?
    var needsFlush = false
    var closing = false

    init(channel: Channel, number: Int, lineLimit: Int, backlogLimit: Int) {
        self.channel = channel
        self.number = number
        self.framer = LineFramer(limit: lineLimit)
        self.outbox = ClientOutbox(backlogLimit: backlogLimit)
    }

    /// A name for logs.
    var label: String { peer.map { "client \(number) (\($0))" } ?? "client \(number)" }

    func wants(_ transition: Int) -> Bool { filter?.contains(transition) ?? true }

    /// Queues or writes a line; returns false if the client overflowed.
    func send(_ line: ByteBuffer, _ priority: ClientOutbox.Priority) -> Bool {
        guard !closing else { return true }
        switch outbox.enqueue(line, priority, writable: channel.isWritable) {
        case .write(let bytes):
            channel.write(bytes, promise: nil)
            needsFlush = true
            return true
        case .queued:
            return true
        case .overflow:
            return false
        }
    }

    /// Writes queued lines while the channel takes them.
    func drain() {
        while channel.isWritable, let line = outbox.next() {
            channel.write(line, promise: nil)
            needsFlush = true
        }
        flush()
    }

    func flush() {
        if needsFlush {
            needsFlush = false
            channel.flush()
        }
    }
}
