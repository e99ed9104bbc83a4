import NIOCore

/// One client's pending output, with the back-pressure rules of design
/// "Socket": while the client is not keeping up, its pending `changed` and
/// `animating` lines for a transition coalesce to the newest (the older one
/// is dropped; order by `seq` is kept); every other line is kept; past the
/// hard backlog the client is to be disconnected. A value-type state
/// machine: the connection asks it what to do and does it.
///
/// What it holds is bounded by the backlog, not by how long the client has
/// stalled: a coalesced line leaves a dead entry behind (so that the newer
/// one keeps its place in `seq` order), and the dead entries are swept out
/// once they outnumber the live ones (and are more than `sweepFloor`).
/// Without the sweep, a client that stopped reading kept one entry, and the
/// line it holds, for every `changed` it was sent.
public struct ClientOutbox: Sendable {
    /// How a line may be treated.
    public enum Priority: Sendable, Equatable {
        /// May be replaced by a newer line of the same transition.
        case coalescible(transition: Int)
        /// Never dropped (`hello`, `began`, `ended`, `finished`, `cancelled`, replies).
        case essential(transition: Int?)
    }

    public enum Action: Sendable, Equatable {
        /// Write this line now.
        case write(ByteBuffer)
        /// Queued for later.
        case queued
        /// The backlog is over the limit: send a final error and close.
        case overflow
    }

    private struct Entry: Sendable {
        var line: ByteBuffer
        var transition: Int?
        var coalescible: Bool
        var live: Bool
    }

    public let backlogLimit: Int
    private var entries: [Entry] = []
    private var head = 0
    /// Per transition, the index in `entries` of its last queued line.
    private var last: [Int: Int] = [:]
    public private(set) var pendingBytes = 0
    /// Lines dropped by coalescing, for statistics.
    public private(set) var coalesced = 0
    /// Dead (coalesced) entries in `entries[head...]`.
    private var dead = 0
    /// Dead entries below this many are left for `next()` to skip.
    static let sweepFloor = 1024

    /// Entries held, live or dead: what the outbox costs in memory.
    var storedEntries: Int { entries.count - head }

    public init(backlogLimit: Int) {
        self.backlogLimit = backlogLimit
    }

    public var isEmpty: Bool { pendingBytes == 0 && head == entries.count }

    /// A new line for this client. `writable` says whether the connection
    /// can take it now; a line is written at once only if nothing is queued
    /// before it.
    public mutating func enqueue(_ line: ByteBuffer, _ priority: Priority, writable: Bool) -> Action {
        if writable && head == entries.count {
            return .write(line)
        }
        let transition: Int?
        let coalescible: Bool
        switch priority {
        case .coalescible(let t): transition = t; coalescible = true
        case .essential(let t): transition = t; coalescible = false
        }
        if coalescible, let t = transition, let i = last[t], i >= head, entries[i].live, entries[i].coalescible {
            entries[i].live = false
            pendingBytes -= entries[i].line.readableBytes
            entries[i].line = ByteBuffer()  // let go of the line now
            coalesced += 1
            dead += 1
        }
        entries.append(Entry(line: line, transition: transition, coalescible: coalescible, live: true))
        pendingBytes += line.readableBytes
        if let t = transition { last[t] = entries.count - 1 }
        if dead > Self.sweepFloor && dead * 2 > entries.count - head {
            sweep()
        }
        return pendingBytes > backlogLimit ? .overflow : .queued
    }

    /// Drops the dead entries, keeping the live ones in order.
    private mutating func sweep() {
        var kept: [Entry] = []
        kept.reserveCapacity(entries.count - head - dead)
        last.removeAll(keepingCapacity: true)
        for entry in entries[head...] where entry.live {
            // A transition's newest entry is always live (a dead one was
            // replaced by a newer line of its transition).
            if let t = entry.transition { last[t] = kept.count }
            kept.append(entry)
        }
        entries = kept
        head = 0
        dead = 0
    }

    /// The next queued line, when the connection can take more.
    public mutating func next() -> ByteBuffer? {
        while head < entries.count {
            let entry = entries[head]
            head += 1
            if entry.live {
                pendingBytes -= entry.line.readableBytes
                compactIfDrained()
                return entry.line
            }
            dead -= 1
        }
        compactIfDrained()
        return nil
    }

    private mutating func compactIfDrained() {
        if head == entries.count {
            entries.removeAll(keepingCapacity: entries.capacity <= 4096)
            head = 0
            last.removeAll(keepingCapacity: true)
        } else if head > 1024 && head * 2 > entries.count {
            entries.removeFirst(head)
            for (t, i) in last { last[t] = i - head }
            head = 0
        }
    }
}
