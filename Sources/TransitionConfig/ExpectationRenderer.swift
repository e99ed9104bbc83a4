/// Writes an `ExpectationFile` as TOML that `ExpectationReader` reads back
/// to an equal value: the top-level tolerance, then each recording and its
/// gestures; a gesture's own tolerance only where it differs from the file's.
/// Every key is written through its declaration in `ExpectationSchema.swift`.
public enum ExpectationRenderer {
    /// The file's text; `comment` lines go at the top, each after `# `.
    public static func render(_ expectations: ExpectationFile, comment: [String] = []) -> String {
        var out = "# transitiond verify: what each recording's gestures must do\n"
        for line in comment { out += "# \(line)\n" }
        out += lines([ExpectationKeys.tolerance.entry(expectations.tolerance)], indent: "", commented: true)
        for recording in expectations.recordings {
            out += "\n" + RecordingKeys.table.schema.header + "\n"
            out += lines([RecordingKeys.file.entry(recording.file)], indent: "")
            if recording.gestures.isEmpty { out += "# no gestures\n" }
            for gesture in recording.gestures {
                typealias Key = ExpectedGestureKeys
                out += "\n  " + Key.table.schema.header + "\n"
                out += lines([
                    Key.transition.entry(gesture.transition),
                    Key.decision.entry(gesture.decision),
                    Key.reason.entry(gesture.reason),
                    Key.progress.entry(gesture.progress),
                    Key.target.entry(gesture.target),
                    Key.tolerance.entry(gesture.tolerance == expectations.tolerance ? nil : gesture.tolerance),
                ], indent: "  ")
            }
        }
        return out
    }

    /// `key = value` lines, nil entries left out; `commented`: each followed
    /// by what the key is, after two spaces.
    private static func lines(_ entries: [ConfigEntry?], indent: String, commented: Bool = false) -> String {
        entries.compactMap { $0 }.map { entry in
            var line = indent + entry.line
            if commented, let summary = entry.spec.summary { line += "  # " + summary }
            return line + "\n"
        }.joined()
    }
}
