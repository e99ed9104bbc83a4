import TransitionEngine

/// How the socket server runs: where its socket is, who may connect and
/// change state, and its limits (design "Socket"; the config's `[server]`).
public struct ServerOptions: Sendable, Equatable {
    public var socketPath: String
    /// Permission bits of the socket file.
    public var socketMode: UInt32
    public var maxClients: Int
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

    public init(socketPath: String, socketMode: UInt32 = 0o660, maxClients: Int = 256,
                backlogLimit: Int = 1 << 20, allowUIDs: [UInt32] = [], allowGIDs: [UInt32] = [],
                lineLimit: Int = 64 * 1024, stampSent: Bool = false, startAfterClients: Int = 0,
                closeWhenInputEnds: Bool = false, inheritedListener: CInt? = nil) {
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.maxClients = maxClients
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

/// A config re-read for a reload: the engine's transitions and the server's
/// options (of which the limits and access apply at once; the socket's
/// path and mode at the next start).
public struct ReloadedConfiguration: Sendable {
    public var engine: EngineConfiguration
    public var options: ServerOptions

    public init(engine: EngineConfiguration, options: ServerOptions) {
        self.engine = engine
        self.options = options
    }
}

/// Why a reload could not use the config: `FILE:LINE: key 'x': …`.
public struct ConfigReadFailure: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Re-reads the config for a reload, on the server's loop.
public typealias ConfigReader = () -> Result<ReloadedConfiguration, ConfigReadFailure>
