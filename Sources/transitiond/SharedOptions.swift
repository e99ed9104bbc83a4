import ArgumentParser
import Replay
import StreamClient

// The options several commands share, declared once (`@OptionGroup`): the
// same name, help and checks wherever they appear.

/// What `replay`, `verify` and `tune` run through the engine: the recordings, the
/// description of events-only ones, and the config.
struct RecordingInputOptions: ParsableArguments {
    @Argument(help: "Recordings: evemu files (self-contained, or .events with --description) or libinput record YAML.")
    var recordings: [String] = []

    @Option(help: ArgumentHelp("The device description (an evemu .desc file) for events-only recordings.", valueName: "DESC"))
    var description: String?

    @Option(help: ArgumentHelp("A TOML config file (default: the embedded one).", valueName: "FILE"))
    var config: String?

    func validate() throws {
        try requireNames(["--config": config, "--description": description])
    }

    /// A usage error without recordings: each command that takes none
    /// instead (`verify --corpus`) says so in its own `validate`.
    func requireRecordings() throws {
        if recordings.isEmpty { throw ValidationError("give at least one recording") }
    }

    /// One recording, with --description for an events-only one.
    func load(_ path: String) throws -> ReplayInput {
        try loadReplayInput(path, description: description)
    }
}

/// `--socket` of the commands that are clients of a running daemon
/// (`subscribe`, `dump`).
struct DaemonSocketOption: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's socket.", valueName: "PATH"))
    var socket: String?

    func validate() throws {
        try requireNames(["--socket": socket])
    }

    /// The socket to connect to: --socket, else $TRANSITIOND_SOCKET, else
    /// $XDG_RUNTIME_DIR/transitiond.sock, else the system one.
    var path: String {
        SocketLocation.resolve(explicit: socket, environment: StreamConnection.socketEnvironment())
    }
}
