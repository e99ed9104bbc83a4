import Engine
import WireProtocol

/// How the socket server runs: where its socket is, who may connect and
/// change state, and its limits (design "Socket"; the config's `[server]`).
public struct ServerOptions: Sendable, Equatable {
    public var socketPath: String
    /// Permission bits of the socket file.
    public var socketMode: UInt32
    /// Clients on the Unix socket at once.
    public var maxClients: Int
    /// Clients on the WebSocket at once (a limit of its own).
    public var maxWebSocketClients: Int
    /// Clients of one peer on one transport at once; nil: all but a
    /// quarter of the transport's limit (`ServerStateMachine.Settings.perPeerLimit`).
    public var maxClientsPerPeer: Int?
    /// A client whose pending output exceeds this many bytes is disconnected.
    public var backlogLimit: Int
    /// Uids allowed to send state-changing commands (root always is).
    public var allowUIDs: [UInt32]
    /// Groups (ids) allowed to send state-changing commands.
    public var allowGIDs: [UInt32]
    /// Longest command line accepted from a client.
    public var lineLimit: Int
    /// Add `"sent":NANOS` (CLOCK_MONOTONIC) to every event line, for
    /// measuring delivery latency.
    public var stampSent: Bool
    /// Start feeding the engine only once this many clients are connected
    /// (a replay that every test client sees from the start).
    public var startAfterClients: Int
    /// Shut down (closing every client) when the input has no more: a
    /// replay that is not held.
    public var closeWhenInputEnds: Bool
    /// A listening Unix stream socket passed by the service manager (socket
    /// activation): served instead of binding `socketPath` (then only the
    /// name it is known by), and never unlinked or chmod'ed.
    public var inheritedListener: CInt?
    /// The WebSocket transport (and its HTTP pages), or nil when it is off.
    public var webSocket: WebSocketOptions?
    /// A listener of its own for `/metrics` and `/healthz` (`[metrics]
    /// listen`), or nil. Serves only when the server has metrics.
    public var metricsListen: MetricsListenOptions?
    /// How much of each screen edge the clients' exclusion regions may
    /// cover together (`[input] max_edge_exclusion`, 0…1): an `exclude`
    /// over it is refused. A rule on what clients ask, as the limits above
    /// are, so the server applies it (`EdgeExclusionCap`).
    public var maxEdgeExclusion: Double = 0.5

    public init(socketPath: String, socketMode: UInt32 = 0o660, maxClients: Int = 256,
                maxWebSocketClients: Int = 64, maxClientsPerPeer: Int? = nil, backlogLimit: Int = 1 << 20, allowUIDs: [UInt32] = [], allowGIDs: [UInt32] = [],
                lineLimit: Int = 64 * 1024, stampSent: Bool = false, startAfterClients: Int = 0,
                closeWhenInputEnds: Bool = false, inheritedListener: CInt? = nil,
                webSocket: WebSocketOptions? = nil, metricsListen: MetricsListenOptions? = nil) {
        self.webSocket = webSocket
        self.metricsListen = metricsListen
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.maxClients = maxClients
        self.maxWebSocketClients = maxWebSocketClients
        self.maxClientsPerPeer = maxClientsPerPeer
        self.backlogLimit = backlogLimit
        self.allowUIDs = allowUIDs
        self.allowGIDs = allowGIDs
        self.lineLimit = lineLimit
        self.stampSent = stampSent
        self.startAfterClients = startAfterClients
        self.closeWhenInputEnds = closeWhenInputEnds
        self.inheritedListener = inheritedListener
    }
}

extension ServerOptions {
    /// The clients the server admits at once: the Unix socket's, and the
    /// WebSocket's when it listens.
    public var clientCapacity: Int { maxClients + (webSocket != nil ? maxWebSocketClients : 0) }

    /// Why the server could never do what these options ask, or nil: a
    /// `startAfterClients` (`--wait-clients`) more than it admits at once
    /// would wait for ever. Checked at `start`, and by the command line
    /// first, as a usage error.
    public var problem: String? {
        guard startAfterClients > clientCapacity else { return nil }
        let limits = webSocket != nil
            ? "max_clients (\(maxClients)) + max_websocket_clients (\(maxWebSocketClients))"
            : "[server] max_clients (\(maxClients))"
        return "--wait-clients \(startAfterClients) is more clients than the daemon admits at once: \(limits); it would never start"
    }
}

/// The options cannot work (`ServerOptions.problem`).
public struct ServerOptionsError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}

/// The WebSocket transport's listener: where it binds (or the listening TCP
/// socket the service manager passed), which browser origins it accepts,
/// and the pages it serves over plain HTTP on the same port.
public struct WebSocketOptions: Sendable, Equatable {
    /// An IPv4 or IPv6 address (no name) and a port (0: the kernel picks).
    public var host: String
    public var port: Int
    /// `Origin:` values accepted besides none and the listener's own; `"*"` is any.
    public var allowOrigins: [String]
    /// A listening TCP socket passed by the service manager, served instead
    /// of binding `host:port`.
    public var inheritedListener: CInt?
    /// Pages served by `GET`, by path (`/`, `/transitiond.js`).
    public var pages: [String: WebPage]

    public init(host: String, port: Int, allowOrigins: [String] = [], inheritedListener: CInt? = nil,
                pages: [String: WebPage] = [:]) {
        self.host = host
        self.port = port
        self.allowOrigins = allowOrigins
        self.inheritedListener = inheritedListener
        self.pages = pages
    }

    /// `host:port` as a URL writes it.
    public var authority: String { Self.authority(host: host, port: port) }

    /// `host:port` as a URL writes it (an IPv6 address in brackets).
    public static func authority(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// Where the metrics listener of its own binds (`[metrics] listen`), or the
/// listening TCP socket the service manager passed (named `metrics`).
public struct MetricsListenOptions: Sendable, Equatable {
    /// An IPv4 or IPv6 address (no name) and a port (0: the kernel picks).
    public var host: String
    public var port: Int
    public var inheritedListener: CInt?

    public init(host: String, port: Int, inheritedListener: CInt? = nil) {
        self.host = host
        self.port = port
        self.inheritedListener = inheritedListener
    }

    /// `host:port` as a URL writes it.
    public var authority: String { WebSocketOptions.authority(host: host, port: port) }
}

/// A file the HTTP side of the WebSocket listener serves.
public struct WebPage: Sendable, Equatable {
    public var contentType: String
    public var body: [UInt8]

    public init(contentType: String, body: [UInt8]) {
        self.contentType = contentType
        self.body = body
    }
}

/// A config re-read for a reload: the engine's transitions and the server's
/// options (of which the limits and access apply at once; the socket's
/// path and mode at the next start).
public struct ReloadedConfiguration: Sendable {
    public var engine: EngineConfiguration
    public var options: ServerOptions
    /// Who the daemon is under this config (its `[identity]` and hash).
    public var identity: DaemonIdentity?

    public init(engine: EngineConfiguration, options: ServerOptions, identity: DaemonIdentity? = nil) {
        self.engine = engine
        self.options = options
        self.identity = identity
    }
}

/// Why a reload could not use the config: `FILE:LINE: key 'x': …`.
public struct ConfigReadFailure: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Re-reads the config for a reload: called on the server's loop, which it
/// must not block, it starts the reading and calls `done` once, on any
/// thread, with the result.
public typealias ConfigReader = (_ done: @escaping @Sendable (Result<ReloadedConfiguration, ConfigReadFailure>) -> Void) -> Void
