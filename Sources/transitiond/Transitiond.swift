import ArgumentParser

/// The `transitiond` command: touchscreen gestures → interactive transitions.
@main
struct Transitiond: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transitiond",
        abstract: "Turns touchscreen gestures into percent-driven interactive transitions.",
        discussion: """
        Events go to stdout as NDJSON (one JSON object per line) when stdout is \
        not a terminal or --json is given; a terminal gets a live view.
        Exit codes: 0 ok, 1 verify found a difference, 64 usage, 65 bad data (recording or config), \
        66 no input (a file is missing), 69 unavailable (the socket is taken, \
        no daemon answered, a set-up step failed), 70 internal error, \
        74 I/O error.
        """,
        version: "0.1.0",
        subcommands: [ReplayCommand.self, CheckConfigCommand.self, VerifyCommand.self, TuneCommand.self, SubscribeCommand.self, DumpCommand.self,
                      RunCommand.self, RecordCommand.self, DevicesCommand.self, UinputReplayCommand.self]
    )
}
