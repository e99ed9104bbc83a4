import TransitionEngine

/// Reads transitiond's TOML config into an `EngineConfiguration` and writes
/// one back (design "Config"). Every problem is a `ConfigError` with the
/// file, line and key.
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

    /// `parse`, with the error type known to the compiler.
    static func parseTyped(text: String, file: String) throws(ConfigError) -> EngineConfiguration {
        let document = try TOMLReader.read(text, file: file)
        let root = try SchemaValidator(file: file).validate(document, as: ConfigSchema.root)
        return try ConfigBuilder.configuration(from: root, file: file)
    }
}
