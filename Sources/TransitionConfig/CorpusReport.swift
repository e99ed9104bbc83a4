/// `verify --corpus`'s report: each changed recording with its changed
/// gestures, then a summary. Recordings come sorted by path (byte order), so
/// the same corpus and configs print the same text on every machine.
public struct CorpusReport: Sendable, Equatable {
    public var comparisons: [RecordingComparison]

    public init(_ comparisons: [RecordingComparison]) {
        // Byte order, not the locale's: the same text everywhere.
        self.comparisons = comparisons.sorted { Array($0.recording.utf8).lexicographicallyPrecedes($1.recording.utf8) }
    }

    public var changed: [RecordingComparison] { comparisons.filter(\.changed) }

    /// Gestures changed, by kind, in `GestureChange.Kind` order; kinds with none left out.
    public var kinds: [(kind: GestureChange.Kind, gestures: Int)] {
        GestureChange.Kind.allCases.compactMap { kind in
            let n = changed.reduce(0) { $0 + $1.changes.filter { $0.kinds.contains(kind) }.count }
            return n == 0 ? nil : (kind, n)
        }
    }

    /// `changed RECORDING` and a line per changed gesture, for each changed
    /// recording; then `corpus: N recordings played, C changed, U unchanged`
    /// and the changed gestures by kind. Every line ends in `\n`.
    public var text: String {
        var out = ""
        for comparison in changed {
            out += "changed \(comparison.recording)\n"
            for change in comparison.changes { out += "  \(change)\n" }
        }
        out += summary
        return out
    }

    public var summary: String {
        let n = comparisons.count, c = changed.count
        var out = "corpus: \(n) recording\(n == 1 ? "" : "s") played, \(c) changed, \(n - c) unchanged\n"
        if !kinds.isEmpty {
            out += "changed gestures by kind: "
                + kinds.map { "\($0.kind.rawValue) \($0.gestures)" }.joined(separator: ", ") + "\n"
        }
        return out
    }
}
