import Engine

/// Reads transitiond's TOML config into an `EngineConfiguration` (or, with
/// the `[server]` table, a `DaemonConfiguration`) and writes one back
/// (design "Config"). Every problem is a `ConfigError` with the file, line
/// and key. The engine-only entry points check `[server]` too and then drop it.
public enum ConfigLoader {
    /// Reads and parses the config file at `path`. An unreadable file is a
    /// `ConfigError` without a line; anything else wrong names its line.
    public static func load(path: String) throws -> EngineConfiguration {
        let text = try ConfigFile.read(path: path)
        return try parse(text: text, file: path)
    }

    /// Parses config text; `file` is the name errors report.
    public static func parse(text: String, file: String) throws -> EngineConfiguration {
        try parseTyped(text: text, file: file)
    }

    /// The effective config as TOML: every key that applies with its value,
    /// defaults filled in. `parse` reads it back to an equal value (for a
    /// config with at least one transition and values in range).
    public static func render(_ config: EngineConfiguration) -> String {
        ConfigRenderer.render(config)
    }

    /// Reads and parses the config file at `path`, `[server]` included.
    /// Errors as for `load(path:)`.
    public static func loadDaemon(path: String) throws -> DaemonConfiguration {
        let text = try ConfigFile.read(path: path)
        return try parseDaemon(text: text, file: path)
    }

    /// Parses config text, `[server]` included (`ServerSettings.standard`
    /// without one); `file` is the name errors report.
    public static func parseDaemon(text: String, file: String) throws -> DaemonConfiguration {
        try parseDaemonTyped(text: text, file: file)
    }

    /// Parses a config file's bytes as `loadDaemon(path:)` parses the file's
    /// (invalid UTF-8 is an error at its line); `file` is the name errors report.
    public static func parseDaemon(bytes: [UInt8], file: String) throws -> DaemonConfiguration {
        try parseDaemonTyped(text: ConfigFile.decode(bytes, file: file), file: file)
    }

    /// The effective config as TOML: the engine part exactly as
    /// `render(_: EngineConfiguration)` writes it, then a `[server]` table
    /// with every key (`socket` only when set). `parseDaemon` reads it back
    /// to an equal value (for values in range).
    public static func render(_ config: DaemonConfiguration) -> String {
        ConfigRenderer.render(config)
    }

    /// `parse`, with the error type known to the compiler.
    static func parseTyped(text: String, file: String) throws(ConfigError) -> EngineConfiguration {
        try ConfigBuilder.configuration(from: validatedRoot(text: text, file: file), file: file)
    }

    /// `parseDaemon`, with the error type known to the compiler.
    static func parseDaemonTyped(text: String, file: String) throws(ConfigError) -> DaemonConfiguration {
        try ConfigBuilder.daemonConfiguration(from: validatedRoot(text: text, file: file), file: file)
    }

    private static func validatedRoot(text: String, file: String) throws(ConfigError) -> ValidatedSection {
        let document = try TOMLReader.read(text, file: file)
        return try SchemaValidator(file: file).validate(document, as: ConfigSchema.root)
    }
}
