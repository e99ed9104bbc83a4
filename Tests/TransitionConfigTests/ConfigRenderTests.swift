import Testing
@testable import TransitionConfig
import Engine

private func roundTrip(_ config: EngineConfiguration, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = ConfigLoader.render(config)
    let reread = try ConfigLoader.parse(text: text, file: "rendered.toml")
    #expect(reread == config, "\(text)", sourceLocation: sourceLocation)
}

@Test func theStandardConfigRoundTrips() throws {
    try roundTrip(.standard)
    // Every section, through the declared keys only.
    try expectDeclaredKeysRoundTrip(.standard)
}

/// A config that gives every key of every section (each gesture, the
/// lengths in millimetres and in screen units, a spring, every optional
/// key), mostly with values other than the defaults.
private let everyKey = """
frame_rate = 120
[[transition]]
name = "a"
gesture = "edge-pan"
edge = "top"
fingers = 2
edge_margin_mm = 4.5
edge_range = [0.25, 0.75]
activation_mm = 2
distance_mm = 40
finish_threshold = 0.3
flick_velocity = 2
duration = 0.5
completion_speed = 2
completion_curve = "spring"
damping_ratio = 0.7
stiffness = 200
interruptible = false
report_position = true
enabled = false
device = "/dev/input/event3"
  [[transition.keyframe]]
  property = "x"
  start = 0.25
  duration = 0.5
  from = -1
  to = 2
  curve = "ease-in"
[[transition]]
name = "b"
gesture = "swipe"
direction = "left"
fingers = 4
activation = 0.1
distance = 0.7
snap_points = [0, 0.3, 1]
bidirectional = true
long_swipes = true
deceleration_rate = 0.99
overshoot = "rubber-band"
[[transition]]
name = "c"
gesture = "pinch"
direction = "out"
pages = 4
[[transition]]
name = "d"
gesture = "edge-pan"
edge = "right"
edge_margin = 0.1
device = "Panel name"
[server]
socket = "/tmp/x.sock"
socket_mode = "600"
max_clients = 3
backlog_limit = 8192
allow_uids = [0, 1000]
allow_groups = ["wheel", 12]
websocket = "[::1]:8080"
allow_origins = ["*", "null"]
max_websocket_clients = 5
max_clients_per_peer = 2
[input]
device = ["/dev/input/event1", "/dev/input/event2"]
mode = "filter"
filter_hold = 0.1
flight_recorder = 0
flight_recorder_bytes = 65536
rotation = 90
flip_x = true
flip_y = true
calibration = [1, 0, 0, 0, 1, 0]
max_edge_exclusion = 0.3
min_report_rate = 30
[filter]
max_contacts = 1
block = ["swipe-2", "pinch"]
ghost_touches = "quarantine"
stuck_after = 60
palm_mm = 40
transform = true
  [[filter.region]]
  x = [0, 0.25]
  y = [0.5, 1]
  max_contacts = 2
  block = []
  [[filter.region]]
  x = [0.75, 1]
  y = [0, 1]
[metrics]
listen = "127.0.0.1:9464"
[identity]
kiosk = "lobby-3"
site = "hbf"
labels = { floor = "2" }

"""

@Test func theRendererWritesEveryDeclaredKeyAndOnlyThose() throws {
    let written = try expectDeclaredKeysRoundTrip(try parseDaemonValid(everyKey))
    var declared: Set<String> = []
    for (path, schema) in allSections(of: ConfigSchema.root) {
        for name in schema.keyNames { declared.insert(path + "." + name) }
    }
    #expect(written == declared, "not written: \(declared.subtracting(written).sorted())")
}

@Test func everyGestureAndCurveRoundTrips() throws {
    let config = EngineConfiguration(frameRate: 144.5, transitions: [
        TransitionSpec(name: "a", gesture: .edgePan(edge: .top, fingers: 4, edgeMargin: 0.125),
                       activation: 0, distance: 0.1 + 0.2, finishThreshold: 1, flickVelocity: 1e-7,
                       duration: 60, completionSpeed: 100, completionCurve: .spring(dampingRatio: 0.3, stiffness: 1e5),
                       interruptible: false,
                       keyframes: [
                           KeyframeTrack(property: "x", start: 0.1, duration: 0.9, from: -1e9, to: 1 / 3, curve: .easeIn),
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
