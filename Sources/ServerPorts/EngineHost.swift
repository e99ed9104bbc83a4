import Engine
import WireProtocol

/// What owns the engine and feeds it input — a replay now, a touchscreen
/// later — as the server sees it. Everything is called on the server's
/// event loop; events the host produces on its own (input, animation
/// frames) go to `emit`, on the same loop, so the hot path never changes
/// threads.
public protocol EngineHost: AnyObject {
    var configuration: EngineConfiguration { get }
    /// Who the daemon is (`[identity]`, the config's hash): said in `hello`,
    /// the metrics and the flight recorder's headers; the server replaces
    /// it at a reload.
    var identity: DaemonIdentity? { get set }
    /// The seq of the last event the engine produced.
    var lastSeq: UInt64 { get }
    /// Every transition in flight now.
    func snapshot() -> [TransitionEngine.Snapshot]
    /// Where each current transition with snap points rests (`TransitionEngine.rests`).
    var rests: [Double?] { get }
    /// Where events the host makes before `start` go (what commands start
    /// while a replay waits for its clients). Called once the server listens.
    func prepare(emit: @escaping ([TransitionEvent]) -> Void)
    /// Starts feeding the engine; events go to `emit`; `finished` is called
    /// when the host has no more input (a replay's end).
    func start(emit: @escaping ([TransitionEvent]) -> Void, finished: @escaping () -> Void)
    /// Carries out a command now.
    func perform(_ command: TransitionEngine.Command, transition: Int,
                 into events: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome
    /// Ends everything in flight (reason `shutdown`) and stops feeding.
    func shutdown(into events: inout [TransitionEvent])
    /// Replaces the exclusion regions in force (every client's `exclude`,
    /// together; empty: none): no gesture starts from a touch that begins
    /// inside one (`TransitionEngine.setExclusions`), and in filter mode
    /// such a touch goes to the UI at once.
    func setExclusions(_ rects: [ScreenRect])
    /// Filter mode: replaces the `[[filter.region]]` regions in force with
    /// these (`filter_regions`; nil: the config's again), their names
    /// checked. A host without a filter changes nothing.
    func setFilterRegions(_ regions: [FilterStatus.Region]?)
    /// Replaces the config for new gestures; transitions in flight finish
    /// under theirs (`TransitionEngine.reload`). `configuration` then lists
    /// the new transitions first (`liveTransitionCount` of them), then those
    /// of the earlier config still in flight. Those of them whose name the
    /// new config lacks (`streamIndex(of: i) == i`) the server ends at once
    /// with `perform(.orphaned, …)`, at the host's time.
    /// Returns, for each old index, its new one (in flight) or nil.
    func reload(_ configuration: EngineConfiguration) -> [Int?]
    /// How many of `configuration.transitions` are the current config's.
    var liveTransitionCount: Int { get }
    /// The index clients know transition `i`'s events by (`TransitionEngine.streamIndex`).
    func streamIndex(of i: Int) -> Int
    /// The panel geometry in force (said in `hello` and `state` unless it is
    /// the identity), if any.
    var geometry: ScreenGeometry? { get }
    /// The flight recorder's recordings (`dump`), one per panel, as evemu
    /// text; nil when the host has none (a replay, or the recorder is off).
    func flightRecordings() -> [FlightRecording]?
    /// Counts for metrics, now.
    var statistics: HostStatistics { get }
    /// While the host hands events to `emit` because of input: the
    /// `CLOCK_MONOTONIC` time, in nanoseconds, of the newest input event
    /// behind them (the start of the input-to-client latency); for a paced
    /// replay, when its newest step was due. Nil otherwise (animation
    /// frames of live input, commands, a replay on a manual clock).
    var emittingInputTime: Int64? { get }
    /// The input's status for `hello` and `state`, as extra string fields
    /// in order (e.g. `"input":"waiting"`): a touchscreen may be absent
    /// for a while (not plugged in yet, or removed). Empty: nothing to say.
    /// Live input also says each attached panel's health (`"panels"`).
    var inputStatus: HostInputStatus { get }
    /// With several touchscreens selected: every attached one (`"devices"`
    /// in `hello` and `state`); empty with one.
    var inputDevices: [(source: Int, path: String, name: String)] { get }
    /// Filter mode: what the touch filter does (`"filter"` in `hello` and
    /// `state`: its rules in force, the ghost tap patterns it quarantines);
    /// nil in the other modes and in a replay.
    var filterStatus: FilterStatus? { get }
}

/// One panel's last seconds of raw input, for `dump`.
public struct FlightRecording: Sendable, Equatable {
    public var source: Int
    public var path: String
    public var events: Int
    /// An evemu 1.3 recording with the panel's description.
    public var evemu: String

    public init(source: Int, path: String, events: Int, evemu: String) {
        self.source = source
        self.path = path
        self.events = events
        self.evemu = evemu
    }
}

extension EngineHost {
    public var geometry: ScreenGeometry? { nil }
    public var rests: [Double?] { [] }
    public func flightRecordings() -> [FlightRecording]? { nil }
    public var statistics: HostStatistics { HostStatistics() }
    public var emittingInputTime: Int64? { nil }
    public func prepare(emit: @escaping ([TransitionEvent]) -> Void) {}
    public var inputStatus: HostInputStatus { [] }
    public var inputDevices: [(source: Int, path: String, name: String)] { [] }
    public var filterStatus: FilterStatus? { nil }
    public func setFilterRegions(_ regions: [FilterStatus.Region]?) {}
}
