/// What `verify --corpus` compares: how one recording's gestures ended
/// under the baseline config and under the new one, gesture by gesture in
/// order (the Nth `ended` of one run with the Nth of the other).
public struct RecordingComparison: Sendable, Equatable {
    /// The recording's path, as found under the corpus folder given.
    public var recording: String
    public var baseline: [GestureOutcome]
    public var candidate: [GestureOutcome]
    /// Every gesture that differs, in order; empty when the recording is unchanged.
    public var changes: [GestureChange]

    /// Compares the two runs; progress counts as changed only beyond `tolerance`.
    public init(recording: String, baseline: [GestureOutcome], candidate: [GestureOutcome], tolerance: Double) {
        self.recording = recording
        self.baseline = baseline
        self.candidate = candidate
        changes = (0..<max(baseline.count, candidate.count)).compactMap { i in
            GestureChange(index: i + 1, baseline: baseline.indices.contains(i) ? baseline[i] : nil,
                          candidate: candidate.indices.contains(i) ? candidate[i] : nil, tolerance: tolerance)
        }
    }

    public var changed: Bool { !changes.isEmpty }
}

/// How one gesture differs between the baseline run and the new one.
public struct GestureChange: Sendable, Equatable, CustomStringConvertible {
    /// Which part of an outcome changed. A gesture may change in several.
    public enum Kind: String, Sendable, CaseIterable {
        /// Another transition ended it.
        case transition
        /// finish, cancel or snap.
        case decision
        /// released, device-lost, …
        case reason
        /// A snap transition rests on another point (or one has a target and the other none).
        case target
        /// The progress at release moved by more than the tolerance.
        case progress
        /// The new config ends a gesture the baseline did not.
        case added
        /// The baseline ended a gesture the new config does not.
        case removed
    }

    /// From 1.
    public var index: Int
    public var baseline: GestureOutcome?
    public var candidate: GestureOutcome?
    /// Never empty.
    public var kinds: [Kind]

    /// nil when the two are the same (progress within `tolerance`) or both absent.
    init?(index: Int, baseline: GestureOutcome?, candidate: GestureOutcome?, tolerance: Double) {
        var kinds: [Kind] = []
        switch (baseline, candidate) {
        case (nil, nil): return nil
        case (nil, _?): kinds = [.added]
        case (_?, nil): kinds = [.removed]
        case (let old?, let new?):
            if old.transition != new.transition { kinds.append(.transition) }
            if old.decision != new.decision { kinds.append(.decision) }
            if old.reason != new.reason { kinds.append(.reason) }
            if !ExpectationComparison.sameTarget(old.target, new.target) { kinds.append(.target) }
            // The same slack as verify's tolerance, for binary rounding.
            if abs(old.progress - new.progress) > tolerance + ExpectationComparison.slack { kinds.append(.progress) }
        }
        if kinds.isEmpty { return nil }
        self.index = index
        self.baseline = baseline
        self.candidate = candidate
        self.kinds = kinds
    }

    /// `gesture 1: back cancel (released) at 0.2712 → back finish (released) at 0.2712 [decision]`.
    public var description: String {
        let old = baseline.map(\.description) ?? "nothing"
        let new = candidate.map(\.description) ?? "nothing"
        return "gesture \(index): \(old)  ⇒  \(new)  [\(kinds.map(\.rawValue).joined(separator: ", "))]"
    }
}
