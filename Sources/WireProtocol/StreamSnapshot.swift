/// What `hello` and `state` carry: the configured transitions and every one
/// in flight, so a client renders the right state at once; the live
/// daemon's input and the panel's geometry when there is something to say.
public struct StreamSnapshot: Sendable, Equatable {
    /// `protocol` (nil when absent).
    public var protocolVersion: Int?
    /// The daemon's version.
    public var version: String?
    public var transitions: [TransitionInfo]
    public var active: [ActiveTransition]
    /// The seq of the last event sent before the snapshot: the live stream
    /// continues with `seq + 1`. Absent in a replay's printed `hello`.
    public var seq: UInt64?
    /// The live daemon's input (`"input":"attached"`, …); nil in a replay.
    public var input: InputStatus?
    /// Every attached panel, with several selected (else empty).
    public var devices: [InputDevice]
    /// How positions are transformed; nil when they are the panel's own.
    public var geometry: Geometry?
    /// The exclusion regions in force (every client's `exclude`, together);
    /// empty when none (the field is then absent).
    public var exclusions: [ExclusionRect]
    /// What the touch filter does (filter mode only; nil otherwise).
    public var filter: FilterStatus?
    /// The last minute's touch-to-frame and input-to-write times (`state`
    /// of a daemon with metrics on; nil when there is nothing to say).
    public var latency: LatencyStatus?
    /// Every attached panel's health (live input only; empty otherwise,
    /// and the field is then absent).
    public var panels: [PanelStatus]
    /// Which kiosk and config (`[identity]`, the config's hash); nil when not said.
    public var identity: DaemonIdentity?

    public init(protocolVersion: Int? = nil, version: String? = nil, transitions: [TransitionInfo],
                active: [ActiveTransition] = [], seq: UInt64? = nil, input: InputStatus? = nil,
                devices: [InputDevice] = [], geometry: Geometry? = nil, exclusions: [ExclusionRect] = [],
                filter: FilterStatus? = nil, panels: [PanelStatus] = [], latency: LatencyStatus? = nil,
                identity: DaemonIdentity? = nil) {
        self.identity = identity
        self.latency = latency
        self.panels = panels
        self.exclusions = exclusions
        self.filter = filter
        self.protocolVersion = protocolVersion
        self.version = version
        self.transitions = transitions
        self.active = active
        self.seq = seq
        self.input = input
        self.devices = devices
        self.geometry = geometry
    }
}

/// A configured transition, as `hello` lists it.
public struct TransitionInfo: Sendable, Equatable {
    public var name: String
    /// `edge-pan`, `swipe`, `pinch` (text: a gesture a newer daemon adds still reads).
    public var gesture: String?
    public var fingers: Int?
    /// An edge-pan's edge: `left`, `right`, `top`, `bottom`.
    public var edge: String?
    /// A swipe's (`left`, `right`, `up`, `down`) or pinch's (`in`, `out`) direction.
    public var direction: String?
    /// False after `enable` turned its gesture off (the wire says only that).
    public var enabled: Bool
    /// The panel it is bound to, with several.
    public var device: String?
    /// Its snap points (`snap_points`, `pages`), ascending; nil without.
    public var snapPoints: [Double]?
    /// The snap point it rests at now; nil without snap points.
    public var rest: Double?

    public init(name: String, gesture: String? = nil, fingers: Int? = nil, edge: String? = nil,
                direction: String? = nil, enabled: Bool = true, device: String? = nil,
                snapPoints: [Double]? = nil, rest: Double? = nil) {
        self.snapPoints = snapPoints
        self.rest = rest
        self.name = name
        self.gesture = gesture
        self.fingers = fingers
        self.edge = edge
        self.direction = direction
        self.enabled = enabled
        self.device = device
    }
}

/// A transition in flight in a snapshot's `active`.
public struct ActiveTransition: Sendable, Equatable {
    public var transition: String
    /// `interacting` or `animating`.
    public var phase: TransitionPhase
    public var progress: Double
    public var values: [PropertyValue]
    /// The animation's target (1 or 0); animating only.
    public var target: Double?

    public init(transition: String, phase: TransitionPhase, progress: Double, target: Double? = nil,
                values: [PropertyValue] = []) {
        self.transition = transition
        self.phase = phase
        self.progress = progress
        self.target = target
        self.values = values
    }
}

/// The live daemon's input: `"input":"attached","device":…,"device_name":…`
/// or `"input":"waiting","waiting_for":…`, in that order.
public struct InputStatus: Sendable, Equatable {
    /// `attached` or `waiting`.
    public var input: String
    public var device: String?
    public var deviceName: String?
    public var waitingFor: String?

    public init(input: String, device: String? = nil, deviceName: String? = nil, waitingFor: String? = nil) {
        (self.input, self.device, self.deviceName, self.waitingFor) = (input, device, deviceName, waitingFor)
    }
}

/// One attached panel of `"devices":[…]`.
public struct InputDevice: Sendable, Equatable {
    public var source: Int
    public var path: String
    public var name: String

    public init(source: Int, path: String, name: String) {
        (self.source, self.path, self.name) = (source, path, name)
    }
}

/// `"geometry":{"rotation":90,"flip_x":false,"flip_y":false,"calibration":[…]|null,"calibration_from":"udev"}`.
public struct Geometry: Sendable, Equatable {
    /// Degrees: 0, 90, 180 or 270.
    public var rotation: Int
    public var flipX: Bool
    public var flipY: Bool
    /// The six numbers of a calibration matrix, or nil.
    public var calibration: [Double]?
    /// `config`, `udev` or `none`.
    public var calibrationFrom: String

    public init(rotation: Int, flipX: Bool, flipY: Bool, calibration: [Double]?, calibrationFrom: String) {
        (self.rotation, self.flipX, self.flipY) = (rotation, flipX, flipY)
        (self.calibration, self.calibrationFrom) = (calibration, calibrationFrom)
    }
}
