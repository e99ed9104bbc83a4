import Engine

/// The keys of an expectation file (`transitiond verify --expect FILE`), in
/// the vocabulary of `ConfigSchema`: each key declared once, typed; the same
/// validator checks them, so errors, unknown-key suggestions and required
/// keys read as the config's do, and `ExpectationReader` and
/// `ExpectationRenderer` read and write through the same declarations.
enum ExpectationSchema {
    /// Every decision, for the `decision` key.
    static let decisions: [Decision] = [.finish, .cancel, .snap]
    /// Every end reason, for the `reason` key.
    static let reasons: [EndReason] = [.released, .deviceLost, .clientLost, .command, .shutdown, .reload, .palm, .stuck]

    /// Keeps `decisions` and `reasons` complete: a new case of either makes
    /// this switch fail to compile until it is listed above (never called).
    private static func mustBeListed(_ decision: Decision, _ reason: EndReason) {
        switch decision {
        case .finish, .cancel, .snap: break
        }
        switch reason {
        case .released, .deviceLost, .clientLost, .command, .shutdown, .reload, .palm, .stuck: break
        }
    }

    /// `0 <= x <= 1`.
    static let tolerance = ValueCodec<Double>.number(NumberRange(lower: .inclusive(0), upper: .inclusive(1)))

    static let root = SectionSchema(
        header: "the top level",
        keys: [ExpectationKeys.tolerance.spec],
        children: [RecordingKeys.table]
    )
}

// MARK: - Top level

/// The keys of an expectation file's top level.
enum ExpectationKeys {
    static let tolerance = ConfigKey<Double>(
        "tolerance", ExpectationSchema.tolerance, default: .value(ExpectationFile.defaultTolerance),
        summary: "default for every gesture: |progress - expected| <= tolerance")
}

// MARK: - [[recording]]

/// The keys of a `[[recording]]`: the recording replayed.
enum RecordingKeys {
    static let table = ChildSection(tableName, .arrayOfTables, keys: [file], children: [ExpectedGestureKeys.table])
    /// The name `[[recording.gesture]]` is nested under.
    static let tableName = "recording"

    // Not empty: checked by ExpectationReader.
    static let file = ConfigKey<String>("file", .string(.any), default: .required)
}

// MARK: - [[recording.gesture]]

/// The keys of a `[[recording.gesture]]`: how one gesture of the recording must end.
enum ExpectedGestureKeys {
    static let table = ChildSection("gesture", .arrayOfTables, under: RecordingKeys.tableName,
                                    keys: [transition, decision, reason, progress, tolerance, target])

    static let transition = ConfigKey<String>("transition", .string(.identifier), default: .required)
    static let decision = ConfigKey<Decision>("decision", .choice(of: ExpectationSchema.decisions), default: .required)
    static let reason = ConfigKey<EndReason>("reason", .choice(of: ExpectationSchema.reasons), default: .required)
    static let progress = ConfigKey<Double>(
        "progress", .number(NumberRange(lower: .inclusive(-10), upper: .inclusive(10))), default: .required)
    /// The file's `tolerance` when absent.
    static let tolerance = ConfigKey<Double?>(ExpectationKeys.tolerance.name, ExpectationSchema.tolerance)
    /// A snap transition's resting point; unchecked when absent.
    static let target = ConfigKey<Double?>(
        "target", .number(NumberRange(lower: .inclusive(-10), upper: .inclusive(10))),
        summary: "snap transitions: the point it comes to rest on (the ended event's target)")
}
