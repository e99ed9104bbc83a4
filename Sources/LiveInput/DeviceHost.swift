#if canImport(Glibc)
import Glibc
#endif
import Clocks
import EngineDriving
import Logging
import NIOCore
import EvdevInput
import Recordings
import TouchFilter
import TransitionEngine
import TransitionServer

/// Serves a live touchscreen (`transitiond run`): the engine host that
/// takes an input source's batches on the server's event loop, turns the
/// events into frames (`TouchFrameAssembler`, times in `CLOCK_MONOTONIC`
/// seconds) and the frames into transition events, and ticks animations on
/// the loop's timers — one thread for input → engine → encoding → clients;
/// the only hop is the input thread's hand-over of a whole batch.
///
/// Engine time is the input's clock, `CLOCK_MONOTONIC` seconds: animation
/// frames are set on the loop by an `EngineDriver` on that timeline (a
/// manual clock in tests), and a command runs at the driver's time now. A resync after `SYN_DROPPED` goes through
/// `processResync` (gestures whose fingers did not survive end with a
/// `device-lost` cancel); a lost device ends every finger-driven gesture
/// the same way (command-driven ones go on: no finger drives them).
///
/// Several touchscreens: each attached device is a source with its own
/// assembler and geometry; its frames carry its source number, so the
/// engine never combines fingers of two panels, and the loss of one ends
/// only the gestures on it. Lengths in millimetres are resolved for the
/// first panel attached (one config for all; another panel of a different
/// size is named in the log).
public final class DeviceHost<C: SchedulingClock>: EngineHost, InputStatusReporting, @unchecked Sendable {
    /// Counts since start, for logs and measurements.
    public struct Counters: Sendable, Equatable {
        public var batches = 0
        public var inputEvents = 0
        public var frames = 0
        public var resyncs = 0
        public var transitionEvents = 0
        public var attaches = 0
        public var losses = 0
    }

    private let loop: EventLoop
    private var engine: TransitionEngine
    private let source: InputSource
    private let logger: Logger
    private let driver: EngineDriver<C>

    /// Per source (`AttachedDevice.source`): its frame assembler and device.
    private var assemblers: [Int: TouchFrameAssembler] = [:]
    private var devices: [Int: AttachedDevice] = [:]
    private var geometries: [Int: ScreenGeometry] = [:]
    private var waitingText = "a touchscreen"
    private var resyncPending: Set<Int> = []
    /// The source whose panel the millimetres were resolved for.
    private var lengthsSource: Int?
    /// Whether several touchscreens are selected (`--device all` or a list):
    /// then `hello` lists them. Set by the CLI.
    public var selectsSeveral = false

    // MARK: Flight recorder

    /// `[input] flight_recorder`: seconds of raw input kept per panel for
    /// `dump` (0: none). Set by the CLI before `start`.
    public var flightRecorderSeconds: Double = 0
    /// `[input] flight_recorder_bytes`: its memory bound per panel.
    public var flightRecorderBytes = FlightRecorder.defaultLimitBytes
    /// Per source: the ring, and the panel it records (kept after the panel
    /// goes, so a dump shows what led to a loss).
    private var recorders: [Int: (recorder: FlightRecorder, device: AttachedDevice)] = [:]
    /// Per source: the ring of the panel before the one attached now (a
    /// panel that went and came back: what led to the loss stays until the
    /// next time).
    private var previousRecorders: [Int: (recorder: FlightRecorder, device: AttachedDevice)] = [:]

    public func flightRecordings() -> [FlightRecording]? {
        guard flightRecorderSeconds > 0 else { return nil }
        var entries = previousRecorders.sorted { $0.key < $1.key }.map { (source: $0.key, entry: $0.value) }
        entries += recorders.sorted { $0.key < $1.key }.map { (source: $0.key, entry: $0.value) }
        return entries.map { source, entry in
            let dump = entry.recorder.dump()
            var description = entry.device.description
            if let slot = dump.slot, var info = description.absInfo[EventCode.ABS_MT_SLOT] {
                info.value = slot
                description.absInfo[EventCode.ABS_MT_SLOT] = info
            }
            let bytes = EvemuWriter.write(description: description, events: dump.events, comments: false)
            return FlightRecording(source: source, path: entry.device.path, events: dump.events.count,
                                   evemu: String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The bytes each panel's ring holds now (for tests and logs).
    public var flightRecorderHeld: [Int: Int] { recorders.mapValues { $0.recorder.bytes } }

    // MARK: Filter mode

    /// Filter mode (`[input] mode = "filter"`): the hold in seconds; nil in
    /// the other modes. Set by the CLI before `start`.
    public var filterHold: Double?
    /// Makes the copy of a panel for the UI (uinput; tests pass their own).
    public var makeFilterOutput: (DeviceDescription) throws -> FilterOutputDevice = { try UinputCopy(of: $0) }
    /// Per source in filter mode: the filter and the copy it writes.
    private var filters: [Int: FilteredPanel] = [:]
    /// Every copy made, in use or waiting for its panel to come back (the
    /// UI keeps its device); all are removed when the daemon stops.
    private var copies: [PanelCopy] = []

    /// A panel's uinput copy and whose it is.
    private struct PanelCopy {
        /// The panel's port (its by-path link) or node.
        var identity: String
        /// Its description without current values: what the copy copies.
        var shape: DeviceDescription
        var output: FilterOutputDevice
        /// The source writing to it, nil while its panel is away.
        var user: Int?
    }

    /// The node of each panel's copy, by source (for logs and tests).
    public var filterNodes: [Int: String] {
        filters.compactMapValues { $0.output.node }
    }
    private var emit: ([TransitionEvent]) -> Void = { _ in }
    private var events: [TransitionEvent] = []
    private var reports: [InputReport] = []
    private var stopped = false
    /// What went through so far (read on the loop).
    public private(set) var counters = Counters()
    /// The input's timestamps are on `CLOCK_MONOTONIC` (the live clock, not a test's manual one).
    private let inputOnMonotonicClock: Bool
    /// The newest input event's time (µs) in the batch being drained.
    private var newestInputTime: Int64?
    public private(set) var emittingInputTime: Int64?
    /// Called on the loop when the input's status changes (attached,
    /// waiting, lost), with the status as one line of text.
    public var statusChanged: ((String) -> Void)?

    /// The input's status as one line: `/dev/input/event3 "Panel"`, or
    /// `waiting for a touchscreen`.
    public var statusText: String {
        if !devices.isEmpty {
            return devices.sorted { $0.key < $1.key }
                .map { "\($0.value.path) \"\($0.value.description.name)\"" }.joined(separator: ", ")
        }
        return "waiting for \(waitingText)"
    }

    /// The attached device of the lowest source.
    private var firstDevice: (source: Int, device: AttachedDevice)? {
        devices.min { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A host for `configuration` fed by `source`, on `clock` (engine time
    /// is the clock's seconds since its zero: `CLOCK_MONOTONIC`, the
    /// kernel's event clock, live). With `trace`, the engine's state changes
    /// are logged at debug level.
    public init(loop: EventLoop, configuration: EngineConfiguration, source: InputSource, logger: Logger,
                trace: Bool = false, clock: C) {
        self.loop = loop
        self.engine = TransitionEngine(configuration: configuration)
        self.baseConfiguration = configuration
        self.source = source
        self.logger = logger
        self.driver = EngineDriver(loop: loop, clock: clock, timeline: .live)
        self.inputOnMonotonicClock = clock is MonotonicClock
        events.reserveCapacity(1024)
        driver.onDue = { [weak self] deadline in self?.fire(deadline) }
        if trace {
            engine.trace = { [logger] line in logger.debug("\(line)") }
        }
    }

    // MARK: EngineHost

    public var configuration: EngineConfiguration { engine.configuration }
    public var lastSeq: UInt64 { engine.seq }
    public var liveTransitionCount: Int { engine.liveCount }
    public func streamIndex(of i: Int) -> Int { engine.streamIndex(of: i) }

    public func reload(_ configuration: EngineConfiguration) -> [Int?] {
        baseConfiguration = configuration
        var effective = configuration
        if configuration.usesPhysicalLengths, let source = lengthsSource, let device = devices[source] {
            // (the panel the millimetres are for: the first attached, see `attach` and `lose`)
            do {
                effective = try configuration.resolved(for: ScreenSize(device: device.description,
                                                                        geometry: geometries[source] ?? .identity))
            } catch {
                logger.error("reload: \(device.path): \(error.message); using the screen-unit lengths until a panel that has it")
            }
        }
        let moved = engine.reload(effective)
        scheduleTick()
        return moved
    }

    public func snapshot() -> [TransitionEngine.Snapshot] { engine.activeSnapshot() }

    /// The config as given (lengths in millimetres unresolved); the engine
    /// runs it resolved for the attached panel.
    private var baseConfiguration: EngineConfiguration

    /// The geometry of the attached panel (the first, with several).
    public var geometry: ScreenGeometry? {
        firstDevice.flatMap { geometries[$0.source] }
    }
    /// The geometry for a panel at a path: the config's `[input]`, with the
    /// device's udev calibration when the config gives none. Set by the CLI.
    public var geometryFor: (String) -> ScreenGeometry = { _ in .identity }

    public func start(emit: @escaping ([TransitionEvent]) -> Void, finished: @escaping () -> Void) {
        self.emit = emit
        let loop = self.loop
        source.start { [weak self] in
            guard let host = self else { return }
            loop.execute { host.drain() }
        }
    }

    public func perform(_ command: TransitionEngine.Command, transition: Int,
                        into events: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome {
        let outcome = engine.perform(command, transition: transition, at: driver.now, into: &events)
        scheduleTick()
        return outcome
    }

    public func shutdown(into events: inout [TransitionEvent]) {
        guard !stopped else { return }
        stopped = true
        engine.shutdown(at: driver.now, into: &events)
        driver.cancel()
        source.stop()
        // Every touch the UI has ends, then its copies go.
        for (_, panel) in filters.sorted(by: { $0.key < $1.key }) {
            panel.sourceLost(at: max(driver.now, engine.now))
        }
        filters = [:]
        for copy in copies { copy.output.remove() }
        copies = []
    }

    // MARK: InputStatusReporting

    /// `"input":"attached","device":PATH,"device_name":NAME`, or
    /// `"input":"waiting","waiting_for":WHAT`.
    public var inputStatus: [(key: String, value: String)] {
        if let (_, device) = firstDevice {
            return [("input", "attached"), ("device", device.path), ("device_name", device.description.name)]
        }
        return [("input", "waiting"), ("waiting_for", waitingText)]
    }

    public var statistics: HostStatistics {
        var statistics = HostStatistics()
        statistics.engine = engine.tally
        statistics.inputEvents = counters.inputEvents
        statistics.frames = counters.frames
        statistics.live = true
        statistics.devicesAttached = devices.count
        statistics.devicesLost = counters.losses
        statistics.resyncs = counters.resyncs
        statistics.flightRecorderBytes = recorders.values.reduce(0) { $0 + $1.recorder.bytes }
            + previousRecorders.values.reduce(0) { $0 + $1.recorder.bytes }
        return statistics
    }

    public var inputDevices: [(source: Int, path: String, name: String)] {
        guard selectsSeveral else { return [] }
        return devices.sorted { $0.key < $1.key }.map { ($0.key, $0.value.path, $0.value.description.name) }
    }

    // MARK: Input

    /// Takes the source's batch and runs it through the engine; one
    /// `emit` (one flush per client) per batch.
    private func drain() {
        guard !stopped else { return }
        source.take(into: &reports)
        counters.batches += 1
        for report in reports {
            handle(report)
        }
        reports.removeAll(keepingCapacity: true)
        if !events.isEmpty {
            counters.transitionEvents += events.count
            if inputOnMonotonicClock, let newest = newestInputTime { emittingInputTime = newest &* 1000 }
            emit(events)
            emittingInputTime = nil
            events.removeAll(keepingCapacity: true)
        }
        newestInputTime = nil
        scheduleTick()
    }

    private func handle(_ report: InputReport) {
        switch report {
        case .events(let input, let source):
            feed(input, source: source)
        case .attached(let attached):
            attach(attached)
        case .lost(let path, let reason, let source):
            lose(path: path, reason: reason, source: source)
        case .waiting(let text):
            waitingText = text.hasPrefix("waiting for ") ? String(text.dropFirst(12)) : text
            logger.info("\(text)")
            statusChanged?(statusText)
        case .message(let level, let text):
            logger.log(level: Self.logLevel(level), "\(text)")
        }
    }

    private func feed(_ input: [InputEvent], source: Int) {
        // Taken out, so that the assembler's storage is uniquely referenced while feeding.
        guard var frames = assemblers.removeValue(forKey: source) else { return }
        let filter = filters[source]
        counters.inputEvents += input.count
        if let last = input.last { newestInputTime = max(newestInputTime ?? last.time, last.time) }
        if flightRecorderSeconds > 0, var entry = recorders.removeValue(forKey: source) {
            entry.recorder.append(contentsOf: input)
            recorders[source] = entry
        }
        for event in input {
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED {
                resyncPending.insert(source)
                counters.resyncs += 1
                logger.notice("SYN_DROPPED on \(devices[source]?.path ?? "the device"): the kernel dropped events; resynchronised from the device state (resync \(counters.resyncs))")
                continue
            }
            let filterFrame = filter?.feed(event) ?? false
            guard frames.feed(event) else { continue }
            counters.frames += 1
            if resyncPending.remove(source) != nil {
                engine.processResync(frames.frame, into: &events)
            } else {
                engine.process(frames.frame, into: &events)
            }
            if let filter, filterFrame {
                filter.decide(at: frames.frame.time) { slot in verdict(slot, source: source, frames) }
            }
        }
        assemblers[source] = frames
    }

    /// What the UI may have of the touch in `slot`: nothing of one a
    /// transition owns, a hold for one that began where an enabled
    /// transition's gesture may start, else all of it.
    private func verdict(_ slot: Int, source: Int, _ frames: TouchFrameAssembler) -> TouchFilter.Verdict {
        guard let id = frames.contactID(inSlot: slot) else { return .free }
        if engine.isClaimed(source: source, id: id) { return .claimed }
        for c in frames.frame.contacts where c.id == id {
            return engine.mayStartGesture(source: source, x: c.downX, y: c.downY) ? .startArea : .free
        }
        return .free
    }

    private func attach(_ attached: AttachedDevice) {
        let source = attached.source
        guard source >= 0 && source < TouchFrame.maximumSources else {
            logger.error("BUG: \(attached.path) attached as source \(source), beyond \(TouchFrame.maximumSources); ignored")
            return
        }
        do {
            let geometry = geometryFor(attached.path)
            // The millimetres are for the first panel attached (also when the
            // config has none yet: a reload may bring them).
            let resolvesLengths = lengthsSource == nil || lengthsSource == source
            if baseConfiguration.usesPhysicalLengths && !resolvesLengths, let first = lengthsSource, let other = devices[first] {
                let here = ScreenSize(device: attached.description, geometry: geometry)
                let there = ScreenSize(device: other.description, geometry: geometries[first] ?? .identity)
                if here != there {
                    logger.warning("\(attached.path) \"\(attached.description.name)\": its size differs from \(other.path)'s; lengths in millimetres stay resolved for \(other.path)")
                }
            }
            if baseConfiguration.usesPhysicalLengths && resolvesLengths {
                // Millimetres become this panel's screen units (nothing in
                // flight moves; what the UI enabled stays so). A panel
                // without resolution is named, and the lengths in screen
                // units are used.
                do {
                    engine.applyLengths(from: try baseConfiguration.resolved(
                        for: ScreenSize(device: attached.description, geometry: geometry)))
                } catch {
                    logger.error("\(attached.path) \"\(attached.description.name)\": \(error.message); using the lengths in screen units")
                    engine.applyLengths(from: baseConfiguration)
                }
            }
            assemblers[source] = try TouchFrameAssembler(device: attached.description, timeOrigin: 0, geometry: geometry,
                                                         source: source)
            geometries[source] = geometry
            if resolvesLengths { lengthsSource = source }
        } catch {
            logger.error("\(attached.path): \(error.message)")
            return
        }
        devices[source] = attached
        engine.nameSource(source, attached.names)
        if flightRecorderSeconds > 0 {
            if let old = recorders[source], old.recorder.count > 0 { previousRecorders[source] = old }
            let slot = attached.description.absInfo[EventCode.ABS_MT_SLOT]?.value ?? 0
            recorders[source] = (FlightRecorder(seconds: flightRecorderSeconds, limitBytes: flightRecorderBytes, slot: slot),
                                 attached)
        }
        if let hold = filterHold { setUpFilter(for: attached, hold: hold) }
        resyncPending.remove(source)
        counters.attaches += 1
        let check = TouchscreenCheck(attached.description)
        logger.info("attached \(attached.path) \"\(attached.description.name)\" (\(check.reason)\(attached.grabbed ? ", grabbed" : ""))")
        if let geometry = geometries[source], !geometry.isIdentity { logger.info("geometry of \(attached.path): \(geometry)") }
        statusChanged?(statusText)
    }

    /// Every gesture on that panel ends with `ended`(cancel, `device-lost`)
    /// and animates back: an empty resync frame of its source (no contact
    /// survived); gestures on other panels go on.
    private func lose(path: String, reason: String, source: Int) {
        let before = events.count
        let time = max(driver.now, engine.now)
        if devices[source] != nil {
            engine.processResync(TouchFrame(time: time, contacts: [], source: source), into: &events)
        }
        let cancelled = events[before...].filter { $0.kind == .ended }.count
        filters[source]?.sourceLost(at: time)
        filters[source] = nil
        for i in copies.indices where copies[i].user == source { copies[i].user = nil }
        assemblers[source] = nil
        devices[source] = nil
        geometries[source] = nil
        engine.nameSource(source, nil)
        if lengthsSource == source { lengthsFollowFirstPanel() }
        resyncPending.remove(source)
        counters.losses += 1
        logger.warning("lost \(path): \(reason); \(cancelled) transition\(cancelled == 1 ? "" : "s") cancelled")
        statusChanged?(statusText)
    }

    /// The panel the millimetres were resolved for went: they are resolved
    /// for the first panel still attached (nothing in flight moves).
    private func lengthsFollowFirstPanel() {
        lengthsSource = firstDevice?.source
        guard baseConfiguration.usesPhysicalLengths, let (source, device) = firstDevice else { return }
        do {
            engine.applyLengths(from: try baseConfiguration.resolved(
                for: ScreenSize(device: device.description, geometry: geometries[source] ?? .identity)))
            logger.info("lengths in millimetres now resolved for \(device.path)")
        } catch {
            logger.error("\(device.path) \"\(device.description.name)\": \(error.message); using the lengths in screen units")
            engine.applyLengths(from: baseConfiguration)
        }
    }

    /// Filter mode: a fresh filter writing to the panel's copy. The copy
    /// is the one it had if it comes back (by its by-path port; a panel
    /// without one takes an idle copy of a panel alike without one: it was
    /// re-plugged under another node), else a new one. A
    /// panel the input thread did not grab (it could not, or the filter
    /// cannot copy it) reaches the UI directly and gets no copy.
    private func setUpFilter(for attached: AttachedDevice, hold: Double) {
        let source = attached.source
        filters[source] = nil
        guard attached.grabbed else {
            logger.warning("filter: \(attached.path) \"\(attached.description.name)\" is not grabbed: the UI reads it directly, gestures and all; no copy")
            return
        }
        let shape = Self.shape(of: attached.description)
        let identity = attached.aliases.first { $0.contains("/by-path/") }
            ?? attached.aliases.first { $0.hasPrefix("/dev/input/event") } ?? attached.path
        // A copy at this port of another kind of panel is of no more use.
        for i in copies.indices.reversed() where copies[i].identity == identity && copies[i].user == nil && copies[i].shape != shape {
            copies[i].output.remove()
            copies.remove(at: i)
        }
        // A copy of a panel on a known port waits for that port; one known
        // by its node only goes to the next panel alike without a port.
        let onPort = { (identity: String) in identity.contains("/by-path/") }
        var index = copies.firstIndex { $0.identity == identity && $0.user == nil && $0.shape == shape }
            ?? copies.firstIndex { $0.user == nil && $0.shape == shape && !onPort($0.identity) && !onPort(identity) }
        do {
            if index == nil {
                _ = try TouchFilter(device: attached.description, hold: hold)   // a panel it can copy
                copies.append(PanelCopy(identity: identity, shape: shape,
                                        output: try makeFilterOutput(attached.description), user: nil))
                index = copies.count - 1
            }
            guard let index else { return }
            let copy = copies[index].output
            let panel = try FilteredPanel(description: attached.description, hold: hold, output: copy)
            panel.warn = { [logger] line in logger.warning("\(line)") }
            copies[index].user = source
            copies[index].identity = identity
            filters[source] = panel
            logger.info("filter: the touches of \(attached.path) that no transition claims go to \(copy.node ?? "its copy") \"\(UinputCopy.name(for: attached.description.name))\" (hold \(hold) s)")
        } catch let error as TouchFilterError {
            logger.error("filter: \(attached.path) \"\(attached.description.name)\": \(error.message); the UI gets none of its touches")
        } catch {
            logger.error("filter: cannot make a copy of \(attached.path) \"\(attached.description.name)\": \(error); the UI gets none of its touches")
        }
    }

    /// A description without its axes' current values (what a copy copies).
    static func shape(of description: DeviceDescription) -> DeviceDescription {
        var shape = description
        for (code, var info) in shape.absInfo {
            info.value = 0
            shape.absInfo[code] = info
        }
        return shape
    }

    // MARK: Animation ticks

    /// Keeps one loop timer at the next deadline: the engine's next
    /// animation frame or a filter's held touch or delayed frame.
    private func scheduleTick() {
        guard !stopped else {
            driver.cancel()
            return
        }
        var next = engine.nextDeadline
        for panel in filters.values {
            if let t = panel.nextDeadline { next = min(next ?? t, t) }
        }
        guard let deadline = next else {
            driver.cancel()
            return
        }
        driver.schedule(at: deadline)
    }

    private func fire(_ deadline: Double) {
        guard !stopped else { return }
        let now = max(driver.now, deadline)
        for panel in filters.values { panel.advance(to: now) }
        engine.advance(to: now, into: &events)
        if !events.isEmpty {
            counters.transitionEvents += events.count
            emit(events)
            events.removeAll(keepingCapacity: true)
        }
        scheduleTick()
    }

    static func logLevel(_ level: InputReport.Level) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .notice: return .notice
        case .warning: return .warning
        case .error: return .error
        }
    }
}

extension DeviceHost where C == MonotonicClock {
    /// A host on the real clock (`CLOCK_MONOTONIC`, the kernel's event clock).
    public convenience init(loop: EventLoop, configuration: EngineConfiguration, source: InputSource, logger: Logger,
                            trace: Bool = false) {
        self.init(loop: loop, configuration: configuration, source: source, logger: logger, trace: trace,
                  clock: MonotonicClock())
    }
}
