/// Writes an `ExpectationFile` as TOML that `ExpectationReader` reads back
/// to an equal value: the top-level tolerance, then each recording and its
/// gestures; a gesture's own tolerance only where it differs from the file's.
public enum ExpectationRenderer {
    /// The file's text; `comment` lines go at the top, each after `# `.
    public static func render(_ expectations: ExpectationFile, comment: [String] = []) -> String {
        var out = "# transitiond verify: what each recording's gestures must do\n"
        for line in comment { out += "# \(line)\n" }
        out += "tolerance = \(ConfigValue.number(expectations.tolerance).rendered)"
        out += "  # default for every gesture: |progress - expected| <= tolerance\n"
        for recording in expectations.recordings {
            out += "\n[[recording]]\nfile = \(TOMLString.quoted(recording.file))\n"
            if recording.gestures.isEmpty { out += "# no gestures\n" }
            for gesture in recording.gestures {
                out += "\n  [[recording.gesture]]\n"
                out += "  transition = \(TOMLString.quoted(gesture.transition))\n"
                out += "  decision = \(TOMLString.quoted(gesture.decision.rawValue))\n"
                out += "  reason = \(TOMLString.quoted(gesture.reason.rawValue))\n"
                out += "  progress = \(ConfigValue.number(gesture.progress).rendered)\n"
                if gesture.tolerance != expectations.tolerance {
                    out += "  tolerance = \(ConfigValue.number(gesture.tolerance).rendered)\n"
                }
            }
        }
        return out
    }
}
