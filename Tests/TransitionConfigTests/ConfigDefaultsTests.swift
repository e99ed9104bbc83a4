import Testing
@testable import TransitionConfig
import Engine

@Test func edgePanDefaultsMatchTheDesign() throws {
    let config = try parseValid(Fixture.edgePan)
    #expect(config.frameRate == 60)
    let spec = try #require(config.transitions.first)
    #expect(spec.gesture == .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05))
    #expect(spec.activation == 0.02)
    #expect(spec.distance == 1.0)
    #expect(spec.finishThreshold == 0.5)
    #expect(spec.flickVelocity == 1.0)
    #expect(spec.duration == 0.4)
    #expect(spec.completionSpeed == 1.0)
    #expect(spec.completionCurve == .timing(.easeOut))
    #expect(spec.interruptible == true)
    #expect(spec.keyframes.isEmpty)
    // The schema's defaults agree with the engine's own.
    #expect(spec == TransitionSpec(name: "t", gesture: .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05)))
}

@Test func swipeDefaultsToThreeFingers() throws {
    let spec = try #require(try parseValid(Fixture.swipe).transitions.first)
    #expect(spec.gesture == .swipe(direction: .up, fingers: 3))
    #expect(spec.distance == 1.0)
}

@Test func pinchDistanceDefaultsByDirection() throws {
    let pinchIn = try #require(try parseValid(Fixture.pinchIn).transitions.first)
    #expect(pinchIn.gesture == .pinch(direction: .in))
    #expect(pinchIn.gesture.fingers == 2)
    #expect(pinchIn.distance == 0.5)
    let outText = Fixture.pinchIn.replacingDirection(with: "out")
    let pinchOut = try #require(try parseValid(outText).transitions.first)
    #expect(pinchOut.gesture == .pinch(direction: .out))
    #expect(pinchOut.distance == 1.0)
}

@Test func springDefaults() throws {
    let spec = try #require(try parseValid(Fixture.spring).transitions.first)
    #expect(spec.completionCurve == .spring(dampingRatio: 1.0, stiffness: 300))
}

@Test func keyframeDefaults() throws {
    let spec = try #require(try parseValid(Fixture.keyframe + "start = 0.25\n").transitions.first)
    #expect(spec.keyframes == [KeyframeTrack(property: "p", start: 0.25, duration: 0.75, from: 0, to: 1, curve: .linear)])
    let plain = try #require(try parseValid(Fixture.keyframe).transitions.first)
    #expect(plain.keyframes == [KeyframeTrack(property: "p")])
}

@Test func givenValuesReachTheirFields() throws {
    let text = """
        frame_rate = 120
        [[transition]]
        name = "all.keys-1"
        gesture = "edge-pan"
        edge = "bottom"
        fingers = 2
        edge_margin = 0.1
        activation = 0.03
        distance = 0.75
        finish_threshold = 0.6
        flick_velocity = 2
        duration = 0.5
        completion_speed = 1.5
        completion_curve = "spring"
        damping_ratio = 0.7
        stiffness = 250
        interruptible = false
        [[transition.keyframe]]
        property = "k"
        start = 0.1
        duration = 0.2
        from = -3
        to = 4.5
        curve = "ease-in-out"
        """
    let config = try parseValid(text)
    #expect(config == EngineConfiguration(frameRate: 120, transitions: [
        TransitionSpec(name: "all.keys-1", gesture: .edgePan(edge: .bottom, fingers: 2, edgeMargin: 0.1),
                       activation: 0.03, distance: 0.75, finishThreshold: 0.6, flickVelocity: 2,
                       duration: 0.5, completionSpeed: 1.5,
                       completionCurve: .spring(dampingRatio: 0.7, stiffness: 250), interruptible: false,
                       keyframes: [KeyframeTrack(property: "k", start: 0.1, duration: 0.2, from: -3, to: 4.5,
                                                 curve: .easeInOut)]),
    ]))
}

@Test func integersAreAcceptedWhereFloatsAreExpected() throws {
    let spec = try #require(try parseValid(Fixture.edgePan + "distance = 2\nduration = 1\n").transitions.first)
    #expect(spec.distance == 2.0)
    #expect(spec.duration == 1.0)
}

@Test func transitionsKeepFileOrder() throws {
    let text = Fixture.edgePan + "[[transition]]\nname = \"u\"\ngesture = \"swipe\"\ndirection = \"left\"\n"
    #expect(try parseValid(text).transitions.map(\.name) == ["t", "u"])
}

extension String {
    /// The pinch fixture with another direction.
    func replacingDirection(with direction: String) -> String {
        split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("direction") ? "direction = \"\(direction)\"" : String($0) }
            .joined(separator: "\n")
    }
}
