import ArgumentParser
import TransitionConfig

/// `transitiond check-config FILE`: validates a config and prints the
/// effective one (every key, defaults filled in).
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file and print the effective configuration.",
        discussion: """
        The output ends with the config's hash (config_hash), as the daemon \
        reports it in hello, its metrics (transitiond_info) and its logs: \
        equivalent files hash alike; [identity] is left out of it.
        """
    )

    @Argument(help: "The TOML config file; - for stdin (a pipe: the config must arrive whole within 5 s).")
    var file: String

    func validate() throws {
        try requireNames(["FILE": file])
    }

    func run() throws {
        try reportingFailures {
            let config = try loadDaemonConfiguration(file)
            var out = StandardOutput()
            out.write(ConfigLoader.render(config))
            out.write("\n# config_hash: \(ConfigDigest.hash(of: config))\n")
            try out.checkWritten()
        }
    }
}
