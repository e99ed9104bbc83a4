/// A command a client sends (docs/protocol.md "Client → daemon").
public enum ClientCommand: Sendable, Equatable {
    case subscribe(transitions: [String])
    case ping
    case state
    case run(transition: String, to: RunTarget)
    case drive(transition: String, progress: Double)
    case release(transition: String, velocity: Double?)
    case cancel(transition: String)
    /// Turns a transition's gesture on or off.
    case enable(transition: String, enabled: Bool)
    /// Re-read the config (as SIGHUP does).
    case reload
    /// The flight recorder's last seconds of raw input, as evemu recordings.
    case dump
    /// This client's exclusion regions (replacing its earlier list; empty:
    /// none): no transition starts from a touch that begins inside one.
    case exclude(rects: [ExclusionRect])
    /// Filter mode: replaces the `[[filter.region]]` regions in force
    /// (nil: the config's again); each region's `block` names are checked
    /// by the server.
    case filterRegions(regions: [FilterStatus.Region]?)
    /// The daemon's monotonic time (`clock` reply), for a client to agree
    /// its clock with the daemon's.
    case clock
    /// Frames the client presented: the line with `seq` was on the screen
    /// at `presented` (the daemon's clock, converted by the client).
    case frames([FrameReport])

    /// The command's name, as in `{"cmd":NAME}`.
    public var name: String {
        switch self {
        case .subscribe: return "subscribe"
        case .ping: return "ping"
        case .state: return "state"
        case .run: return "run"
        case .drive: return "drive"
        case .release: return "release"
        case .cancel: return "cancel"
        case .enable: return "enable"
        case .reload: return "reload"
        case .dump: return "dump"
        case .exclude: return "exclude"
        case .filterRegions: return "filter_regions"
        case .clock: return "clock"
        case .frames: return "frames"
        }
    }

    /// True for the commands that change state (and need permission).
    public var changesState: Bool {
        switch self {
        // Frame reports feed a histogram only, clipped, and every page reports them.
        case .subscribe, .ping, .state, .clock, .frames: return false
        // `dump` changes nothing, but what the panel saw is for allowed peers only.
        case .run, .drive, .release, .cancel, .enable, .reload, .dump, .exclude, .filterRegions: return true
        }
    }
}

/// A request id to echo in the reply: a string or an integer.
public enum RequestID: Sendable, Equatable {
    case number(Int64)
    case text(String)

    /// The largest integer id, either way: 2⁵³ − 1. Beyond it a JSON
    /// number is not exact in a double (2⁵³ + 1 reads as 2⁵³), so an id
    /// there could not be echoed as sent, and JavaScript clients could not
    /// tell it apart from its neighbours; it is refused.
    public static let largestNumber: Int64 = (1 << 53) - 1
}

extension RequestID: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    public init(integerLiteral value: Int64) { self = .number(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}

/// Why a command line was refused: the `error` reply's code and message.
public struct CommandError: Error, Sendable, Equatable {
    public var code: ErrorCode
    public var message: String
    public var id: RequestID?
    /// The line's `cmd`, when it was a string: the `error` says which
    /// command it answers.
    public var cmd: String?

    public init(_ code: ErrorCode, _ message: String, id: RequestID? = nil, cmd: String? = nil) {
        self.code = code
        self.message = message
        self.id = id
        self.cmd = cmd
    }
}

/// The ranges of the numbers a command may carry, checked where the line is
/// read, so that nothing a client sends reaches the engine or the stream
/// writer as an extreme or non-finite value. `-0` reads as 0.
public enum CommandLimits {
    /// `drive`'s `progress`.
    public static let progress: ClosedRange<Double> = 0...1
    /// `release`'s `velocity`, either way, in progress per second: a whole
    /// transition in a millisecond, far beyond any finger.
    public static let velocity: Double = 1000
    /// `exclude`'s `rects`: at most this many per client.
    public static let exclusionRects = 32
    /// `filter_regions`: names in one region's `block` at most (there are
    /// five gestures; the server checks which).
    public static let blockNames = 16
}

/// An exclusion region of `exclude` and of `hello`'s `exclusions`:
/// `[x0, y0, x1, y1]` in screen units (0…1 from the left and the top, after
/// the panel's geometry), `x0 < x1`, `y0 < y1`.
public struct ExclusionRect: Sendable, Equatable, Hashable {
    public var x0: Double
    public var y0: Double
    public var x1: Double
    public var y1: Double

    public init(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        (self.x0, self.y0, self.x1, self.y1) = (x0, y0, x1, y1)
    }

    /// The four numbers in the wire's order.
    public var numbers: [Double] { [x0, y0, x1, y1] }
}

/// Where a `run` takes a transition: finish or cancel (`"to":"finish"`),
/// or, for one with snap points, a point by its progress (`"to":0.5`) or
/// its index in the list (`"index":2`).
public enum RunTarget: Sendable, Equatable {
    case decision(TransitionUpdate.Decision)
    case point(Double)
    case index(Int)

    public static let finish = RunTarget.decision(.finish)
    public static let cancel = RunTarget.decision(.cancel)
}

/// One presented frame of a `frames` command: the stream line with `seq`
/// was on the screen at `presented`, seconds on the daemon's monotonic
/// clock (the client's time converted with the offset `clock` gives).
public struct FrameReport: Sendable, Equatable {
    public var seq: UInt64
    public var presented: Double

    public init(seq: UInt64, presented: Double) {
        self.seq = seq
        self.presented = presented
    }

    /// The most reports one `frames` command may carry.
    public static let batchLimit = 64
}
