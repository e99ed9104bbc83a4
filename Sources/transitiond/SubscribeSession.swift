#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import StreamClient
import WireProtocol

/// The loop of `transitiond subscribe`: connect (with retries), read and
/// print the stream, close what was in flight when the connection drops,
/// reconnect; until a signal, a closed stdout, or the retry time runs out.
struct SubscribeSession {
    let path: String
    /// Only these transitions' events (all when empty).
    let names: [String]
    let retrySeconds: Double
    /// The terminal view, or nil for NDJSON.
    var view: TerminalView?

    /// Mirrors exactly what was printed, so the synthetic cancellations
    /// close everything a consumer of the output believes in flight.
    private var mirror = StreamMirror()
    private var out = StandardOutput()
    /// NDJSON waiting to be written (what arrived together goes out in one write).
    private var pending: [UInt8] = []

    /// The id of the subscription command, to recognise its reply.
    static let subscribeID = "subscribe"
    /// The live view asks `state` for the last minute's latencies this often, under this id.
    static let latencyID = "live-latency"
    static let latencyInterval = 5.0
    private var askedLatency = -Double.infinity

    init(path: String, names: [String], retrySeconds: Double, view: TerminalView?) {
        self.path = path
        self.names = names
        self.retrySeconds = retrySeconds
        self.view = view
    }

    /// Why one connection's stream ended.
    private enum StreamEnd {
        case stopped
        case lost
    }

    mutating func run() throws {
        ProcessSignals.install()
        var first = true
        while let connection = try connect(first: first) {
            first = false
            let end = try stream(connection)
            connection.close()
            if end == .stopped || out.closed { break }
            closeInFlight()
            note("connection to \(path) lost; reconnecting")
            if out.closed { break }
        }
        flush()
        try out.checkWritten()
    }

    // MARK: Connecting

    /// A connection, retrying with backoff (100 ms doubling to 2 s) for up to
    /// `retrySeconds`; nil when a stop signal arrived first.
    private mutating func connect(first: Bool) throws -> StreamConnection? {
        let deadline = monotonicSeconds() + retrySeconds
        var delay = 0.1
        var announced = false
        while !ProcessSignals.stopRequested {
            do {
                return try StreamConnection(path: path)
            } catch {
                guard error.isRetryable else {
                    if case .pathTooLong = error { throw Failure(.usage, error.description) }
                    throw Failure(.unavailable, error.description)
                }
                let remaining = deadline - monotonicSeconds()
                if remaining <= 0 {
                    throw Failure(.unavailable, "\(error); gave up after \(seconds(retrySeconds))")
                }
                if first && !announced {
                    note("\(error); retrying for up to \(seconds(retrySeconds))")
                    announced = true
                }
                if !ProcessSignals.sleep(min(delay, remaining)) { return nil }
                delay = min(delay * 2, 2)
            }
        }
        return nil
    }

    // MARK: Reading

    private mutating func stream(_ connection: StreamConnection) throws -> StreamEnd {
        var warnedUndecodable = false
        while true {
            if ProcessSignals.stopRequested { return .stopped }
            if out.closed { return .stopped }
            let line: [UInt8]?
            do {
                line = try connection.readLine(timeout: 0.25)
            } catch .timedOut, .interrupted {
                flush()
                askLatency(connection)
                if var v = view { out.write(v.tick(mirror)); view = v }
                if out.readerGone { return .stopped }
                continue
            } catch {
                flush()
                return .lost
            }
            guard let line else {
                flush()
                return .lost
            }
            let message: StreamMessage
            do {
                message = try StreamMessage.decode(line: line)
            } catch {
                if !warnedUndecodable {
                    note("ignoring a line that is not a stream message (\(error))")
                    warnedUndecodable = true
                }
                if view == nil { emit(line) }
                continue
            }
            try handle(message, line: line, connection: connection)
            if !connection.hasBufferedLine || pending.count >= 1 << 16 { flush() }
        }
    }

    private mutating func handle(_ message: StreamMessage, line: [UInt8], connection: StreamConnection) throws {
        switch message {
        case .hello(let hello):
            try subscribe(hello, connection: connection)
        case .event(let update):
            if !names.isEmpty && !names.contains(update.transition) { return }
        case .ok(let cmd, let id):
            if isOurReply(cmd: cmd, id: id) { return }
        case .error(let code, let text, _, let id):
            if id == .text(Self.subscribeID) {
                throw Failure(.unavailable, "the daemon at \(path) refused the subscription: \(code): \(text)")
            }
            if view == nil { note("the daemon says: \(code): \(text)") }
        case .state(let snapshot, let id):
            // The live view's own question: its latencies, not a snapshot to show.
            if id == .text(Self.latencyID) {
                view?.latency = snapshot.latency
                return
            }
        case .pong, .clock, .dump, .unknown:
            break
        }
        mirror.apply(message)
        if var v = view {
            out.write(v.show(message, mirror: mirror, path: path))
            view = v
        } else {
            emit(line)
        }
    }

    /// Checks the requested names against the daemon's, and asks for them.
    private func subscribe(_ hello: StreamSnapshot, connection: StreamConnection) throws {
        guard !names.isEmpty else { return }
        let known = hello.transitions.map(\.name)
        for name in names where !known.contains(name) {
            throw Failure(.usage, "no transition named '\(name)' at \(path) (it has: \(known.joined(separator: ", ")))")
        }
        do {
            try connection.send(bytes: ClientCommand.subscribe(transitions: names).encodedLine(id: .text(Self.subscribeID)))
        } catch {
            // The connection is going away: the read loop sees it next.
        }
    }

    /// The live view shows the daemon's last minute of latencies: asked for
    /// now and then (not for NDJSON, which passes the stream on as it is).
    private mutating func askLatency(_ connection: StreamConnection) {
        guard view != nil, MonotonicClock.seconds - askedLatency >= Self.latencyInterval else { return }
        askedLatency = MonotonicClock.seconds
        try? connection.send(bytes: ClientCommand.state.encodedLine(id: .text(Self.latencyID)))
    }

    private func isOurReply(cmd: String, id: RequestID?) -> Bool {
        !names.isEmpty && cmd == "subscribe" && (id == nil || id == .text(Self.subscribeID))
    }

    // MARK: Output

    /// Prints a synthetic `cancelled` for everything in flight.
    private mutating func closeInFlight() {
        for update in mirror.syntheticCancellations(time: mirror.lastTime) {
            mirror.apply(update)
            if var v = view {
                out.write(v.show(.event(update), mirror: mirror, path: path))
                view = v
            } else {
                pending += update.encodedLine()
            }
        }
        flush()
    }

    private mutating func emit(_ line: [UInt8]) {
        pending += line
        pending.append(0x0A)
    }

    private mutating func flush() {
        guard !pending.isEmpty else { return }
        out.write(pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// A `transitiond: …` line on stderr (clearing the live view's bars first).
    private mutating func note(_ text: String) {
        flush()
        if var v = view {
            out.write(v.clear())
            view = v
        }
        StandardError.write("transitiond: \(text)\n")
    }
}

// MARK: - Helpers

private func monotonicSeconds() -> Double { MonotonicClock.seconds }

/// "30 s", "0.5 s".
private func seconds(_ value: Double) -> String {
    value.rounded() == value ? "\(Int(value)) s" : "\(value) s"
}
