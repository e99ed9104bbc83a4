/// When the daemon tells its service manager it is ready, and what its
/// status line says (`sd_notify(3)`'s `READY=1` and `STATUS=`), as a value:
/// each input returns the message to send, if any. `READY=1` goes once,
/// when the socket listens and the input is known (a device attached, or
/// waited for); `STOPPING=1` once, on shutdown, and nothing after it.
public struct ServiceReadiness: Sendable, Equatable {
    /// The socket the daemon serves, once it listens.
    public private(set) var socket: String?
    /// The input's status line, once known.
    public private(set) var input: String?
    public private(set) var clients = 0
    public private(set) var ready = false
    public private(set) var stopping = false
    private var lastStatus = ""

    /// `input`: the status of an input that is known from the start (a
    /// replay), or nil to wait for the first `inputChanged`.
    public init(input: String? = nil) {
        self.input = input
    }

    /// The status line: `serving PATH; input: …; N clients`.
    public var status: String {
        var parts: [String] = []
        if let socket { parts.append("serving \(socket)") }
        if let input { parts.append("input: \(input)") }
        parts.append(clients == 1 ? "1 client" : "\(clients) clients")
        return parts.joined(separator: "; ")
    }

    public mutating func listening(on socket: String) -> String? {
        self.socket = socket
        return update()
    }

    public mutating func inputChanged(_ text: String) -> String? {
        input = text
        return update()
    }

    public mutating func clientCount(_ count: Int) -> String? {
        clients = count
        return update()
    }

    /// A reload begins (`RELOADING=1` with the time it began, as systemd
    /// 253's `Type=notify-reload` wants; 252 takes it too). Nothing before
    /// `READY=1` or after `STOPPING=1`.
    public mutating func reloading(monotonicMicroseconds: UInt64) -> String? {
        guard ready, !stopping else { return nil }
        return "RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds)"
    }

    /// The reload is over (whether the config was taken or not): ready again.
    public mutating func reloadDone() -> String? {
        guard ready, !stopping else { return nil }
        lastStatus = status
        return "READY=1\nSTATUS=\(lastStatus)"
    }

    /// The daemon is shutting down.
    public mutating func shuttingDown() -> String? {
        guard !stopping else { return nil }
        stopping = true
        return "STOPPING=1\nSTATUS=stopping"
    }

    private mutating func update() -> String? {
        guard !stopping else { return nil }
        let status = self.status
        if !ready {
            guard socket != nil, input != nil else { return nil }
            ready = true
            lastStatus = status
            return "READY=1\nSTATUS=\(status)"
        }
        guard status != lastStatus else { return nil }
        lastStatus = status
        return "STATUS=\(status)"
    }
}
