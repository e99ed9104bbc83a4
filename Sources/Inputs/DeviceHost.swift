import SystemSupport
import Logging
import NIOCore
import EvdevInput
import Engine
import WireProtocol
import ServerPorts

/// Serves a live touchscreen (`transitiond run`): the executor of a
/// `LiveInputMachine` on the server's event loop. It takes the input
/// source's batches, hands each report to the machine, and does what the
/// machine asks — logs, events to the clients, timers through an
/// `EngineDriver`, the flight recorder's rings, filter mode's uinput copies
/// — and nothing else: every rule is the machine's. One thread for input →
/// engine → encoding → clients; the only hop is the input thread's
/// hand-over of a whole batch.
///
/// Engine time is the input's clock, `CLOCK_MONOTONIC` seconds: the
/// driver's timeline (a manual clock in tests); a command runs at the
/// driver's time now.
public final class DeviceHost<C: SchedulingClock>: EngineHost, @unchecked Sendable {
    public typealias Counters = LiveInputMachine.Counters

    let loop: EventLoop
    let source: InputSource
    let logger: Logger
    let driver: EngineDriver<C>
    var machine: LiveInputMachine
    /// What the machine asked for and not yet done (its buffers are reused).
    var out: LiveInputMachine.Output
    var recorders = FlightRecorders()
    /// Filter mode: every copy the machine asked for and got.
    var copies: [LiveInputMachine.CopyID: FilterOutputDevice] = [:]
    var emit: ([TransitionEvent]) -> Void = { _ in }
    var reports: [InputReport] = []
    /// The input's timestamps are on `CLOCK_MONOTONIC` (the live clock, not a test's manual one).
    let inputOnMonotonicClock: Bool
    public internal(set) var emittingInputTime: Int64?
    /// Actions are being performed: an input that comes meanwhile (a
    /// command a failed client write brings about while events are
    /// emitted) has its actions done after them, not inside them.
    var performing = false

    // MARK: Set by the CLI before `start` (the machine's settings: `DeviceHost+Reading`)

    /// Makes the copy of a panel for the UI (uinput; tests pass their own).
    public var makeFilterOutput: (DeviceDescription) throws -> FilterOutputDevice = { try UinputCopy(of: $0) }
    /// The geometry for a panel at a path: the config's `[input]`, with the
    /// device's udev calibration when the config gives none.
    public var geometryFor: (String) -> ScreenGeometry = { _ in .identity }
    /// Called on the loop when the input's status changes (attached,
    /// waiting, lost), with the status as one line of text.
    public var statusChanged: ((String) -> Void)?
    /// Who the daemon is: in each flight recording's header.
    public var identity: DaemonIdentity?
    /// `[input] keep_misfires`: where kept misfires go (`keepMisfires`); nil when off.
    var spool: MisfireSpool?
    /// Called (on the spool's queue) after each misfire is written: for tests.
    public var misfireKept: (@Sendable () -> Void)?

    /// A host for `configuration` fed by `source`, on `clock` (engine time
    /// is the clock's seconds since its zero: `CLOCK_MONOTONIC`, the
    /// kernel's event clock, live). With `trace`, the engine's state changes
    /// are logged at debug level.
    public init(loop: EventLoop, configuration: EngineConfiguration, source: InputSource, logger: Logger,
                trace: Bool = false, clock: C) {
        self.loop = loop
        self.source = source
        self.logger = logger
        self.machine = LiveInputMachine(configuration: configuration, traces: trace)
        self.out = machine.makeOutput()
        self.driver = EngineDriver(loop: loop, clock: clock, timeline: .live)
        self.inputOnMonotonicClock = clock is MonotonicClock
        driver.onDue = { [weak self] deadline in self?.tick(deadline) }
    }

    // MARK: Inputs

    public func start(emit: @escaping ([TransitionEvent]) -> Void, finished: @escaping () -> Void) {
        loop.assertInEventLoop()
        self.emit = emit
        let loop = self.loop
        source.start { [weak self] in
            guard let host = self else { return }
            loop.execute { host.drain() }
        }
    }

    public func perform(_ command: TransitionEngine.Command, transition: Int,
                        into events: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome {
        loop.assertInEventLoop()
        let outcome = machine.perform(command, transition: transition, at: driver.now, events: &events, into: &out)
        performActions()
        return outcome
    }

    public func reload(_ configuration: EngineConfiguration) -> [Int?] {
        loop.assertInEventLoop()
        let moved = machine.reload(configuration, into: &out)
        performActions()
        return moved
    }

    public func setExclusions(_ rects: [ScreenRect]) {
        loop.assertInEventLoop()
        machine.setExclusions(rects)
    }

    public func setFilterRegions(_ regions: [FilterStatus.Region]?) {
        loop.assertInEventLoop()
        machine.setFilterRegions(regions.map(LiveInputMachine.filterRegions), into: &out)
        performActions()
    }

    public func shutdown(into events: inout [TransitionEvent]) {
        loop.assertInEventLoop()
        machine.shutdown(at: driver.now, events: &events, into: &out)
        performActions()
    }

    /// Takes the source's batch and gives each report to the machine; one
    /// `emit` (one flush per client) per batch.
    private func drain() {
        loop.assertInEventLoop()
        guard !machine.stopped else { return }
        source.take(into: &reports)
        for report in reports {
            switch report {
            case .events(let input, let source):
                machine.events(input, source: source, into: &out)
            case .attached(let attached):
                machine.attached(attached, geometry: geometryFor(attached.path), into: &out)
            case .lost(let path, let reason, let source):
                machine.lost(path: path, reason: reason, source: source, at: driver.now, into: &out)
            case .waiting(let text):
                machine.waiting(text, into: &out)
            case .message(let level, let text):
                machine.message(level, text, into: &out)
            }
            performActions()
        }
        reports.removeAll(keepingCapacity: true)
        machine.batchEnded(into: &out)
        performActions()
    }

    private func tick(_ deadline: Double) {
        loop.assertInEventLoop()
        machine.tick(due: deadline, now: driver.now, into: &out)
        performActions()
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
