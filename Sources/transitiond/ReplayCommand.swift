#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import SystemSupport
import Inputs
import NIOCore
import NIOPosix
import Engine
import Recordings
import EventStream
import WireProtocol
import Replay
import ReplayPlot
import TransitionConfig
import ServerPorts
import Server
import ServerCore

/// `transitiond replay`: streams recorded gestures through the engine, at
/// the recording's pace (`--speed`) or as fast as possible (`--fast`,
/// deterministic: byte-identical output on every run).
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded gestures (evemu or libinput record) through the engine.",
        discussion: """
        Times in the output are seconds since the first event of the replay. \
        Several recordings (and --loop) play one after another, each starting \
        when the previous one has settled. A gesture still held when its \
        recording ends is cancelled with reason "device-lost".
        """
    )

    @OptionGroup var input: RecordingInputOptions

    @Flag(help: "No pacing: run on a virtual clock as fast as possible.")
    var fast = false

    @Option(help: ArgumentHelp("Pace by the recording's timestamps at this speed (1 = real time).", valueName: "X"))
    var speed: Double?

    @Option(help: ArgumentHelp("Play the recordings N times.", valueName: "N"))
    var loop: Int = 1

    @Flag(help: "NDJSON on stdout even on a terminal.")
    var json = false

    @Flag(help: "With --fast: say why, for each touch-down and each decision (which transitions considered it, why each passed over it or did not look at it, whether a flick or the threshold decided; when nothing began, why). Text on stdout; with --json the events on stdout and explain lines on stderr. With --copy: each touch the filter kept from the copy, and why (max_contacts, palm, block, a ghost tap, stuck).")
    var explain = false

    @Option(help: ArgumentHelp("Write an SVG plot of each transition (progress over time against the finish threshold, velocity on a strip of its own against the flick band, each release and why, rejected candidates numbered and listed; when nothing began, why) to FILE (- for stdout) instead of the stream; runs on the virtual clock, as --fast.", valueName: "FILE"))
    var plot: String?

    @Option(help: ArgumentHelp("With --fast and one recording: write the UI's copy of the panel in filter mode to FILE (- for stdout) instead of the stream, as one evemu 1.3 file: the copy's description, then its events, each at the time on the recording's clock that the live copy would write it (a held touch when its hold ends, a stuck contact's end when stuck_after runs out). The config's filter_hold, geometry and [filter] rules apply, whatever [input] mode says.", valueName: "FILE"))
    var copy: String?

    @Flag(help: "Trace the engine's state changes on stderr.")
    var verbose = false

    @Option(help: ArgumentHelp("Serve the replay on this Unix socket instead of printing it (see docs/protocol.md).", valueName: "PATH"))
    var socket: String?

    @Option(help: ArgumentHelp("With --socket: also serve the replay over WebSocket (and the demo page over HTTP) at this address, e.g. 127.0.0.1:8765.", valueName: "ADDR:PORT"))
    var websocket: String?

    @Option(help: ArgumentHelp("With --socket: also serve Prometheus metrics and /healthz on a listener of their own at this address, e.g. 127.0.0.1:9464.", valueName: "ADDR:PORT"))
    var metrics: String?

    @Option(help: ArgumentHelp("With --socket: start the replay once N clients (of either transport) are connected.", valueName: "N"))
    var waitClients: Int = 0

    @Flag(help: "With --socket: keep serving (commands still work) after the replay has ended, until SIGINT/SIGTERM.")
    var hold = false

    @Flag(help: .hidden)
    var stampSent = false

    /// How much output a replay that started before its recording was read
    /// whole holds back (tests make it small, to see the replay wait).
    @Option(help: .hidden)
    var holdLimit: Int = 32 << 20

    func validate() throws {
        try input.requireRecordings()
        try requireNames(["--socket": socket, "--plot": plot, "--copy": copy])
        if copy != nil {
            if !fast { throw ValidationError("--copy needs --fast: the copy's times are the recording's own, not paced") }
            let others = [socket != nil ? "--socket" : nil, plot != nil ? "--plot" : nil,
                          json ? "--json" : nil, loop != 1 ? "--loop" : nil].compactMap { $0 }
            if !others.isEmpty {
                throw ValidationError("--copy writes the copy of one recording: not with \(others.joined(separator: ", "))")
            }
            if input.recordings.count > 1 {
                throw ValidationError("--copy writes the copy of one panel: give one recording (got \(input.recordings.count); the live daemon makes one copy per panel)")
            }
        }
        if fast && speed != nil { throw ValidationError("--fast and --speed exclude each other") }
        if let speed, !(speed >= 0.001 && speed <= 1000) {
            throw ValidationError("--speed must be a number from 0.001 to 1000 (got \(speed))")
        }
        if loop < 1 || loop > 1_000_000 { throw ValidationError("--loop must be 1…1000000 (got \(loop))") }
        if socket == nil && (waitClients != 0 || hold || stampSent || websocket != nil || metrics != nil) {
            // Named as the user wrote them; --stamp-sent is a benchmark's
            // hidden flag and is named only to whoever used it.
            let used = [websocket != nil ? "--websocket" : nil, metrics != nil ? "--metrics" : nil, waitClients != 0 ? "--wait-clients" : nil,
                        hold ? "--hold" : nil, stampSent ? "--stamp-sent" : nil]
                .compactMap { $0 }
            throw ValidationError("\(used.joined(separator: " and ")) need\(used.count == 1 ? "s" : "") --socket")
        }
        if waitClients < 0 { throw ValidationError("--wait-clients must be ≥ 0") }
    }

    func run() throws {
        try reportingFailures {
            let daemon = try loadDaemonConfiguration(input.config)
            let configuration = daemon.engine
            if let copy {
                try runCopy(input.load(input.recordings[0]), daemon: daemon, to: copy)
                return
            }
            // `--fast` NDJSON of one recording starts while the file is still
            // being read (RecordingReadAhead); everything else loads it whole.
            let ndjsonOut = json || !StandardOutput.isTerminal
            let readAhead = fast && ndjsonOut && socket == nil && plot == nil && !explain && input.recordings.count == 1
                ? try RecordingReadAhead(path: input.recordings[0], description: input.description) : nil
            let inputs = try readAhead.map { [try $0.first()] } ?? input.recordings.map(input.load)
            var session: ReplaySession
            do {
                session = try ReplaySession(configuration: configuration, inputs: inputs, loops: loop,
                                            geometry: daemon.input.geometry(), readingEvents: readAhead != nil,
                                            palmMillimetres: daemon.filter.palmMillimetres)
            } catch let error as ReplayError {
                throw Failure(.dataError, error.description)
            }
            if verbose {
                session.trace { StandardError.write("transitiond: debug: \($0)\n") }
            }
            if let plot {
                guard socket == nil, !explain, !json, speed == nil else {
                    throw Failure(.usage, "--plot writes a plot of the whole replay: not with --socket, --explain, --json or --speed")
                }
                try runPlotted(session, configuration: configuration, to: plot)
                return
            }
            if explain {
                guard fast, socket == nil else {
                    throw Failure(.usage, "--explain works with --fast (and without --socket)")
                }
                try runExplained(session, configuration: configuration, geometry: session.geometry)
                return
            }
            if let socket {
                let logger = ServerRunner.logger(verbose: verbose)
                var options = serverOptions(daemon.server, socket: socket, webSocket: try parseWebSocketFlag(websocket),
                                            logger: logger)
                options.stampSent = stampSent
                options.maxEdgeExclusion = daemon.input.maxEdgeExclusion
                options.startAfterClients = waitClients
                if let problem = options.problem { throw Failure(.usage, problem) }
                let metricsService = MetricsSetup.prepare(daemon.metrics, flag: try MetricsSetup.parseFlag(metrics),
                                                          live: false, options: &options)
                let prepared = session
                let speed = self.speed ?? 1
                let identity = daemonIdentity(daemon)
                logger.info("\(startLine(configPath: input.config, identity: identity))")
                try ServerRunner.run(options: options, logger: logger, stopWhenInputEnds: !hold, inputStatus: "replay",
                                     metrics: metricsService) { [fast] loop, _ -> EngineHost in
                    let host: EngineHost = fast ? ReplayHost(loop: loop, session: prepared, clock: ManualClock())
                                                : ReplayHost(loop: loop, session: prepared, clock: MonotonicClock(), speed: speed)
                    host.identity = identity
                    return host
                }
                return
            }
            let encoder = EventEncoder(configuration: configuration)
            var out = StandardOutput()
            let ndjson = json || !StandardOutput.isTerminal
            var live: LiveView? = ndjson ? nil : LiveView(configuration: configuration)
            let writer = JSONWriter(capacity: 1 << 18)
            if ndjson {
                encoder.hello(active: [], geometry: session.geometry, into: writer)
            }

            if fast, live == nil, let readAhead {
                // Nothing is written until the whole file has read well.
                let background = BackgroundEncoder(encoder: encoder, output: out, holding: true,
                                                   holdLimit: max(1, holdLimit))
                readAhead.whenRead { readWell in
                    if readWell { background.release() } else { background.discard() }
                }
                background.submit(writer.bytes)
                writer.reset()
                var read = false
                session.run(batch: 8192, while: { !background.outputFailed }, more: {
                    let events = readAhead.next()
                    if events == nil { read = true }
                    return events
                }) { events in background.submit(&events) }
                // Stopped early (the output failed): the rest of the file still decides.
                while !read && readAhead.next() != nil {}
                if let failure = readAhead.failure {
                    background.discard()
                    _ = background.finish()
                    throw Failure(.dataError, failure.description)
                }
                background.release()
                out = background.finish()
            } else if fast, live == nil {
                let background = BackgroundEncoder(encoder: encoder, output: out)
                background.submit(writer.bytes)
                writer.reset()
                session.run(batch: 8192, while: { !background.outputFailed }) { events in background.submit(&events) }
                out = background.finish()
            } else if fast {
                session.run { events in
                    live!.show(events, to: &out)
                }
            } else {
                // Paced: the served replay's host on a loop of its own, its
                // events printed instead of sent to clients.
                let printer = PacedPrinter(out: out, live: live, encoder: encoder, writer: writer)
                try printPaced(session, speed: speed ?? 1, to: printer)
                out = printer.out
                live = printer.live
            }
            if var view = live { view.show([], force: true, to: &out) }
            out.write(writer)
            try out.checkWritten()
        }
    }

    /// `--fast --copy FILE`: the UI's copy of the one recording's panel
    /// (`ReplayCopy`: the live input's rules on a virtual clock) as an
    /// evemu file, its times on the recording's clock.
    private func runCopy(_ recording: ReplayInput, daemon: DaemonConfiguration, to target: String) throws {
        let made: ReplayCopy.Copy
        do {
            made = try ReplayCopy.make(of: recording, configuration: daemon.engine, hold: daemon.input.filterHold,
                                       rules: daemon.filter, geometry: daemon.input.geometry(), traces: verbose,
                                       explain: explain)
        } catch {
            throw Failure(.dataError, error.description)
        }
        if verbose {
            for entry in made.log { StandardError.write("transitiond: \(entry.level): \(entry.line)\n") }
        }
        let bytes = EvemuWriter.write(description: made.description, events: made.events, origin: 0)
        try TextFile.write(String(decoding: bytes, as: UTF8.self), to: target)
        if explain {
            // What the filter kept from the copy, on stdout (stderr when the
            // copy itself goes there); nothing when it kept nothing.
            var out = StandardOutput(fd: target == "-" ? 2 : 1)
            for note in made.explanations { out.write(ExplanationText.seconds(note.time) + "  " + note.text + "\n") }
            try out.checkWritten()
        }
    }

    /// `--plot FILE`: the whole replay on the virtual clock, then its SVG.
    private func runPlotted(_ prepared: ReplaySession, configuration: EngineConfiguration, to target: String) throws {
        var session = prepared
        session.explain()
        var builder = PlotBuilder(configuration: configuration)
        var events: [TransitionEvent] = []
        while !session.isFinished {
            session.step(into: &events)
            for explanation in session.takeExplanations() { builder.add(explanation) }
            for event in events { builder.add(event) }
            events.removeAll(keepingCapacity: true)
        }
        let title = input.recordings.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: ", ")
        try TextFile.write(PlotDocument.svg(builder.transitions, title: title, whyEmpty: builder.whyNothingBegan), to: target)
    }

    /// `--fast --explain`: the explanation as text on stdout, or with
    /// `--json` the events on stdout and `explain` lines on stderr.
    private func runExplained(_ prepared: ReplaySession, configuration: EngineConfiguration,
                              geometry: ScreenGeometry) throws {
        var session = prepared
        session.explain()
        let text = ExplanationText(configuration: configuration)
        var summary = ExplanationSummary(configuration: configuration)
        let encoder = EventEncoder(configuration: configuration)
        var out = StandardOutput()
        var err = StandardOutput(fd: 2)
        let writer = JSONWriter(capacity: 1 << 16)
        let notes = JSONWriter(capacity: 1 << 12)
        if json { encoder.hello(active: [], geometry: geometry, into: writer) }
        var events: [TransitionEvent] = []
        while !session.isFinished && !out.closed {
            session.step(into: &events)
            for explanation in session.takeExplanations() {
                summary.add(explanation)
                if json {
                    text.json(explanation, into: notes)
                } else {
                    out.write(text.line(explanation) + "\n")
                }
            }
            if json {
                for event in events { encoder.encode(event, into: writer) }
                out.write(writer)
                err.write(notes)
            }
            events.removeAll(keepingCapacity: true)
        }
        // A replay where nothing began ends saying why, in the words the empty plot uses.
        let end = session.engine.now.isFinite ? session.engine.now : 0
        for line in summary.whyNothingBegan() where !out.closed {
            if json {
                text.json(time: end, transition: line.transition, text: line.text, into: notes)
                err.write(notes)
            } else {
                out.write(text.line(time: end, transition: line.transition, text: line.text) + "\n")
            }
        }
        try out.checkWritten()
    }

    /// Plays `session` on `CLOCK_MONOTONIC` at `speed` through a
    /// `ReplayHost` on an event loop, until it ends or stdout goes away.
    private func printPaced(_ session: ReplaySession, speed: Double, to printer: PacedPrinter) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let done = loop.makePromise(of: Void.self)
        let host = ReplayHost(loop: loop, session: session, clock: MonotonicClock(), speed: speed)
        try loop.submit {
            host.start(emit: { events in
                           printer.print(events)
                           if printer.out.closed { done.succeed(()) }
                       },
                       finished: { done.succeed(()) })
        }.wait()
        try done.futureResult.wait()
    }
}

/// Where a paced replay's events go: NDJSON or the live view on stdout.
/// Used on the replay's event loop only.
private final class PacedPrinter: @unchecked Sendable {
    var out: StandardOutput
    var live: LiveView?
    let encoder: EventEncoder
    let writer: JSONWriter

    init(out: StandardOutput, live: LiveView?, encoder: EventEncoder, writer: JSONWriter) {
        self.out = out
        self.live = live
        self.encoder = encoder
        self.writer = writer
    }

    func print(_ events: [TransitionEvent]) {
        guard !out.closed else { return }
        if live != nil {
            live!.show(events, to: &out)
        } else {
            for e in events { encoder.encode(e, into: writer) }
            out.write(writer)
        }
    }
}
