import TransitionEngine

/// Reads an expectation file with the config's TOML reader and schema
/// validator: every problem is a `ConfigError`
/// (`FILE:LINE: key 'recording[2].gesture[1].decision': must be one of finish, cancel (got "finsh")`).
public enum ExpectationReader {
    /// Reads and parses the file at `path`. An unreadable file is a
    /// `ConfigError` without a line; anything else wrong names its line.
    public static func load(path: String) throws(ConfigError) -> ExpectationFile {
        try parse(text: ConfigFile.read(path: path), file: path)
    }

    /// Parses expectation text; `file` is the name errors report.
    public static func parse(text: String, file: String) throws(ConfigError) -> ExpectationFile {
        let document = try TOMLReader.read(text, file: file)
        let root = try SchemaValidator(file: file).validate(document, as: ExpectationSchema.root)
        let tolerance = root.number("tolerance")
        var recordings: [RecordingExpectation] = []
        for section in root.children["recording"] ?? [] {
            let recording = try recording(from: section, tolerance: tolerance, file: file)
            if let earlier = recordings.first(where: { $0.file == recording.file }) {
                throw ConfigError(file: file, line: section.line(of: "file"), key: section.keyPath("file"),
                                  message: "\(TOMLString.quoted(recording.file)) is already expected at line \(earlier.line ?? 0)")
            }
            recordings.append(recording)
        }
        return ExpectationFile(tolerance: tolerance, recordings: recordings)
    }

    private static func recording(from section: ValidatedSection, tolerance: Double,
                                  file: String) throws(ConfigError) -> RecordingExpectation {
        let path = section.string("file")
        if path.isEmpty {
            throw ConfigError(file: file, line: section.line(of: "file"), key: section.keyPath("file"),
                              message: "must not be empty")
        }
        let gestures = (section.children["gesture"] ?? []).map { gesture in
            GestureExpectation(transition: gesture.string("transition"),
                               decision: gesture.choice("decision", as: Decision.self),
                               reason: gesture.choice("reason", as: EndReason.self),
                               progress: gesture.number("progress"),
                               tolerance: gesture.values["tolerance"] == nil ? tolerance : gesture.number("tolerance"))
        }
        return RecordingExpectation(file: path, line: section.line, gestures: gestures)
    }
}
