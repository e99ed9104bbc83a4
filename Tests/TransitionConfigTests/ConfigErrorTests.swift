import Testing
@testable import TransitionConfig
import Engine

// MARK: - Error text

@Test func descriptionHasFileLineKeyAndWhatWasFound() {
    let error = parseError(Fixture.edgePan.replacing("\"left\"", with: "\"lft\""), file: "kiosk.toml")
    #expect(error?.description == "kiosk.toml:4: key 'transition[1].edge': must be one of left, right, top, bottom (got \"lft\")")
}

@Test func descriptionLeavesOutWhatIsUnknown() {
    #expect(ConfigError(file: "a.toml", line: 3, message: "bad").description == "a.toml:3: bad")
    #expect(ConfigError(file: "a.toml", line: nil, message: "cannot read").description == "a.toml: cannot read")
}

// MARK: - Types

@Test func wrongTypesNameExpectedAndFound() {
    expectError(Fixture.edgePan + "distance = \"far\"\n", line: 5, key: "transition[1].distance",
                "expected a number, found a string (got \"far\")")
    expectError(Fixture.edgePan + "fingers = 1.5\n", line: 5, key: "transition[1].fingers",
                "expected an integer, found a float (got 1.5)")
    expectError(Fixture.edgePan + "interruptible = \"yes\"\n", line: 5, key: "transition[1].interruptible",
                "expected a boolean (true or false), found a string")
    expectError("[[transition]]\nname = 5\n", line: 2, key: "transition[1].name",
                "expected a string, found an integer (got 5)")
    expectError("frame_rate = [60]\n" + Fixture.edgePan, line: 1, key: "frame_rate",
                "expected a number, found an array (got [60])")
    expectError("[frame_rate]\n" + Fixture.edgePan, line: 1, key: "frame_rate",
                "expected a number, found a table")
    expectError(Fixture.edgePan + "completion_curve = true\n", line: 5, key: "transition[1].completion_curve",
                "expected a string, found a boolean (got true)")
}

@Test func transitionsMustBeAnArrayOfTables() {
    expectError("[transition]\nname = \"t\"\n", line: 1, key: "transition",
                "must be written as [[transition]] tables, found a table")
    expectError("transition = 1\n", line: 1, key: "transition",
                "must be written as [[transition]] tables, found an integer (got 1)")
    expectError(Fixture.edgePan + "[transition.keyframe]\nproperty = \"p\"\n", line: 5, key: "transition[1].keyframe",
                "must be written as [[transition.keyframe]] tables, found a table")
}

// MARK: - Choices and names

@Test func choicesListTheirValues() {
    expectError("[[transition]]\nname = \"t\"\ngesture = \"tap\"\n", line: 3, key: "transition[1].gesture",
                "must be one of edge-pan, swipe, pinch (got \"tap\")")
    expectError(Fixture.pinchIn.replacingDirection(with: "up"), line: 4, key: "transition[1].direction",
                "must be one of in, out (got \"up\")")
    expectError(Fixture.swipe.replacingDirection(with: "in"), line: 4, key: "transition[1].direction",
                "must be one of left, right, up, down (got \"in\")")
    expectError(Fixture.edgePan + "completion_curve = \"bounce\"\n", line: 5, key: "transition[1].completion_curve",
                "must be one of linear, ease-in, ease-out, ease-in-out, spring")
    expectError(Fixture.keyframe + "curve = \"spring\"\n", line: 7, key: "transition[1].keyframe[1].curve",
                "must be one of linear, ease-in, ease-out, ease-in-out (got \"spring\")")
}

@Test func namesMustBeNonEmptyIdentifiers() throws {
    expectError("[[transition]]\nname = \"\"\n", line: 2, key: "transition[1].name", "must not be empty")
    expectError("[[transition]]\nname = \"go back\"\n", line: 2, key: "transition[1].name",
                "must contain only letters, digits, '_', '.' and '-' (got \"go back\")")
    expectError(Fixture.keyframe.replacing("\"p\"", with: "\"a\\\"b\""), line: 6,
                key: "transition[1].keyframe[1].property", "must contain only letters")
    _ = try parseValid(Fixture.edgePan.replacing("\"t\"", with: "\"Back_2.left-edge\""))
}

// MARK: - Unknown keys

@Test func unknownKeysSuggestTheClosestKnownKey() {
    expectError(Fixture.edgePan + "edge_margn = 0.1\n", line: 5, key: "transition[1].edge_margn",
                "unknown key; did you mean 'edge_margin'?")
    expectError(Fixture.edgePan + "fingres = 1\n", line: 5, key: "transition[1].fingres", "did you mean 'fingers'?")
    expectError("framerate = 30\n" + Fixture.edgePan, line: 1, key: "framerate", "did you mean 'frame_rate'?")
    expectError(Fixture.keyframe + "curv = \"linear\"\n", line: 7, key: "transition[1].keyframe[1].curv",
                "did you mean 'curve'?")
    expectError("[[transitions]]\nname = \"t\"\n", line: 1, key: "transitions", "did you mean 'transition'?")
    expectError(Fixture.edgePan + "[[transition.keyframes]]\n", line: 5, key: "transition[1].keyframes",
                "did you mean 'keyframe'?")
    expectError(Fixture.edgePan + "Interruptible = true\n", line: 5, key: "transition[1].Interruptible",
                "did you mean 'interruptible'?")
}

@Test func unknownKeysFarFromAnyKnownKeyListTheKnownKeys() {
    guard let error = parseError(Fixture.edgePan + "banana = 1\n") else { return }
    #expect(error.line == 5)
    #expect(error.key == "transition[1].banana")
    #expect(!error.message.contains("did you mean"))
    #expect(error.message.contains("the keys of [[transition]] are name, gesture, edge, direction, fingers"))
    expectError("[client]\nmode = 1\n" + Fixture.edgePan, line: 1, key: "client",
                "unknown key; the keys of the top level are frame_rate, transition, server")
    expectError("[server]\nmode = 1\n" + Fixture.edgePan, line: 2, key: "server.mode",
                "unknown key; the keys of [server] are socket, socket_mode, max_clients, backlog_limit, allow_uids, allow_groups")
}

@Test func suggestionsStopAtTwoEdits() {
    #expect(KeySuggestion.closest(to: "edge_margn", among: ["edge", "edge_margin"]) == "edge_margin")
    #expect(KeySuggestion.closest(to: "dge_mrgn", among: ["edge_margin"]) == nil)
    #expect(KeySuggestion.closest(to: "x", among: ["to"]) == nil)
    #expect(KeySuggestion.editDistance(Array("stiffnes".unicodeScalars), Array("stiffness".unicodeScalars)) == 1)
    #expect(KeySuggestion.editDistance(Array("form".unicodeScalars), Array("from".unicodeScalars)) == 1)
}

// MARK: - Keys that do not apply

@Test func keysThatDoNotBelongToTheGestureAreErrors() {
    expectError(Fixture.swipe + "edge = \"left\"\n", line: 5, key: "transition[1].edge",
                "applies only when gesture is edge-pan (here gesture is \"swipe\")")
    expectError(Fixture.pinchIn + "edge_margin = 0.1\n", line: 5, key: "transition[1].edge_margin",
                "applies only when gesture is edge-pan (here gesture is \"pinch\")")
    expectError(Fixture.edgePan + "direction = \"up\"\n", line: 5, key: "transition[1].direction",
                "applies only when gesture is swipe or pinch (here gesture is \"edge-pan\")")
}

@Test func springKeysWithoutSpringAreErrors() {
    expectError(Fixture.edgePan + "completion_curve = \"ease-in\"\ndamping_ratio = 0.5\n", line: 6,
                key: "transition[1].damping_ratio",
                "applies only when completion_curve is spring (here completion_curve is \"ease-in\")")
    expectError(Fixture.edgePan + "stiffness = 200\n", line: 5, key: "transition[1].stiffness",
                "applies only when completion_curve is spring (here completion_curve is \"ease-out\", the default)")
}

// MARK: - Required keys and whole-file rules

@Test func missingNameOrGestureIsAnError() {
    expectError("[[transition]]\ngesture = \"swipe\"\ndirection = \"up\"\n", line: 1, key: "transition[1].name",
                "required key is missing")
    expectError("[[transition]]\nname = \"t\"\n", line: 1, key: "transition[1].gesture",
                "required key is missing; expected one of edge-pan, swipe, pinch")
    expectError(Fixture.edgePan + "[[transition]]\nname = \"u\"\n", line: 5, key: "transition[2].gesture",
                "required key is missing")
}

@Test func gestureSpecificRequiredKeys() {
    expectError("[[transition]]\nname = \"t\"\ngesture = \"edge-pan\"\n", line: 1, key: "transition[1].edge",
                "required key is missing (gesture is edge-pan); expected one of left, right, top, bottom")
    expectError("[[transition]]\nname = \"t\"\ngesture = \"swipe\"\n", line: 1, key: "transition[1].direction",
                "expected one of left, right, up, down")
    expectError("[[transition]]\nname = \"t\"\ngesture = \"pinch\"\n", line: 1, key: "transition[1].direction",
                "expected one of in, out")
    expectError(Fixture.keyframe.replacing("property = \"p\"\n", with: "start = 0\n"), line: 5,
                key: "transition[1].keyframe[1].property", "required key is missing")
}

@Test func duplicateTransitionNamesAreErrors() {
    expectError(Fixture.edgePan + Fixture.swipe, line: 6, key: "transition[2].name",
                "duplicate transition name (transition[1] on line 2 is also named \"t\")")
}

@Test func duplicateKeyframePropertiesAreErrors() {
    expectError(Fixture.keyframe + "[[transition.keyframe]]\nproperty = \"p\"\n", line: 8,
                key: "transition[1].keyframe[2].property",
                "duplicate keyframe property (transition[1].keyframe[1] on line 6 also animates \"p\")")
    // The same property in two transitions is fine.
    let other = "[[transition]]\nname = \"u\"\ngesture = \"swipe\"\ndirection = \"up\"\n[[transition.keyframe]]\nproperty = \"p\"\n"
    #expect(throws: Never.self) { try ConfigLoader.parse(text: Fixture.keyframe + other, file: "test.toml") }
}

@Test func duplicateKeysAreErrors() {
    expectError(Fixture.edgePan + "name = \"again\"\n", line: 5, key: "transition[1].name",
                "duplicate key (first defined on line 2)")
}

@Test func keyframeBeforeAnyTransitionIsAnError() {
    // TOML 1.0 reads [[transition.keyframe]] on line 3 as making a table
    // `transition`; the [[transition]] on line 5 cannot then be an array.
    expectError("frame_rate = 60\n\n[[transition.keyframe]]\nproperty = \"dim\"\n" + Fixture.edgePan, line: 5,
                key: "transition", "made on line 3 by a header under it (a [[transition.…]] belongs after the [[transition]] it is part of)")
    // With no [[transition]] at all, the schema says what is missing.
    expectError("frame_rate = 60\n\n[[transition.keyframe]]\nproperty = \"dim\"\n", line: 3,
                key: "transition", "must be written as [[transition]] tables, found only the parent of a header under it on line 3, with no [[transition]] before that header")
}

@Test func aConfigNeedsATransition() {
    expectError("", line: 1, key: "transition", "at least one [[transition]]")
    expectError("# only a comment\nframe_rate = 30\n", line: 1, key: "transition", "at least one [[transition]]")
}

@Test func syntaxErrorsSurfaceThroughParse() {
    expectError(Fixture.edgePan + "duration = 0.4.1\n", line: 5, key: "transition[1].duration", "invalid number 0.4.1")
    expectError("[[transition]]\nname = \"back\n", line: 2, key: "transition[1].name", "unterminated string")
    expectError("[[transition]]\nname \"back\"\n", line: 2, key: "transition[1].name", "expected '='")
}

@Test func crlfConfigsParseAndReportLines() throws {
    let crlf = Fixture.edgePan.replacing("\n", with: "\r\n")
    #expect(try parseValid(crlf) == (try parseValid(Fixture.edgePan)))
    expectError(crlf + "fingers = 0\r\n", line: 5, key: "transition[1].fingers", "must be from 1 to 10")
}

// MARK: - Schema extension

@Test func tableChildSectionsAreValidated() throws {
    let mode = ConfigKey<Int>("mode", .integer(0...0o777), default: .value(0o660))
    let schema = SectionSchema(header: "the top level", keys: [], children: [
        ChildSection("server", .table, keys: [mode]),
    ])
    let validator = SchemaValidator(file: "s.toml")
    let given = try validator.validate(try TOMLReader.read("[server]\nmode = 384\n", file: "s.toml"), as: schema)
    #expect(given.children["server"]?.first?[mode] == 384)
    let defaulted = try validator.validate(try TOMLReader.read("[server]\n", file: "s.toml"), as: schema)
    #expect(defaulted.children["server"]?.first?[mode] == 0o660)
    #expect(throws: ConfigError.self) {
        try validator.validate(try TOMLReader.read("[[server]]\n", file: "s.toml"), as: schema)
    }
}
