#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import EvdevInput
import LiveInput
import TransitionEngine

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
        """
    )

    @Option(help: ArgumentHelp("The touchscreen: auto, /dev/input/eventN, or a by-id/by-path link.", valueName: "PATH|auto"))
    var device = "auto"

    @Option(help: ArgumentHelp("A TOML config file (default: the embedded one).", valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("The Unix socket to serve (see docs/protocol.md).", valueName: "PATH"))
    var socket: String?

    @Flag(help: "Take the device exclusively (EVIOCGRAB): no other reader sees its events.")
    var grab = false

    @Flag(help: "Log debug lines (clients, the engine's state changes) on stderr.")
    var verbose = false

    @Flag(help: .hidden)
    var stampSent = false

    @Option(help: .hidden)
    var inputRoot = "/dev/input"

    func run() throws {
        try reportingFailures {
            let daemon = try loadDaemonConfiguration(config)
            let selector = DeviceSelector(argument: device)
            try checkExplicitDevice(selector)
            let logger = ServerRunner.logger(verbose: verbose)
            var options = serverOptions(daemon.server, socket: socket, logger: logger)
            options.stampSent = stampSent
            let source: EvdevSource
            do {
                source = try EvdevSource(options: .init(selector: selector, root: inputRoot, grab: grab))
            } catch let error as DeviceOpenError {
                throw Failure(.unavailable, "cannot set up the input thread: \(error.message)")
            }
            logger.info("input: --device \(selector)\(grab ? " with --grab" : "")")
            try ServerRunner.run(options: options, logger: logger, stopWhenInputEnds: false) { loop in
                DeviceHost(loop: loop, configuration: daemon.engine, source: source, logger: logger, trace: verbose)
            }
        }
    }

    /// A `--device PATH` that exists now must be one the engine can use
    /// (65 otherwise); one that is missing or refuses us is waited for.
    private func checkExplicitDevice(_ selector: DeviceSelector) throws {
        guard case .path(let path) = selector, fileExists(path) else { return }
        switch DeviceDiscovery.open(path) {
        case .success(let description):
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
