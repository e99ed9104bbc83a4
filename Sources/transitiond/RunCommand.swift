#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import EvdevInput
import Inputs
import Engine
import ServiceManager
import ServerPorts
import Server
import ServerCore
import TouchFilter
import TransitionConfig
import Logging

/// `transitiond run`: the daemon. Reads a touchscreen with libevdev and
/// serves its transitions on the socket until SIGINT/SIGTERM; waits for
/// the device when there is none, and re-attaches after it is removed.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Serve a touchscreen's gestures as transitions on the socket (the daemon).",
        discussion: """
        --device auto picks the touchscreen (INPUT_PROP_DIRECT with multitouch \
        or ABS_X/ABS_Y positions) with the lowest event number; with several, \
        the log names the choice and how to pin one. --device also takes \
        /dev/input/by-id/… and /dev/input/by-path/… links (stable across \
        reboots). With no device, or after it is removed, the daemon keeps \
        serving, logs "waiting for …", says "input":"waiting" in hello, and \
        attaches when one appears. --grab takes the device exclusively \
        (EVIOCGRAB): the desktop and the console stop seeing its touches — \
        right for a kiosk whose UI only follows transitiond, wrong when the \
        UI also needs the raw touches. Stops on SIGINT/SIGTERM, cancelling \
        what is in flight (reason "shutdown").

        The config is --config, else $TRANSITIOND_CONFIG, else \
        /etc/transitiond/transitiond.toml if it exists, else the embedded \
        default; the device is --device, else the config's [input] device. \
        Under systemd: a listening socket passed by socket activation \
        (LISTEN_FDS) is served instead of binding one and is never removed; \
        READY=1, STATUS=, WATCHDOG=1 and STOPPING=1 go to $NOTIFY_SOCKET; \
        with $JOURNAL_STREAM the log is in the journal's form.
        """
    )

    @Option(help: ArgumentHelp("The touchscreen: auto, all (every touchscreen), /dev/input/eventN, or a by-id/by-path link; repeat for several (default: the config's [input] device, auto).", valueName: "PATH|auto|all"))
    var device: [String] = []

    @Option(help: ArgumentHelp("A TOML config file (default: $TRANSITIOND_CONFIG, else /etc/transitiond/transitiond.toml if present, else the embedded one).", valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("The Unix socket to serve (see docs/protocol.md).", valueName: "PATH"))
    var socket: String?

    @Option(help: ArgumentHelp("Also serve over WebSocket (and the demo page over HTTP) at this address, e.g. 127.0.0.1:8765 (default: the config's [server] websocket; off).", valueName: "ADDR:PORT"))
    var websocket: String?

    @Flag(help: "Take the device exclusively (EVIOCGRAB): no other reader sees its events (--mode grab).")
    var grab = false

    @Option(help: ArgumentHelp("shared, grab, or filter: grab the panel and give the UI a uinput copy without the touches a transition claims (default: the config's [input] mode, shared).", valueName: "MODE"))
    var mode: String?

    @Option(help: ArgumentHelp("Serve Prometheus metrics and /healthz on a listener of their own at this address, e.g. 127.0.0.1:9464 (default: the config's [metrics] listen; /metrics is also on the WebSocket listener).", valueName: "ADDR:PORT"))
    var metrics: String?

    @Flag(help: "Log debug lines (clients, the engine's state changes) on stderr.")
    var verbose = false

    @Flag(help: .hidden)
    var stampSent = false

    @Option(help: .hidden)
    var inputRoot = "/dev/input"

    func validate() throws {
        try requireNames(["--socket": socket, "--config": config])
    }

    func run() throws {
        try reportingFailures {
            let logger = ServerRunner.logger(verbose: verbose)
            let configPath = DaemonConfigLocation.resolve(explicit: config, environment: processEnvironment(["TRANSITIOND_CONFIG"]))
            let daemon = try loadDaemonConfiguration(configPath, use: .daemon)
            let identity = daemonIdentity(daemon)
            logger.info("\(startLine(configPath: configPath, identity: identity))")
            let selector = DeviceSelector(arguments: device.isEmpty ? daemon.input.device : device)
            if device.count > 1, device.contains(where: { $0 == "auto" || $0 == "all" }) {
                throw Failure(.usage, "--device auto or all stands alone, not with other devices")
            }
            if let repeated = device.first(where: { d in device.filter { $0 == d }.count > 1 }) {
                throw Failure(.usage, "--device \(repeated) is given twice")
            }
            try checkExplicitDevice(selector)
            let inputMode = try self.inputMode(daemon.input.mode)
            if inputMode == .filter { try checkUinputWritable() }
            let webSocketFlag = try parseWebSocketFlag(websocket)
            let metricsFlag = try MetricsSetup.parseFlag(metrics)
            var options = serverOptions(daemon.server, socket: socket, webSocket: webSocketFlag, logger: logger)
            options.stampSent = stampSent
            options.maxEdgeExclusion = daemon.input.maxEdgeExclusion
            try adoptActivatedSockets(into: &options, allowOrigins: daemon.server.allowOrigins, logger: logger)
            let metricsService = MetricsSetup.prepare(daemon.metrics, flag: metricsFlag, live: true, options: &options)
            let source: EvdevSource
            do {
                var sourceOptions = EvdevSource.Options(selector: selector, root: inputRoot, grab: inputMode != .shared)
                if inputMode == .filter {
                    // A panel the filter cannot copy stays the UI's: better
                    // gestures that also reach the UI than no touch at all.
                    sourceOptions.grabRefusal = { description in
                        do throws(TouchFilterError) {
                            _ = try TouchFilterMachine(device: description)
                            return nil
                        } catch {
                            return error.message
                        }
                    }
                }
                source = try EvdevSource(options: sourceOptions)
            } catch let error as DeviceOpenError {
                throw Failure(.unavailable, "cannot set up the input thread: \(error.message)")
            }
            logger.info("input: \(device.isEmpty ? "device" : "--device") \(selector), mode \(inputMode.rawValue)")
            let startOptions = options
            // A reload is asked for on the server's loop, which must not
            // wait on a file system that stopped answering (or a name
            // service, for the groups): the reading is a thread's, given at
            // most 5 s, and the loop goes on meanwhile.
            let reloadBound = BoundedCall(seconds: ConfigRead.patience)
            let readConfig: ServerRunner.ConfigRead = { [socket, stampSent] done in
                reloadBound.start(configPath ?? "the config", done: done) {
                    let reread = try loadDaemonConfiguration(configPath, use: .daemon)
                    if device.isEmpty && reread.input.device != daemon.input.device {
                        logger.notice("reload: [input] device takes effect at the next start")
                    }
                    if reread.input.mode != daemon.input.mode || reread.input.filterHold != daemon.input.filterHold {
                        logger.notice("reload: [input] mode and filter_hold take effect at the next start")
                    }
                    if reread.input.minReportRate != daemon.input.minReportRate {
                        logger.notice("reload: [input] min_report_rate takes effect at the next start")
                    }
                    if reread.filter != daemon.filter {
                        logger.notice("reload: [filter] takes effect at the next start")
                    }
                    if reread.input.flightRecorder != daemon.input.flightRecorder
                        || reread.input.flightRecorderBytes != daemon.input.flightRecorderBytes {
                        logger.notice("reload: [input] flight_recorder and flight_recorder_bytes take effect at the next start")
                    }
                    if reread.input.misfires != daemon.input.misfires {
                        logger.notice("reload: [input] keep_misfires and the misfire spool's keys take effect at the next start")
                    }
                    if reread.input.geometry() != daemon.input.geometry() {
                        logger.notice("reload: [input] rotation, flip_x, flip_y and calibration take effect at the next start")
                    }
                    var options = serverOptions(reread.server, socket: socket, webSocket: webSocketFlag, logger: logger)
                    options.stampSent = stampSent
                    options.maxEdgeExclusion = reread.input.maxEdgeExclusion
                    options.inheritedListener = startOptions.inheritedListener
                    if reread.server.webSocket != daemon.server.webSocket || reread.server.allowOrigins != daemon.server.allowOrigins {
                        logger.notice("reload: [server] websocket and allow_origins take effect at the next start")
                    }
                    options.webSocket = startOptions.webSocket
                    options.metricsListen = startOptions.metricsListen
                    if reread.metrics != daemon.metrics {
                        logger.notice("reload: [metrics] takes effect at the next start")
                    }
                    if startOptions.inheritedListener != nil { options.socketPath = startOptions.socketPath }
                    let identity = daemonIdentity(reread)
                    logger.info("reload: \(identity.words)")
                    return ReloadedConfiguration(engine: reread.engine, options: options, identity: identity)
                }
            }
            try ServerRunner.run(options: options, logger: logger, stopWhenInputEnds: false, inputStatus: nil,
                                 readConfig: readConfig, metrics: metricsService) { loop, service in
                let host = DeviceHost(loop: loop, configuration: daemon.engine, source: source, logger: logger, trace: verbose)
                let input = daemon.input
                host.geometryFor = { path in input.geometry(deviceCalibration: UdevProperties.calibration(forDeviceAt: path)) }
                host.statusChanged = { service.inputChanged($0) }
                host.identity = identity
                if inputMode == .filter { host.filterHold = input.filterHold }
                // In every mode: the engine's frames apply palm_mm and stuck_after
                // (filter mode's copies apply the whole table).
                host.filterRules = daemon.filter
                host.flightRecorderSeconds = input.flightRecorder
                host.minReportRate = input.minReportRate
                host.flightRecorderBytes = input.flightRecorderBytes
                if input.misfires.keep {
                    let spool = input.misfires
                    host.keepMisfires(folder: spool.folder, maxFiles: spool.maxFiles, maxBytes: spool.maxBytes,
                                      interval: spool.interval)
                    logger.info("misfires: kept in \(spool.folder), at most one every \(Int(spool.interval)) s")
                }
                switch selector {
                case .all: host.selectsSeveral = true
                case .paths(let paths): host.selectsSeveral = paths.count > 1
                case .auto: host.selectsSeveral = false
                }
                return host
            }
        }
    }

    /// Listening sockets passed by the service manager replace the ones the
    /// daemon would bind: the Unix socket named `transitiond.socket` (the
    /// socket unit's name) or the only Unix stream socket passed, and the
    /// TCP socket named `websocket` or the only one passed, which turns the
    /// WebSocket transport on, and the TCP socket named `metrics`, which
    /// serves the metrics.
    private func adoptActivatedSockets(into options: inout ServerOptions, allowOrigins: [String],
                                       logger: Logger) throws {
        let activation: SocketActivation?
        do {
            activation = try SocketActivation.adopt()
        } catch {
            throw Failure(.usage, "socket activation: \(error)")
        }
        guard let activation else { return }
        let listener: SocketActivation.Socket?
        let tcp: SocketActivation.Socket?
        do {
            listener = try activation.unixListener(named: "transitiond.socket")
            tcp = try activation.tcpListener(named: "websocket", reserved: ["metrics"])
        } catch {
            throw Failure(.usage, "socket activation: \(error)")
        }
        if let metrics = activation.namedTCPListener("metrics") {
            let address = SocketActivation.boundAddress(metrics.descriptor)
            options.metricsListen = MetricsListenOptions(host: address.host, port: address.port,
                                                         inheritedListener: metrics.descriptor)
            logger.info("socket activation: metrics on descriptor \(metrics.descriptor) (\(metrics.name))")
        }
        if let tcp {
            let address = SocketActivation.boundAddress(tcp.descriptor)
            var webSocket = options.webSocket
                ?? webSocketOptions(ListenAddress(host: address.host, port: address.port), allowOrigins: allowOrigins)
            webSocket.host = address.host
            webSocket.port = address.port
            webSocket.inheritedListener = tcp.descriptor
            options.webSocket = webSocket
            logger.info("socket activation: WebSocket on descriptor \(tcp.descriptor) (\(tcp.name)) at \(webSocket.authority)")
        }
        guard let listener else {
            logger.warning("socket activation passed no Unix socket; binding \(options.socketPath)")
            return
        }
        options.inheritedListener = listener.descriptor
        let bound = SocketActivation.boundPath(listener.descriptor)
        if !bound.isEmpty { options.socketPath = bound }
        logger.info("socket activation: serving descriptor \(listener.descriptor) (\(listener.name)) at \(bound.isEmpty ? "an unnamed address" : bound)")
    }

    /// `--mode`, else `--grab`, else the config's.
    private func inputMode(_ configured: InputMode) throws -> InputMode {
        if let mode {
            guard let chosen = InputMode(rawValue: mode) else {
                throw Failure(.usage, "--mode must be shared, grab or filter (got \(mode))")
            }
            if grab && chosen == .shared { throw Failure(.usage, "--grab and --mode shared disagree") }
            return chosen
        }
        // --grab asks for at least a grab: filter mode grabs too.
        return grab && configured == .shared ? .grab : configured
    }

    /// Filter mode makes the UI's copy of each panel through `/dev/uinput`:
    /// without write access the grabbed panels would reach the UI not at
    /// all, so the daemon does not start (69).
    private func checkUinputWritable() throws {
        let fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC | O_NONBLOCK)
        if fd >= 0 {
            close(fd)
            return
        }
        let reason = String(cString: strerror(errno))
        throw Failure(.unavailable, "filter mode needs to write /dev/uinput (\(reason)): load the uinput module, and give the daemon's group access (docs/kiosk.md: a udev rule and, under systemd, DeviceAllow=/dev/uinput rw)")
    }

    /// A `--device PATH` that exists now must be one the engine can use
    /// (65 otherwise); one that is missing or refuses us is waited for.
    private func checkExplicitDevice(_ selector: DeviceSelector) throws {
        guard case .paths(let paths) = selector else { return }
        for path in paths where fileExists(path) { try checkExplicitDevice(path) }
    }

    private func checkExplicitDevice(_ path: String) throws {
        switch DeviceDiscovery.open(path) {
        case .success(let description):
            if isFilterCopy(description) {
                throw Failure(.dataError, "\(path) \"\(description.name)\" is a filter mode copy for the UI, not a panel to read")
            }
            if let rejection = engineRejection(of: description) {
                throw Failure(.dataError, "\(path) \"\(description.name)\" cannot drive the engine: \(rejection)")
            }
        case .failure(let error) where error.kind == .notEvdev:
            throw Failure(.dataError, "\(path): \(error.message)")
        case .failure:
            return
        }
    }
}
