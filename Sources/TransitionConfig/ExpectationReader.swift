import Engine

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
        let tolerance = root[ExpectationKeys.tolerance]
        var recordings: [RecordingExpectation] = []
        for section in root[RecordingKeys.table] {
            let recording = try recording(from: section, tolerance: tolerance, file: file)
            if let earlier = recordings.first(where: { $0.file == recording.file }) {
                throw section.error(at: RecordingKeys.file, file: file,
                                    "\(TOMLString.quoted(recording.file)) is already expected at line \(earlier.line ?? 0)")
            }
            recordings.append(recording)
        }
        return ExpectationFile(tolerance: tolerance, recordings: recordings)
    }

    private static func recording(from section: ValidatedSection, tolerance: Double,
                                  file: String) throws(ConfigError) -> RecordingExpectation {
        let path = section[RecordingKeys.file]
        if path.isEmpty {
            throw section.error(at: RecordingKeys.file, file: file, "must not be empty")
        }
        typealias Key = ExpectedGestureKeys
        let gestures = section[Key.table].map { gesture in
            GestureExpectation(transition: gesture[Key.transition], decision: gesture[Key.decision],
                               reason: gesture[Key.reason], progress: gesture[Key.progress],
                               tolerance: gesture[Key.tolerance] ?? tolerance, target: gesture[Key.target])
        }
        return RecordingExpectation(file: path, line: section.line, gestures: gestures)
    }
}
