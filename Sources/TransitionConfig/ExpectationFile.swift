import Engine

/// What `transitiond verify` checks recordings against: for each recording,
/// the gestures it must end, in order (an expectation file, TOML).
///
/// ```toml
/// tolerance = 0.01          # default for every gesture
///
/// [[recording]]
/// file = "Recordings/back-drag-finish.events"
///   [[recording.gesture]]
///   transition = "back"
///   decision = "finish"
///   reason = "released"
///   progress = 0.66
///   # tolerance = 0.05      # optional, this gesture only
/// ```
///
/// `ExpectationReader` reads one (every problem a `ConfigError` with file,
/// line and key), `ExpectationRenderer` writes one.
public struct ExpectationFile: Sendable, Equatable {
    /// The tolerance of gestures that do not give their own. The default of a
    /// file that does not say, and of one written by `--write-expect`.
    public static let defaultTolerance = 0.01
    /// Decimals of the progress `--write-expect` writes.
    public static let writtenDecimals = 4

    /// `|progress - expected| <= tolerance` for gestures without their own.
    public var tolerance: Double
    /// In file order; no two with the same `file`.
    public var recordings: [RecordingExpectation]

    public init(tolerance: Double = ExpectationFile.defaultTolerance, recordings: [RecordingExpectation]) {
        self.tolerance = tolerance
        self.recordings = recordings
    }
}

/// One `[[recording]]`: a recording as it was named on the command line and
/// the gestures it must end.
public struct RecordingExpectation: Sendable, Equatable {
    /// The path as given on the command line when the file was written.
    public var file: String
    /// The line of its `[[recording]]` header; nil when not read from a file.
    public var line: Int?
    /// In the order the recording ends them.
    public var gestures: [GestureExpectation]

    public init(file: String, line: Int? = nil, gestures: [GestureExpectation]) {
        self.file = file
        self.line = line
        self.gestures = gestures
    }

    /// What `--write-expect` writes for a run: each outcome with its progress
    /// rounded to `ExpectationFile.writtenDecimals`, at `tolerance`.
    public init(file: String, outcomes: [GestureOutcome], tolerance: Double = ExpectationFile.defaultTolerance) {
        self.init(file: file, gestures: outcomes.map { outcome in
            GestureExpectation(transition: outcome.transition, decision: outcome.decision, reason: outcome.reason,
                               progress: ExpectationNumber.rounded(outcome.progress,
                                                                   decimals: ExpectationFile.writtenDecimals),
                               tolerance: tolerance, target: outcome.target)
        })
    }
}

/// One `[[recording.gesture]]`: how the gesture must end.
public struct GestureExpectation: Sendable, Equatable, CustomStringConvertible {
    /// The transition's name in the config.
    public var transition: String
    public var decision: Decision
    public var reason: EndReason
    /// The progress at release (the `ended` event's).
    public var progress: Double
    /// The effective tolerance: the gesture's own, else the file's.
    public var tolerance: Double
    /// A snap transition's resting point (the `ended` event's target); nil
    /// leaves it unchecked, as in files written before targets were.
    public var target: Double?

    public init(transition: String, decision: Decision, reason: EndReason, progress: Double, tolerance: Double,
                target: Double? = nil) {
        self.transition = transition
        self.decision = decision
        self.reason = reason
        self.progress = progress
        self.tolerance = tolerance
        self.target = target
    }

    /// `back finish (released) at 0.66 ± 0.01`; `drawer snap (released) at 0.43 ± 0.01 → 0.5`.
    public var description: String {
        "\(transition) \(decision.rawValue) (\(reason.rawValue)) at "
            + ExpectationNumber.text(progress, decimals: 6) + " ± " + ExpectationNumber.text(tolerance, decimals: 6)
            + GestureOutcome.targetText(target)
    }
}

/// How a gesture of a run ended: one `ended` event.
public struct GestureOutcome: Sendable, Equatable, CustomStringConvertible {
    public var transition: String
    public var decision: Decision
    public var reason: EndReason
    /// The `ended` event's progress.
    public var progress: Double
    /// The `ended` event's target: where a transition with snap points comes
    /// to rest; nil for one that finishes or cancels.
    public var target: Double?

    public init(transition: String, decision: Decision, reason: EndReason, progress: Double, target: Double? = nil) {
        self.transition = transition
        self.decision = decision
        self.reason = reason
        self.progress = progress
        self.target = target
    }

    /// `back cancel (released) at 0.41`, the progress to 4 decimals;
    /// `drawer snap (released) at 0.43 → 0.5` with a target.
    public var description: String { text(decimals: ExpectationFile.writtenDecimals) }

    func text(decimals: Int) -> String {
        "\(transition) \(decision.rawValue) (\(reason.rawValue)) at " + ExpectationNumber.text(progress, decimals: decimals)
            + Self.targetText(target)
    }

    /// ` → 0.5` for a target (six decimals at most, as the wire writes it), nothing without.
    static func targetText(_ target: Double?) -> String {
        target.map { " → " + ExpectationNumber.text($0, decimals: 6) } ?? ""
    }

    /// The outcome of every `ended` event among `events`, in order;
    /// `names` are the configuration's transition names, by index.
    public static func outcomes(of events: [TransitionEvent], names: [String]) -> [GestureOutcome] {
        var outcomes: [GestureOutcome] = []
        for event in events where event.kind == .ended {
            // The engine gives every `ended` event both; there is no outcome without them.
            guard let decision = event.decision, let reason = event.reason,
                  names.indices.contains(event.transition) else { continue }
            outcomes.append(GestureOutcome(transition: names[event.transition], decision: decision,
                                           reason: reason, progress: event.progress, target: event.target))
        }
        return outcomes
    }
}
