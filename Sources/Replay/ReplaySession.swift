import Engine


/// One recording prepared for replay: its events and the device they came from.
public struct ReplayInput: Sendable {
    public var path: String
    public var device: DeviceDescription
    public var events: [InputEvent]

    public init(path: String, device: DeviceDescription, events: [InputEvent]) {
        self.path = path
        self.device = device
        self.events = events
    }
}

/// Why a replay cannot start.
public struct ReplayError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
}

/// Plays recordings through the engine, one step at a time, on the
/// recordings' own time line: time 0 is the first event of the replay; each
/// further recording (or loop) starts when the previous one has settled
/// (every animation done). The caller decides when each step happens — at
/// once (`--fast`, a virtual clock) or paced by a clock — so the same session
/// gives the same events either way.
public struct ReplaySession: Sendable {
    public private(set) var engine: TransitionEngine
    private var inputs: [ReplayInput]
    private let assemblers: [TouchFrameAssembler]
    /// The panel's geometry (the config's `[input]`), applied to every recording.
    public let geometry: ScreenGeometry
    private let loops: Int

    private var loop = 0
    private var inputIndex = 0
    /// The events of the recording playing (`inputs[inputIndex]`'s, held
    /// here while it plays: the hot path reads them without going through
    /// `inputs`, and a recording still being read grows them in place).
    private var events: [InputEvent] = []
    private var eventIndex = 0
    /// How far the assembler has taken `events`: the next frame's events
    /// are fed as soon as its `SYN_REPORT` is looked for (`prepareFrame`).
    private var fedIndex = 0
    private var assembler: TouchFrameAssembler
    /// Engine time (µs) where the current recording's first event lands.
    private var base: Int64 = 0
    /// True once the current recording's events are exhausted and its
    /// interactions cancelled; animations may still run.
    private var draining = false
    public private(set) var isFinished = false
    /// Input events and touch frames fed to the engine so far (for metrics).
    public private(set) var inputEventsFed = 0
    public private(set) var framesFed = 0
    /// True while the first recording's events are still being read: more
    /// come with `appendEvents`, and `endOfEvents` says there are no more.
    public private(set) var isReadingEvents = false

    /// `readingEvents`: the first input holds only the events read so far
    /// (at least one); the caller hands over the rest as it reads them
    /// (`appendEvents`, then `endOfEvents`), when `needsEvents` asks.
    /// `palmMillimetres`: the config's `[filter] palm_mm`, applied to the
    /// recordings' frames as the live daemon applies it (`MT_TOOL_PALM`
    /// always is).
    public init(configuration: EngineConfiguration, inputs: [ReplayInput], loops: Int = 1,
                geometry: ScreenGeometry = .identity, readingEvents: Bool = false,
                palmMillimetres: Double? = nil) throws(ReplayError) {
        self.geometry = geometry
        engine = TransitionEngine(configuration: try Self.resolve(configuration, for: inputs, geometry: geometry))
        self.inputs = inputs
        self.loops = max(1, loops)
        var prepared: [TouchFrameAssembler] = []
        for input in inputs {
            do {
                prepared.append(try TouchFrameAssembler(device: input.device, geometry: geometry,
                                                        palmMillimetres: palmMillimetres))
            } catch {
                throw ReplayError(path: input.path, message: error.message)
            }
        }
        guard let first = prepared.first else {
            throw ReplayError(path: "", message: "nothing to replay")
        }
        assemblers = prepared
        assembler = first
        isReadingEvents = readingEvents && !inputs[0].events.isEmpty
        swapEvents()
        startInput()
    }

    // MARK: Events still being read

    /// True when the next step needs events that have not been handed over
    /// yet: the first recording is still being read and holds no complete
    /// frame beyond what was played. `step` does nothing until then.
    public var needsEvents: Bool {
        isReadingEvents && !isFinished && !draining && reportTime == nil
    }

    /// More events of the first recording, in file order. A replay that
    /// plays its one recording once keeps only what it has not played yet
    /// (the tail of a frame): its memory stays that of a few parts,
    /// whatever the recording's length.
    public mutating func appendEvents(_ more: [InputEvent]) {
        guard isReadingEvents, !more.isEmpty else { return }
        if loops == 1 && inputs.count == 1 && reportTime == nil {
            fedIndex -= eventIndex
            var kept = Array(events[eventIndex...])
            if kept.isEmpty {
                kept = more
            } else {
                kept.append(contentsOf: more)
            }
            events = kept
            eventIndex = 0
        } else {
            events.append(contentsOf: more)
        }
        if inputIndex == 0 && loop == 0 && reportTime == nil { prepareFrame() }
    }

    /// The first recording is read whole: its end is the end of its events.
    public mutating func endOfEvents() {
        isReadingEvents = false
    }

    /// The configuration with its lengths in millimetres in the recordings'
    /// screen units: every recording must come from a panel of one size.
    private static func resolve(_ configuration: EngineConfiguration, for inputs: [ReplayInput],
                                geometry: ScreenGeometry) throws(ReplayError) -> EngineConfiguration {
        guard configuration.usesPhysicalLengths else { return configuration }
        var resolved: EngineConfiguration? = nil
        var first: (path: String, size: ScreenSize?)? = nil
        for input in inputs {
            let size = ScreenSize(device: input.device, geometry: geometry)
            do throws(DeviceSetupError) {
                let this = try configuration.resolved(for: size)
                if let resolved, let first, this != resolved {
                    throw DeviceSetupError("its panel measures \(Self.text(size)), \(first.path)'s \(Self.text(first.size)): lengths in millimetres need recordings of one panel size")
                }
                resolved = this
                if first == nil { first = (input.path, size) }
            } catch {
                throw ReplayError(path: input.path, message: error.message)
            }
        }
        return resolved ?? configuration
    }

    private static func text(_ size: ScreenSize?) -> String {
        guard let size else { return "no size" }
        func mm(_ v: Double) -> String { String((v * 10).rounded() / 10) }
        return "\(mm(size.widthMM)) × \(mm(size.heightMM)) mm"
    }

    /// Starts the recordings at engine time `time` instead of 0: after
    /// commands that a served replay carried out (and animated) while it
    /// waited for its clients, so that time never goes back. Only before
    /// the first step.
    public mutating func begin(at time: Double) {
        guard time > 0, time.isFinite, loop == 0, inputIndex == 0, inputEventsFed == 0, !draining else { return }
        base = Int64((time * 1e6).rounded(.up))
        startInput()
    }

    /// The time of the next animation frame (of what commands started).
    public var nextAnimation: Double? { engine.nextDeadline }

    /// Animation frames due by `time`, without touching the recordings
    /// (a served replay that has not started).
    /// Collects the engine's explanations (see `Explanation`) from now on.
    public mutating func explain() {
        if engine.explanations == nil { engine.explanations = [] }
    }

    /// The explanations collected since the last call (empty unless `explain()`).
    public mutating func takeExplanations() -> [Explanation] {
        guard let taken = engine.explanations, !taken.isEmpty else { return [] }
        engine.explanations = []
        return taken
    }

    public mutating func advanceAnimations(to time: Double, into out: inout [TransitionEvent]) {
        engine.advance(to: time, into: &out)
    }

    /// Replaces the exclusion regions in force (`TransitionEngine.setExclusions`).
    public mutating func setExclusions(_ rects: [ScreenRect]) {
        engine.setExclusions(rects)
    }

    /// Replaces the engine's config for new gestures (`TransitionEngine.reload`).
    @discardableResult
    public mutating func reload(_ configuration: EngineConfiguration) -> [Int?] {
        engine.reload(configuration)
    }

    /// Moves the events of recording `inputIndex` between `inputs` and
    /// `events`: out of `inputs` to play them, and back once played (for a
    /// later loop). Moved, never copied.
    private mutating func swapEvents() {
        swap(&events, &inputs[inputIndex].events)
    }

    private mutating func startInput() {
        var a = assemblers[inputIndex]
        let first = events.first?.time ?? 0
        a.timeOrigin = first &- base
        assembler = a
        eventIndex = 0
        fedIndex = 0
        draining = false
        prepareFrame()
    }

    /// Feeds the next input frame's events to the assembler, up to its
    /// `SYN_REPORT` (or the end of the events read so far), and notes the
    /// report's index and engine time. Feeding ahead of the frame's turn is
    /// safe: the assembler's state is the engine's input only, and its
    /// `frame` changes at the report, after the one before was processed.
    private mutating func prepareFrame() {
        let fed = assembler.feedFrame(events, from: fedIndex)
        if let report = fed.report {
            reportIndex = report
            reportTime = Double(events[report].time &- assembler.timeOrigin) * 1e-6
            frameComplete = fed.complete
            fedIndex = report + 1
        } else {
            reportIndex = events.count
            reportTime = nil
            fedIndex = events.count
        }
    }

    /// Index of the `SYN_REPORT` that ends the next input frame.
    private var reportIndex = 0
    /// Its engine time; nil when the recording has no further frame.
    private var reportTime: Double?
    /// Whether that report completed a frame (`assembler.frame`).
    private var frameComplete = false

    /// The engine time of the next step, nil when the replay is over. An
    /// input frame is due at its `SYN_REPORT`, when it is complete.
    public var nextTime: Double? {
        if isFinished { return nil }
        return nextStepTime
    }

    /// The engine time of the next step, including animations that
    /// commands started after the recordings ended.
    public var nextActivity: Double? {
        if isFinished { return engine.nextDeadline }
        return nextStepTime
    }

    private var nextStepTime: Double? {
        let animation = engine.nextDeadline
        if !draining {
            let input = reportTime ?? engine.now
            if let animation, animation < input { return animation }
            return input
        }
        return animation ?? engine.now
    }

    /// Does what is due at `nextTime`: animation frames, or the next input
    /// frame, or the end of a recording.
    public mutating func step(into out: inout [TransitionEvent]) {
        if needsEvents { return }
        guard !isFinished else {
            if let t = engine.nextDeadline { engine.advance(to: t, into: &out) }
            return
        }
        let origin = assembler.timeOrigin
        if draining {
            if let t = engine.nextDeadline {
                engine.advance(to: t, into: &out)
            } else {
                nextInput()
            }
            return
        }
        if let deadline = engine.nextDeadline, deadline < reportTime ?? engine.now {
            engine.advance(to: deadline, into: &out)
            return
        }
        guard reportTime != nil else {
            // End of this recording: whatever is still held is lost.
            eventIndex = events.count
            let end = events.isEmpty ? engine.now : Double(events[events.count - 1].time &- origin) * 1e-6
            engine.cancelInteractions(at: max(end, engine.now), reason: .deviceLost, into: &out)
            draining = true
            return
        }
        inputEventsFed += reportIndex - eventIndex + 1
        if frameComplete {
            framesFed += 1
            engine.process(assembler.frame, into: &out)
        }
        eventIndex = reportIndex + 1
        prepareFrame()
    }

    private mutating func nextInput() {
        swapEvents()
        inputIndex += 1
        if inputIndex == inputs.count {
            loop += 1
            inputIndex = 0
            if loop == loops {
                isFinished = true
                return
            }
        }
        swapEvents()
        // The next recording starts where this one settled, on a whole microsecond.
        base = Int64((engine.now * 1e6).rounded(.up))
        startInput()
    }

    /// Carries out a client's command at engine time `time` (never before
    /// what the engine has seen).
    public mutating func perform(_ command: TransitionEngine.Command, transition: Int, at time: Double,
                                 into out: inout [TransitionEvent]) -> TransitionEngine.CommandOutcome {
        engine.perform(command, transition: transition, at: time, into: &out)
    }

    /// Ends everything in flight for a shutdown; the replay stops.
    public mutating func shutdown(at time: Double, into out: inout [TransitionEvent]) {
        engine.shutdown(at: time, into: &out)
        isFinished = true
    }

    /// Sends the engine's trace lines (state changes, at debug level) to `sink`.
    public mutating func trace(_ sink: @escaping @Sendable (String) -> Void) {
        engine.trace = sink
    }

    /// Runs the whole replay at once (the virtual clock of `--fast`),
    /// handing batches of events to `flush`, while `keepGoing` says so
    /// (asked after each batch: the output may have gone away).
    /// `more` hands over the rest of a recording still being read
    /// (`readingEvents`): the next events, or nil at its end.
    public mutating func run(batch: Int = 4096, while keepGoing: () -> Bool = { true },
                             more: () -> [InputEvent]? = { nil },
                             flush: (inout [TransitionEvent]) -> Void) {
        var out: [TransitionEvent] = []
        out.reserveCapacity(batch + 64)
        while !isFinished {
            if needsEvents {
                if let events = more() { appendEvents(events) } else { endOfEvents() }
                continue
            }
            step(into: &out)
            if out.count >= batch {
                flush(&out)
                out.removeAll(keepingCapacity: true)
                if !keepGoing() { return }
            }
        }
        if !out.isEmpty { flush(&out) }
    }
}
