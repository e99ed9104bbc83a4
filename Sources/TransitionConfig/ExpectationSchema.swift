import TransitionEngine

/// The keys of an expectation file (`transitiond verify --expect FILE`), in
/// the vocabulary of `ConfigSchema`: the same validator checks them, so
/// errors, unknown-key suggestions and required keys read as the config's do.
enum ExpectationSchema {
    /// Every decision, for the `decision` key.
    static let decisions: [Decision] = [.finish, .cancel]
    /// Every end reason, for the `reason` key.
    static let reasons: [EndReason] = [.released, .deviceLost, .clientLost, .command, .shutdown]

    /// Keeps `decisions` and `reasons` complete: a new case of either makes
    /// this switch fail to compile until it is listed above (never called).
    private static func mustBeListed(_ decision: Decision, _ reason: EndReason) {
        switch decision {
        case .finish, .cancel: break
        }
        switch reason {
        case .released, .deviceLost, .clientLost, .command, .shutdown: break
        }
    }

    /// `x >= 0`.
    static let tolerance = ValueKind.number(NumberRange(lower: .inclusive(0), upper: .inclusive(1)))

    static let root = SectionSchema(
        header: "the top level",
        keys: [
            KeySpec("tolerance", tolerance, default: .value(.number(ExpectationFile.defaultTolerance)),
                    summary: "default for every gesture: |progress - expected| <= tolerance"),
        ],
        children: [
            ChildSection(name: "recording", shape: .arrayOfTables, schema: recording),
        ]
    )

    static let recording = SectionSchema(
        header: "[[recording]]",
        keys: [
            // Not empty: checked by ExpectationReader.
            KeySpec("file", .string(.any), default: .required),
        ],
        children: [
            ChildSection(name: "gesture", shape: .arrayOfTables, schema: gesture),
        ]
    )

    static let gesture = SectionSchema(
        header: "[[recording.gesture]]",
        keys: [
            KeySpec("transition", .string(.identifier), default: .required),
            KeySpec("decision", .choice(decisions.map(\.rawValue)), default: .required),
            KeySpec("reason", .choice(reasons.map(\.rawValue)), default: .required),
            KeySpec("progress", .number(NumberRange(lower: .inclusive(-10), upper: .inclusive(10))), default: .required),
            KeySpec("tolerance", tolerance, default: .absent),
        ]
    )
}
