import WireProtocol

/// What the server has done since it started, counted by its state machine
/// for metrics: commands by name and result, connections admitted and
/// refused, lines dropped by coalescing, clients cut off for their backlog.
/// Plain counts in the machine's value (no I/O); the metrics endpoint reads
/// them on the loop when it is scraped.
public struct ServerStatistics: Sendable, Equatable {
    /// A command and how it went: `ok`, or the `error` code it got.
    public struct Command: Hashable, Sendable {
        /// The command's name (`ClientCommand.name`), or `invalid` for a
        /// line that is not a command the daemon could read. Never a
        /// client's own text, so the set of names stays small.
        public var name: String
        /// `ok` or an `ErrorCode`'s wire spelling.
        public var result: String

        public init(name: String, result: String) {
            self.name = name
            self.result = result
        }
    }

    /// Commands answered, by name and result.
    public var commands: [Command: Int] = [:]
    /// Connections admitted as clients, by transport.
    public var admitted: [ClientTransport: Int] = [:]
    /// Connections refused because the daemon was full (`too-many-clients`).
    public var refusedFull = 0
    /// `changed`/`animating` lines a slow client's outbox dropped for a newer one.
    public var coalescedLines = 0
    /// Clients disconnected for falling behind by more than the backlog limit.
    public var backlogDisconnects = 0

    public init() {}

    public mutating func count(_ name: String, _ result: ErrorCode?) {
        commands[Command(name: name, result: result?.rawValue ?? "ok"), default: 0] += 1
    }
}
