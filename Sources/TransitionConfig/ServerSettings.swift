import Engine
import TouchFilter

/// A group named in `[server] allow_groups`: by gid, or by name (resolved to
/// a gid by whoever checks peers, not by the config reader).
public enum GroupReference: Sendable, Equatable {
    /// A numeric group id, `0...4294967294`.
    case id(UInt32)
    /// A group name matching `[A-Za-z_][A-Za-z0-9_.-]*`.
    case name(String)
}

/// The socket server's settings: the `[server]` table of the config
/// (design "Socket", docs/protocol.md). Every key is optional; an absent
/// table gives `ServerSettings.standard`.
public struct ServerSettings: Sendable, Equatable {
    /// `socket`: the socket's absolute path, or nil to let the daemon choose
    /// (`--socket`, `$TRANSITIOND_SOCKET`, `$XDG_RUNTIME_DIR`, `/run`).
    public var socketPath: String?
    /// `socket_mode`: the socket file's permission bits, at most `0o777`,
    /// always including owner read and write (`0o600`).
    public var socketMode: UInt32
    /// `max_clients`: connections to the Unix socket served at once, `1...65536`.
    public var maxClients: Int
    /// `max_websocket_clients`: WebSocket connections served at once,
    /// `1...65536`; a limit of its own, so that WebSocket clients (any local
    /// user may connect to a loopback listener) never take the Unix socket's.
    public var maxWebSocketClients: Int
    /// `max_clients_per_peer`: connections of one peer (uid, or a WebSocket
    /// peer's address when its uid is not known) on each transport,
    /// `1...65536`; nil: all but a quarter (rounded down) of the
    /// transport's limit.
    public var maxClientsPerPeer: Int?
    /// `backlog_limit`: bytes queued for a slow client before it is sent a
    /// `backlog` error and disconnected, `4096...1073741824`.
    public var backlogLimit: Int
    /// `allow_uids`: uids besides root allowed the state-changing commands
    /// (`run`, `drive`, `release`, `cancel`).
    public var allowUIDs: [UInt32]
    /// `allow_groups`: groups whose members are allowed the same commands.
    public var allowGroups: [GroupReference]
    /// `websocket`: where the WebSocket (and HTTP) listener binds, or nil
    /// when it is off (the default; `--websocket` turns it on).
    public var webSocket: ListenAddress?
    /// `allow_origins`: the browser origins (`Origin:` header) the WebSocket
    /// accepts besides requests without one and the listener's own; `"*"`
    /// accepts any.
    public var allowOrigins: [String]

    /// Settings with the given values; every argument defaults to the design's.
    public init(socketPath: String? = nil, socketMode: UInt32 = 0o660, maxClients: Int = 256,
                maxWebSocketClients: Int = 64, maxClientsPerPeer: Int? = nil, backlogLimit: Int = 1_048_576, allowUIDs: [UInt32] = [], allowGroups: [GroupReference] = [],
                webSocket: ListenAddress? = nil, allowOrigins: [String] = []) {
        self.webSocket = webSocket
        self.allowOrigins = allowOrigins
        self.socketPath = socketPath
        self.socketMode = socketMode
        self.maxClients = maxClients
        self.maxWebSocketClients = maxWebSocketClients
        self.maxClientsPerPeer = maxClientsPerPeer
        self.backlogLimit = backlogLimit
        self.allowUIDs = allowUIDs
        self.allowGroups = allowGroups
    }

    /// The settings of a config without `[server]`: no path (the daemon
    /// chooses), mode 0660, 256 clients, a 1 MiB backlog, no extra uids or groups.
    public static let standard = ServerSettings()
}

/// `[input] mode`: who else gets the panel's touches.
public enum InputMode: String, Sendable, Equatable, CaseIterable {
    /// Read beside the other readers (the UI gets every touch too).
    case shared
    /// Taken exclusively (`EVIOCGRAB`): nothing else gets a touch.
    case grab
    /// Taken exclusively and copied to a uinput clone for the UI, without
    /// the touches a transition claims.
    case filter
}

/// Where the daemon's touches come from: the config's `[input]` table.
public struct InputSettings: Sendable, Equatable {
    /// `device`: `["auto"]` (the first touchscreen), `["all"]` (every
    /// touchscreen), or paths: `/dev/input/eventN`, `/dev/input/by-id/…` or
    /// `by-path/…` links. `--device` overrides it.
    public var device: [String]
    /// `mode`: shared, grab or filter.
    public var mode: InputMode
    /// `filter_hold`: seconds a touch in a gesture's start area is held
    /// back from the UI in filter mode.
    public var filterHold: Double
    /// `flight_recorder`: seconds of raw input kept per panel for `dump` (0: off).
    public var flightRecorder: Double
    /// `flight_recorder_bytes`: the most memory it takes per panel.
    public var flightRecorderBytes: Int
    /// `rotation`: the panel's mounting angle, clockwise.
    public var rotation: ScreenGeometry.Rotation
    /// `flip_x`, `flip_y`: mirror the screen's axes.
    public var flipX: Bool
    public var flipY: Bool
    /// `calibration`: libinput's matrix `[a, b, c, d, e, f]`, or nil to take
    /// the device's `LIBINPUT_CALIBRATION_MATRIX` (none in a replay).
    public var calibration: [Double]?
    /// `max_edge_exclusion`: the most of each screen edge (0…1) the UI's
    /// exclusion regions may cover together (`EdgeExclusionCap`).
    public var maxEdgeExclusion: Double
    /// `min_report_rate`: Hz; a panel whose median report rate while a
    /// contact moves falls below it is degraded (`PanelHealth`).
    public var minReportRate: Double
    /// `keep_misfires` and its spool.
    public var misfires: MisfireSettings

    public init(device: [String] = ["auto"], mode: InputMode = .shared, filterHold: Double = 0.08,
                flightRecorder: Double = 30, flightRecorderBytes: Int = 4 << 20,
                rotation: ScreenGeometry.Rotation = .none, flipX: Bool = false,
                flipY: Bool = false, calibration: [Double]? = nil, maxEdgeExclusion: Double = 0.5,
                minReportRate: Double = 50, misfires: MisfireSettings = .standard) {
        self.misfires = misfires
        self.maxEdgeExclusion = maxEdgeExclusion
        self.minReportRate = minReportRate
        self.device = device
        self.mode = mode
        self.filterHold = filterHold
        self.flightRecorder = flightRecorder
        self.flightRecorderBytes = flightRecorderBytes
        self.rotation = rotation
        self.flipX = flipX
        self.flipY = flipY
        self.calibration = calibration
    }

    /// The geometry in force: the config's calibration, else the device's
    /// (udev), else none.
    public func geometry(deviceCalibration: [Double]? = nil) -> ScreenGeometry {
        if let calibration {
            return ScreenGeometry(rotation: rotation, flipX: flipX, flipY: flipY, calibration: calibration,
                                  calibrationSource: .config)
        }
        return ScreenGeometry(rotation: rotation, flipX: flipX, flipY: flipY, calibration: deviceCalibration,
                              calibrationSource: .udev)
    }

    /// The settings of a config without `[input]`: `device = "auto"`.
    public static let standard = InputSettings()
}

/// Everything the daemon reads from its config file: the engine's
/// transitions, the socket server's settings, the input's, the metrics' and
/// the touch filter's rules.
public struct DaemonConfiguration: Sendable, Equatable {
    /// The top level and the `[[transition]]` tables.
    public var engine: EngineConfiguration
    /// The `[server]` table, or `.standard` when there is none.
    public var server: ServerSettings
    /// The `[input]` table, or `.standard` when there is none.
    public var input: InputSettings
    /// The `[metrics]` table, or `.standard` when there is none.
    public var metrics: MetricsSettings
    /// The `[filter]` table (with its `[[filter.region]]` tables), or
    /// `.none` when there is none: what filter mode keeps from the UI's copy.
    public var filter: FilterRules
    /// The `[identity]` table, or `.none` when there is none.
    public var identity: IdentitySettings

    /// A configuration of these parts.
    public init(engine: EngineConfiguration, server: ServerSettings, input: InputSettings = .standard,
                metrics: MetricsSettings = .standard, filter: FilterRules = .none, identity: IdentitySettings = .none) {
        self.identity = identity
        self.engine = engine
        self.server = server
        self.input = input
        self.metrics = metrics
        self.filter = filter
    }

    /// The embedded default: `EngineConfiguration.standard`, `ServerSettings.standard`,
    /// `InputSettings.standard`, `MetricsSettings.standard` and `FilterRules.none`.
    public static let standard = DaemonConfiguration(engine: .standard, server: .standard, input: .standard,
                                                     metrics: .standard, filter: .none)
}
