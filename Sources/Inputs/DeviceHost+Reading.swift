import EvdevInput
import Engine
import ServerPorts
import TouchFilter
import WireProtocol

/// What the host says of the input, read from the machine (on the loop),
/// and the settings the CLI gives before `start`, kept by the machine.
extension DeviceHost {
    // MARK: Settings

    /// Whether several touchscreens are selected (`--device all` or a list): then `hello` lists them.
    public var selectsSeveral: Bool {
        get { machine.settings.selectsSeveral }
        set { machine.settings.selectsSeveral = newValue }
    }
    /// `[input] flight_recorder`: seconds of raw input kept per panel for `dump` (0: none).
    public var flightRecorderSeconds: Double {
        get { recorders.seconds }
        set {
            recorders.seconds = newValue
            machine.settings.records = newValue > 0
        }
    }
    /// `[input] flight_recorder_bytes`: its memory bound per panel.
    public var flightRecorderBytes: Int {
        get { recorders.limitBytes }
        set { recorders.limitBytes = newValue }
    }
    /// Filter mode (`[input] mode = "filter"`): the hold in seconds; nil in the other modes.
    public var filterHold: Double? {
        get { machine.settings.filterHold }
        set { machine.settings.filterHold = newValue }
    }
    /// The `[filter]` rules, for the panels attached from now on: filter
    /// mode's copies apply them all; in every mode the engine's frames
    /// apply `palm_mm` and `stuck_after`.
    /// `[input] min_report_rate` (Hz): below it, a panel is degraded. Set before the input starts.
    public var minReportRate: Double {
        get { machine.settings.health.minReportRate }
        set { machine.settings.health.minReportRate = newValue }
    }
    /// `[input] keep_misfires`: keep the flight recorder's dump of each
    /// misfire (at most one per `interval` seconds) in `folder`, at most
    /// `maxFiles` files and `maxBytes` bytes. Set before the input starts;
    /// it needs the flight recorder.
    public func keepMisfires(folder: String, maxFiles: Int, maxBytes: Int, interval: Double) {
        spool = MisfireSpool(folder: folder, maxFiles: maxFiles, maxBytes: maxBytes, logger: logger)
        machine.watchMisfires(every: interval)
    }
    public var filterRules: FilterRules {
        get { machine.settings.filterRules }
        set { machine.settings.filterRules = newValue }
    }
    // MARK: What the machine holds

    /// What went through so far (read on the loop).
    public var counters: Counters { machine.counters }
    public var configuration: EngineConfiguration { machine.engine.configuration }
    public var lastSeq: UInt64 { machine.engine.seq }
    public var liveTransitionCount: Int { machine.engine.liveCount }
    public func streamIndex(of i: Int) -> Int { machine.engine.streamIndex(of: i) }
    public func snapshot() -> [TransitionEngine.Snapshot] { machine.engine.activeSnapshot() }
    public var rests: [Double?] { machine.engine.rests }
    public var geometry: ScreenGeometry? { machine.geometry }
    public var statusText: String { machine.statusText }
    public var inputStatus: HostInputStatus { HostInputStatus(fields: machine.inputStatus, panels: machine.panelStatus) }
    public var inputDevices: [(source: Int, path: String, name: String)] { machine.inputDevices }
    /// Filter mode: what the filter does now (`hello`'s `filter`); nil otherwise.
    public var filterStatus: FilterStatus? { machine.filterStatus(at: driver.now) }
    /// The node of each panel's copy, by source (for logs and tests).
    public var filterNodes: [Int: String] { machine.filterNodes }
    /// The bytes each panel's ring holds now (for tests and logs).
    public var flightRecorderHeld: [Int: Int] { recorders.held }
    public func flightRecordings() -> [FlightRecording]? { recorders.recordings(header: recordingHeader()) }

    /// The comment lines at the top of a flight recording: that it is one,
    /// and who the daemon is (`verify --corpus` and people reading a spool
    /// tell kiosks and configs apart by them); `kind` what made it.
    func recordingHeader(kind: String = "dump") -> [String] {
        var line = "transitiond \(kind): version=\(TransitiondVersion.current)"
        if let identity { line += " " + identity.words }
        return [line]
    }

    public var statistics: HostStatistics {
        var statistics = machine.statistics
        statistics.flightRecorderBytes = recorders.bytes
        return statistics
    }
}
