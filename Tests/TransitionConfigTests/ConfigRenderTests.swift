import Testing
@testable import TransitionConfig
import TransitionEngine

private func roundTrip(_ config: EngineConfiguration, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = ConfigLoader.render(config)
    let reread = try ConfigLoader.parse(text: text, file: "rendered.toml")
    #expect(reread == config, "\(text)", sourceLocation: sourceLocation)
}

@Test func theStandardConfigRoundTrips() throws {
    try roundTrip(.standard)
}

@Test func everyGestureAndCurveRoundTrips() throws {
    let config = EngineConfiguration(frameRate: 144.5, transitions: [
        TransitionSpec(name: "a", gesture: .edgePan(edge: .top, fingers: 4, edgeMargin: 0.125),
                       activation: 0, distance: 0.1 + 0.2, finishThreshold: 1, flickVelocity: 1e-7,
                       duration: 60, completionSpeed: 100, completionCurve: .spring(dampingRatio: 0.3, stiffness: 1e5),
                       interruptible: false,
                       keyframes: [
                           KeyframeTrack(property: "x", start: 0.1, duration: 0.9, from: -1e300, to: 1 / 3, curve: .easeIn),
                           KeyframeTrack(property: "y.z", start: 1.0 / 3, duration: 2.0 / 3, curve: .easeOut),
                       ]),
        TransitionSpec(name: "b", gesture: .swipe(direction: .down, fingers: 10), completionCurve: .timing(.linear)),
        TransitionSpec(name: "c", gesture: .pinch(direction: .in), completionCurve: .timing(.easeInOut)),
        TransitionSpec(name: "d", gesture: .pinch(direction: .out)),
    ])
    try roundTrip(config)
}

@Test func renderWritesEveryKeyWithDefaultsFilledIn() throws {
    let config = try parseValid(Fixture.edgePan + "[[transition.keyframe]]\nproperty = \"p\"\nstart = 0.5\n")
    let text = ConfigLoader.render(config)
    for line in [
        "frame_rate = 60.0", "[[transition]]", "name = \"t\"", "gesture = \"edge-pan\"", "edge = \"left\"",
        "fingers = 1", "edge_margin = 0.05", "activation = 0.02", "distance = 1.0", "finish_threshold = 0.5",
        "flick_velocity = 1.0", "duration = 0.4", "completion_speed = 1.0", "completion_curve = \"ease-out\"",
        "interruptible = true", "  [[transition.keyframe]]", "  property = \"p\"", "  start = 0.5",
        "  duration = 0.5", "  from = 0.0", "  to = 1.0", "  curve = \"linear\"",
    ] {
        #expect(text.contains(line), "missing \(line) in\n\(text)")
    }
    #expect(!text.contains("damping_ratio"))
    #expect(!text.contains("direction"))
    #expect(text.contains("# edge-pan | swipe | pinch"))
    #expect(text.contains("# > 0 and <= 10"))
}

@Test func renderWritesSpringKeysOnlyForSprings() throws {
    let text = ConfigLoader.render(try parseValid(Fixture.spring))
    #expect(text.contains("completion_curve = \"spring\""))
    #expect(text.contains("damping_ratio = 1.0"))
    #expect(text.contains("stiffness = 300.0"))
}

@Test func renderQuotesAndEscapesStrings() throws {
    var config = EngineConfiguration.standard
    config.transitions[0].name = "we\"ird\\name\n"
    let text = ConfigLoader.render(config)
    #expect(text.contains(#"name = "we\"ird\\name\n""#))
    // Such a name is not allowed in a file, but the text is still valid TOML.
    expectError(text, line: 5, key: "transition[1].name", "must contain only letters")
}
