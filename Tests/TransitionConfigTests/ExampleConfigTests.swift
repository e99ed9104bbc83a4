import TestSupport
import Testing
@testable import TransitionConfig
import Engine

private let examplePath = ProjectPaths.file("config/example.toml")

@Test func theExampleHasTheFourRecordedTransitions() throws {
    let config = try ConfigLoader.load(path: examplePath)
    #expect(config.frameRate == 60)
    #expect(config.transitions.map(\.name) == ["back", "forward", "overview", "close"])

    let back = config.transitions[0]
    #expect(back.gesture == .edgePan(edge: .left, fingers: 1, edgeMargin: 0.05))
    #expect(back.completionCurve == .timing(.easeOut))
    #expect(back.keyframes == [
        KeyframeTrack(property: "dim", start: 0, duration: 0.5, from: 1, to: 0, curve: .linear),
        KeyframeTrack(property: "shift", start: 0, duration: 1, from: 0, to: 1, curve: .linear),
    ])
    #expect(back == TransitionSpec(name: "back", gesture: back.gesture, keyframes: back.keyframes))

    let forward = config.transitions[1]
    #expect(forward.gesture == .edgePan(edge: .right, fingers: 1, edgeMargin: 0.05))
    #expect(forward.completionCurve == .spring(dampingRatio: 0.8, stiffness: 300))

    let overview = config.transitions[2]
    #expect(overview.gesture == .swipe(direction: .up, fingers: 3))
    #expect(overview.completionCurve == .timing(.easeInOut))

    let close = config.transitions[3]
    #expect(close.gesture == .pinch(direction: .in))
    #expect(close.completionCurve == .timing(.linear))
    #expect(close.distance == 0.5)
}

@Test func theExampleShowsEveryKey() throws {
    let text = try ConfigFile.read(path: examplePath)
    var keys = ConfigSchema.root.keyNames + TransitionKeys.table.schema.keyNames + KeyframeKeys.table.schema.keyNames
    keys.removeAll { key in text.split(separator: "\n").contains { $0.drop(while: { $0 == " " }).hasPrefix(key + " = ") } }
    // The lengths in millimetres are shown commented out: each replaces its
    // key in screen units, and the example's recordings vary in resolution.
    keys.removeAll { key in key.hasSuffix("_mm") && text.contains("# \(key) = ") }
    // So are the snap points' keys: they would turn "back" into a transition that rests.
    let snapKeys = [TransitionKeys.snapPoints.name, TransitionKeys.pages.name, TransitionKeys.bidirectional.name,
                    TransitionKeys.longSwipes.name, TransitionKeys.decelerationRate.name, TransitionKeys.overshoot.name]
    keys.removeAll { key in snapKeys.contains(key) && text.contains("# \(key) = ") }
    #expect(keys.isEmpty, "not shown: \(keys)")
}

@Test func theExampleHasTheServerSettingsItShows() throws {
    let config = try ConfigLoader.loadDaemon(path: examplePath)
    #expect(config.server == ServerSettings(socketPath: nil, socketMode: 0o660, maxClients: 256,
                                            backlogLimit: 1_048_576, allowUIDs: [1000],
                                            allowGroups: [.name("kiosk")], webSocket: nil,
                                            allowOrigins: ["http://localhost:3000"]))
    // [server] changes nothing of the engine's part.
    #expect(config.engine == (try ConfigLoader.load(path: examplePath)))
    #expect(try ConfigLoader.parseDaemon(text: ConfigLoader.render(config), file: "rendered.toml") == config)
}

@Test func theExampleShowsEveryServerKey() throws {
    let lines = try ConfigFile.read(path: examplePath).split(separator: "\n").map { $0.drop(while: { $0 == " " }) }
    #expect(lines.contains("[server]"))
    for key in ServerKeys.table.schema.keyNames {
        // `socket`, `websocket` and `max_clients_per_peer` are shown
        // commented out: the daemon picks a path unless told, serves no
        // WebSocket unless asked, and derives the per-peer limit from each
        // transport's.
        let commented = key == "socket" || key == "websocket" || key == "max_clients_per_peer"
        let shown = lines.contains { $0.hasPrefix(key + " = ") || (commented && $0.hasPrefix("# \(key) = ")) }
        #expect(shown, "not shown: \(key)")
    }
}

@Test func theExampleShowsEveryMetricsKey() throws {
    let lines = try ConfigFile.read(path: examplePath).split(separator: "\n").map { $0.drop(while: { $0 == " " }) }
    #expect(lines.contains("[metrics]"))
    for key in MetricsKeys.table.schema.keyNames {
        // `listen` is shown commented out: metrics get no listener of their own unless asked.
        let shown = lines.contains { $0.hasPrefix(key + " = ") || (key == "listen" && $0.hasPrefix("# \(key) = \"")) }
        #expect(shown, "not shown: \(key)")
    }
    #expect(try ConfigLoader.loadDaemon(path: examplePath).metrics == .standard)
}

@Test func theExampleRoundTripsThroughRender() throws {
    let config = try ConfigLoader.load(path: examplePath)
    #expect(try ConfigLoader.parse(text: ConfigLoader.render(config), file: "rendered.toml") == config)
    // Every section, through the declared keys only.
    try expectDeclaredKeysRoundTrip(try ConfigLoader.loadDaemon(path: examplePath))
}

@Test func theExampleReadsTheSameWithCrlfLineEnds() throws {
    let text = try ConfigFile.read(path: examplePath)
    let crlf = text.replacing("\n", with: "\r\n")
    #expect(try ConfigLoader.parse(text: crlf, file: "crlf.toml") == (try ConfigLoader.load(path: examplePath)))
    #expect(try ConfigLoader.parseDaemon(text: crlf, file: "crlf.toml") == (try ConfigLoader.loadDaemon(path: examplePath)))
}

@Test func unreadableFilesHaveNoLine() {
    do {
        _ = try ConfigLoader.load(path: "/nonexistent/transitiond.toml")
        Issue.record("expected an error")
    } catch let error as ConfigError {
        #expect(error.file == "/nonexistent/transitiond.toml")
        #expect(error.line == nil)
        #expect(error.description.hasPrefix("/nonexistent/transitiond.toml: cannot read the file"))
    } catch {
        Issue.record("not a ConfigError: \(error)")
    }
}

@Test func invalidUtf8NamesItsLine() {
    var bytes = Array("a = 1\nb = \"".utf8)
    bytes += [0xFF, 0x22, 0x0A]
    do {
        _ = try ConfigFile.decode(bytes, file: "bin.toml")
        Issue.record("expected an error")
    } catch {
        #expect(error.line == 2)
        #expect(error.message.contains("not valid UTF-8"))
    }
}
