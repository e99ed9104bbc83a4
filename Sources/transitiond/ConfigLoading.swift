#if canImport(Glibc)
import Glibc
#endif
import Logging
import Engine
import TransitionConfig
import WireProtocol
import Server
import ServerCore
import StreamClient

/// Loads `--config FILE`, or the embedded default when there is none, for
/// a command that reads it once (see `ConfigUse`).
func loadDaemonConfiguration(_ path: String?) throws -> DaemonConfiguration {
    try loadDaemonConfiguration(path, use: .once)
}

/// Loads the config at `path` as `use` allows (`ConfigRead`: what it may
/// be, and its bounds of size and time), or the embedded default for nil.
func loadDaemonConfiguration(_ path: String?, use: ConfigUse) throws -> DaemonConfiguration {
    guard let path else { return .standard }
    let bytes = try ConfigRead.bytes(path, use: use)
    do {
        return try ConfigLoader.parseDaemon(bytes: bytes, file: path == "-" && use == .once ? "stdin" : path)
    } catch let error as ConfigError {
        throw Failure(.dataError, error.description)
    }
}

/// Where the daemon's config is when no flag names it: `--config`, else
/// `$TRANSITIOND_CONFIG`, else the system file if it exists, else none
/// (the embedded default).
enum DaemonConfigLocation {
    static let systemFile = "/etc/transitiond/transitiond.toml"

    static func resolve(explicit: String?, environment: [String: String],
                        exists: (String) -> Bool = fileExists) -> String? {
        if let explicit { return explicit }
        if let path = environment["TRANSITIOND_CONFIG"], !path.isEmpty { return path }
        return exists(systemFile) ? systemFile : nil
    }
}

/// The named variables of this process's environment (those that are set).
func processEnvironment(_ names: [String]) -> [String: String] {
    var environment: [String: String] = [:]
    for name in names {
        if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    return environment
}

/// The engine part of `--config FILE` (or the default).
func loadConfiguration(_ path: String?) throws -> EngineConfiguration {
    try loadDaemonConfiguration(path).engine
}

/// The server's options from the config's `[server]` table and the socket
/// path rule; group names are resolved to ids here (an unknown group is
/// logged and ignored: it may be created later, but it allows no one now).
func serverOptions(_ settings: ServerSettings, socket: String?, webSocket: ListenAddress? = nil,
                   logger: Logger) -> ServerOptions {
    var environment: [String: String] = [:]
    for name in ["TRANSITIOND_SOCKET", "XDG_RUNTIME_DIR"] {
        if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    let path = SocketLocation.resolve(explicit: socket ?? settings.socketPath, environment: environment)
    var gids: [UInt32] = []
    for group in settings.allowGroups {
        switch group {
        case .id(let gid):
            gids.append(gid)
        case .name(let name):
            if let entry = getgrnam(name) {
                gids.append(entry.pointee.gr_gid)
            } else {
                logger.warning("[server] allow_groups: no group named '\(name)' on this system; it allows no one")
            }
        }
    }
    let listen = webSocket ?? settings.webSocket
    return ServerOptions(socketPath: path, socketMode: settings.socketMode, maxClients: settings.maxClients,
                         maxWebSocketClients: settings.maxWebSocketClients, maxClientsPerPeer: settings.maxClientsPerPeer,
                         backlogLimit: settings.backlogLimit, allowUIDs: settings.allowUIDs, allowGIDs: gids,
                         webSocket: listen.map { webSocketOptions($0, allowOrigins: settings.allowOrigins) })
}

/// The WebSocket listener at `address`, serving the compiled-in pages.
func webSocketOptions(_ address: ListenAddress, allowOrigins: [String]) -> WebSocketOptions {
    var pages: [String: WebPage] = [:]
    for file in BundledPages.files { pages[file.path] = WebPage(contentType: file.contentType, body: file.body) }
    return WebSocketOptions(host: address.host, port: address.port, allowOrigins: allowOrigins, pages: pages)
}

/// `--websocket ADDR:PORT` read as the config's `websocket` key is.
func parseWebSocketFlag(_ text: String?) throws -> ListenAddress? {
    try parseListenFlag(text, flag: "--websocket")
}

/// An `ADDR:PORT` flag read as the config's listen addresses are; a bad
/// one is a usage error naming `flag`.
func parseListenFlag(_ text: String?, flag: String) throws -> ListenAddress? {
    guard let text else { return nil }
    switch ListenAddress.parse(text) {
    case .success(let address): return address
    case .failure(let problem): throw Failure(.usage, "\(flag) \(problem.message)")
    }
}

/// Who the daemon is under `config`: its `[identity]` and the config's hash.
func daemonIdentity(_ config: DaemonConfiguration) -> DaemonIdentity {
    DaemonIdentity(kiosk: config.identity.kiosk, site: config.identity.site, labels: config.identity.labels,
                   configHash: ConfigDigest.hash(of: config))
}

/// The log's first line: the version, the config read and who the daemon is
/// under it, so a fleet's logs say which kiosk and config they come from.
func startLine(configPath: String?, identity: DaemonIdentity) -> String {
    "transitiond \(Transitiond.configuration.version) config: \(configPath ?? "the embedded default"); \(identity.words)"
}
