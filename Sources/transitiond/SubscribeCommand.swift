import ArgumentParser
import StreamClient

/// `transitiond subscribe`: prints the daemon's event stream, reconnecting
/// when the daemon goes away and comes back.
struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print a running daemon's event stream (NDJSON, or a live view on a terminal).",
        discussion: """
        The socket is --socket, else $TRANSITIOND_SOCKET, else \
        $XDG_RUNTIME_DIR/transitiond.sock, else /run/transitiond/transitiond.sock. \
        NDJSON output is the daemon's lines byte for byte (the reply to the \
        subscription itself is not printed). When the connection drops while a \
        transition is in flight, a "cancelled" line with "synthetic":true and \
        progress 0 is printed for it; then subscribe reconnects, waiting up to \
        --retry-seconds (also for the first connection: the daemon may be starting) \
        before it gives up with exit code 69. SIGINT or SIGTERM exit 0.
        """
    )

    @OptionGroup var daemon: DaemonSocketOption

    @Option(name: .customLong("transition"),
            help: ArgumentHelp("Only this transition's events (repeat for several; default: all).", valueName: "NAME"))
    var transitions: [String] = []

    @Flag(help: "NDJSON on stdout even on a terminal.")
    var json = false

    @Option(name: .customLong("retry-seconds"),
            help: ArgumentHelp("How long to keep trying to (re)connect before giving up.", valueName: "N"))
    var retrySeconds: Double = 30

    func validate() throws {
        if !(retrySeconds >= 0 && retrySeconds <= 31_536_000) {
            throw ValidationError("--retry-seconds must be a number ≥ 0 (got \(retrySeconds))")
        }
        if transitions.contains(where: \.isEmpty) { throw ValidationError("--transition needs a name") }
    }

    func run() throws {
        try reportingFailures {
            let path = daemon.path
            let ndjson = json || !StandardOutput.isTerminal
            var session = SubscribeSession(path: path, names: transitions, retrySeconds: retrySeconds,
                                           view: ndjson ? nil : TerminalView(names: transitions))
            try session.run()
        }
    }
}
