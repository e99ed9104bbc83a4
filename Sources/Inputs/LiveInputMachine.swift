import EvdevInput
import Engine
import ServerPorts
import TouchFilter
import WireProtocol

/// The live input's rules as a value: which panels are attached, each one's
/// frame assembler and geometry, resyncs after `SYN_DROPPED`, what a lost
/// panel ends, which panel the lengths in millimetres are resolved for,
/// filter mode's touch filter per panel and its pool of uinput copies, when
/// the next tick is due, and the counts. No I/O and no clock, as the
/// engine it holds: the caller says what time it is. Each input is a
/// `mutating func` that appends `Action`s to an `Output` for the executor
/// (`DeviceHost`) to perform in order; what the executor did that the rules
/// depend on (a copy made or not, a write refused) comes back as an input.
/// An input that makes no sense now is logged as a bug and otherwise ignored.
///
/// Several touchscreens: each attached device is a source with its own
/// assembler and geometry; its frames carry its source number, so the
/// engine never combines fingers of two panels, and the loss of one ends
/// only the gestures on it. Lengths in millimetres are resolved for the
/// first panel attached (one config for all; another panel of a different
/// size is named in the log).
public struct LiveInputMachine: Sendable {
    /// Counts since start, for logs and measurements.
    public struct Counters: Sendable, Equatable {
        public var batches = 0
        public var inputEvents = 0
        public var frames = 0
        public var resyncs = 0
        public var transitionEvents = 0
        public var attaches = 0
        public var losses = 0
        /// Filter mode: predicted ghost taps quarantined (`ghost_touches`).
        public var ghostTouches = 0
        /// Contacts ended as stuck (`[filter] stuck_after`).
        public var stuckContacts = 0
        /// Filter mode: touches withheld from the copy as one too many for
        /// `max_contacts` (the table's or a region's).
        public var touchesWithheldForMaxContacts = 0
        /// Filter mode: touches withheld from the copy as palms (at their
        /// first frame, or when they became one).
        public var palmsWithheld = 0
        /// Filter mode: touches withheld from the copy as fingers of a
        /// gesture `block` keeps from the UI.
        public var touchesWithheldForBlock = 0
    }

    /// What the rules depend on, set by the CLI before the input starts.
    struct Settings: Sendable {
        /// Several touchscreens are selected (`--device all` or a list): then `hello` lists them.
        var selectsSeveral = false
        /// The flight recorder is on: each panel's input is recorded.
        var records = false
        /// Filter mode (`[input] mode = "filter"`): the hold in seconds; nil in the other modes.
        var filterHold: Double?
        /// The `[filter]` rules: in filter mode, what else the copies never
        /// get and how they are written; in every mode, the engine's frames
        /// leave out palms over `palm_mm` and end contacts stuck for `stuck_after`.
        var filterRules: FilterRules = .none
        /// Each panel's health rules (`[input] min_report_rate`, …).
        var health = PanelHealth.Settings()
    }

    var settings = Settings()
    /// The config's `[[filter.region]]` regions while the UI's
    /// (`filter_regions`) are in force; nil when the config's are.
    var configRegions: [FilterRegion]? = nil
    var engine: TransitionEngine
    /// The config as given (lengths in millimetres unresolved); the engine
    /// runs it resolved for the panel `lengthsSource`.
    var baseConfiguration: EngineConfiguration
    /// Per source (`AttachedDevice.source`): its frame assembler, device and geometry.
    var assemblers: [Int: TouchFrameAssembler] = [:]
    var devices: [Int: AttachedDevice] = [:]
    var geometries: [Int: ScreenGeometry] = [:]
    var waitingText = "a touchscreen"
    /// Sources whose next frame is a resync (a `SYN_DROPPED` came).
    var resyncPending: Set<Int> = []
    /// The source whose panel the millimetres were resolved for.
    var lengthsSource: Int?
    /// Filter mode: per source, its filter; every copy made, in use or
    /// waiting for its panel to come back (the UI keeps its device).
    var filters: [Int: FilteredPanel] = [:]
    var copies: [PanelCopy] = []
    var nextCopy: CopyID = 0
    /// An attach whose copy the executor is making (`copyCreated`, `copyFailed`).
    var awaitingCopy: AwaitingCopy?
    /// Refused writes per copy since its panel took it; the first is logged.
    var failedWrites: [CopyID: Int] = [:]
    var stopped = false
    var counters = Counters()
    /// The newest input event's time (µs) in the batch so far.
    var newestInputTime: Int64?
    /// Per source, the time (µs) of its last event: with contacts down, its
    /// stuck deadline is that + `stuck_after`.
    var lastEventTimes: [Int: Int64] = [:]
    /// Per source, its panel's health: report rate while touched, resyncs,
    /// ghost taps, stuck contacts (`PanelHealth`).
    var health: [Int: PanelHealth] = [:]
    /// `[input] keep_misfires`: what went wrong lately; nil when off.
    var misfires: MisfireWatch?

    /// The engine's trace lines (`--verbose`) not yet among the actions.
    let traceLines: TraceLines?

    /// With `traces`, the engine's state changes are logged (debug lines).
    init(configuration: EngineConfiguration, traces: Bool = false) {
        engine = TransitionEngine(configuration: configuration)
        baseConfiguration = configuration
        traceLines = traces ? TraceLines() : nil
        if let traceLines { engine.trace = { traceLines.lines.append($0) } }
    }

    /// Where the engine's trace lines wait for their place among the
    /// machine's log lines: the engine traces as it goes, and the lines go
    /// into the actions before the next log line of an input, or at its
    /// end (`Output.takeTrace`). Confined to the loop, as the machine is.
    final class TraceLines: @unchecked Sendable {
        var lines: [String] = []
    }

    /// An output for this machine's inputs (its trace lines go into it).
    func makeOutput() -> Output { Output(trace: traceLines) }

    // MARK: What it holds

    /// The attached device of the lowest source.
    var firstDevice: (source: Int, device: AttachedDevice)? {
        devices.min { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The input's status as one line: `/dev/input/event3 "Panel"`, or `waiting for a touchscreen`.
    var statusText: String {
        if !devices.isEmpty {
            return devices.sorted { $0.key < $1.key }
                .map { "\($0.value.path) \"\($0.value.description.name)\"" }.joined(separator: ", ")
        }
        return "waiting for \(waitingText)"
    }

    /// `"input":"attached","device":PATH,"device_name":NAME`, or `"input":"waiting","waiting_for":WHAT`.
    var inputStatus: [(key: String, value: String)] {
        if let (_, device) = firstDevice {
            return [("input", "attached"), ("device", device.path), ("device_name", device.description.name)]
        }
        return [("input", "waiting"), ("waiting_for", waitingText)]
    }

    /// Every attached panel, when several are selected.
    var inputDevices: [(source: Int, path: String, name: String)] {
        guard settings.selectsSeveral else { return [] }
        return devices.sorted { $0.key < $1.key }.map { ($0.key, $0.value.path, $0.value.description.name) }
    }

    /// Every attached panel's health, by source.
    var panelStatus: [PanelStatus] {
        health.sorted { $0.key < $1.key }.compactMap { source, panel in
            guard let path = devices[source]?.path else { return nil }
            let report = panel.report
            func rounded(_ value: Double?, _ scale: Double) -> Double? { value.map { ($0 * scale).rounded() / scale } }
            return PanelStatus(source: source, path: path, degraded: report.degraded, samples: report.samples,
                               reportRate: rounded(report.medianRate, 10), reportRateP5: rounded(report.p5Rate, 10),
                               jitterMilliseconds: rounded(report.jitterMilliseconds, 100), resyncs: report.resyncs,
                               ghostTouches: report.ghostTouches, stuckContacts: report.stuckContacts)
        }
    }

    /// The geometry of the attached panel (the first, with several).
    var geometry: ScreenGeometry? { firstDevice.flatMap { geometries[$0.source] } }

    /// The node of each filtered panel's copy, by source.
    var filterNodes: [Int: String] {
        filters.compactMapValues { panel in copies.first { $0.id == panel.copy }?.node }
    }

    /// Counts for metrics (the flight recorder's bytes are the executor's).
    var statistics: HostStatistics {
        var statistics = HostStatistics()
        statistics.engine = engine.tally
        statistics.inputEvents = counters.inputEvents
        statistics.frames = counters.frames
        statistics.live = true
        statistics.devicesAttached = devices.count
        statistics.devicesLost = counters.losses
        statistics.resyncs = counters.resyncs
        statistics.ghostTouches = counters.ghostTouches
        statistics.stuckContacts = counters.stuckContacts
        statistics.touchesWithheldForMaxContacts = counters.touchesWithheldForMaxContacts
        statistics.palmsWithheld = counters.palmsWithheld
        statistics.touchesWithheldForBlock = counters.touchesWithheldForBlock
        statistics.panels = panelStatus
        return statistics
    }
}
