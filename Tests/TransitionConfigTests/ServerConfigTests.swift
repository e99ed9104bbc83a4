import Testing
@testable import TransitionConfig
import Engine

// The [server] table: defaults, bounds, types, tables, unknown keys, rendering.

extension Fixture {
    /// Lines 1–5 (a transition, then `[server]`); the next key is on line 6.
    static let server = edgePan + "[server]\n"
}

/// Expects `text` to fail on `line`, about `key`, with a message containing
/// `fragment`, both through `parseDaemon` and through the engine-only `parse`.
private func expectServerError(_ text: String, line: Int, key: String?, _ fragment: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
    expectError(text, line: line, key: key, fragment, sourceLocation: sourceLocation)
    do {
        let config = try ConfigLoader.parseDaemon(text: text, file: "test.toml")
        Issue.record("expected a ConfigError, parsed \(config)", sourceLocation: sourceLocation)
    } catch let error as ConfigError {
        #expect(error == parseError(text, sourceLocation: sourceLocation),
                "parse and parseDaemon disagree", sourceLocation: sourceLocation)
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a ConfigError, got \(error)", sourceLocation: sourceLocation)
    }
}

/// A path of `count` bytes: `/` and then `x`s.
private func path(bytes count: Int) -> String { "/" + String(repeating: "x", count: count - 1) }

// MARK: - Defaults

@Test func serverDefaultsMatchTheDesign() throws {
    let standard = ServerSettings.standard
    #expect(standard.socketPath == nil)
    #expect(standard.socketMode == 0o660)
    #expect(standard.maxClients == 256)
    #expect(standard.maxWebSocketClients == 64)
    #expect(standard.maxClientsPerPeer == nil, "all but a quarter of each transport's limit")
    #expect(standard.backlogLimit == 1_048_576)
    #expect(standard.allowUIDs == [])
    #expect(standard.allowGroups == [])
    #expect(ServerSettings() == standard)
    #expect(DaemonConfiguration.standard == DaemonConfiguration(engine: .standard, server: .standard))
}

@Test func noServerTableOrAnEmptyOneGivesTheDefaults() throws {
    let without = try parseDaemonValid(Fixture.edgePan)
    #expect(without.server == .standard)
    #expect(without.engine == (try parseValid(Fixture.edgePan)))
    #expect(try parseDaemonValid(Fixture.server).server == .standard)
    #expect(try parseDaemonValid("[server]\n" + Fixture.edgePan).server == .standard)
}

@Test func givenServerValuesReachTheirFields() throws {
    let text = Fixture.server + """
        socket = "/run/kiosk/t.sock"
        socket_mode = "600"
        max_clients = 8
        backlog_limit = 65_536
        allow_uids = [0, 1000, 4294967294]
        allow_groups = ["kiosk", 27, "_svc.a-b"]
        """
    #expect(try parseDaemonValid(text).server == ServerSettings(
        socketPath: "/run/kiosk/t.sock", socketMode: 0o600, maxClients: 8, backlogLimit: 65_536,
        allowUIDs: [0, 1000, 4_294_967_294], allowGroups: [.name("kiosk"), .id(27), .name("_svc.a-b")]))
}

@Test func theServerTableDoesNotChangeTheEngineConfiguration() throws {
    let withServer = Fixture.server + "max_clients = 3\nallow_groups = [\"video\"]\n"
    #expect(try parseValid(withServer) == (try parseValid(Fixture.edgePan)))
    #expect(try parseDaemonValid(withServer).engine == (try parseValid(Fixture.edgePan)))
    // [server] may come first; the transitions keep their place and order.
    let serverFirst = "frame_rate = 30\n[server]\nmax_clients = 3\n" + Fixture.edgePan
    let config = try parseDaemonValid(serverFirst)
    #expect(config.engine.frameRate == 30)
    #expect(config.engine.transitions.map(\.name) == ["t"])
    #expect(config.server.maxClients == 3)
}

// MARK: - Bounds

/// One `[server]` key: values just inside its range with what they read as,
/// values just outside with a fragment of their error.
struct ServerCase: Sendable, CustomTestStringConvertible {
    var key: String
    var inside: [(text: String, settings: ServerSettings)]
    var outside: [(text: String, fragment: String)]

    var testDescription: String { key }
}

private func with(_ change: (inout ServerSettings) -> Void) -> ServerSettings {
    var settings = ServerSettings.standard
    change(&settings)
    return settings
}

private let serverCases: [ServerCase] = [
    ServerCase(key: "socket", inside: [
        ("\"/a\"", with { $0.socketPath = "/a" }),
        ("\"\(path(bytes: 107))\"", with { $0.socketPath = path(bytes: 107) }),
        ("\"/" + String(repeating: "é", count: 53) + "\"", with { $0.socketPath = "/" + String(repeating: "é", count: 53) }),
        ("'/run/transitiond/transitiond.sock'", with { $0.socketPath = "/run/transitiond/transitiond.sock" }),
    ], outside: [
        ("\"\"", "must not be empty"),
        ("\"run/t.sock\"", "must be an absolute path (starting with '/')"),
        ("\"~/t.sock\"", "must be an absolute path"),
        ("\"\(path(bytes: 108))\"", "must be at most 107 bytes long (this one has 108)"),
        ("\"/" + String(repeating: "é", count: 54) + "\"", "must be at most 107 bytes long (this one has 109)"),
        ("\"/a\\u0000b\"", "must not contain a NUL character"),
    ]),
    ServerCase(key: "socket_mode", inside: [
        ("\"0660\"", with { $0.socketMode = 0o660 }),
        ("\"660\"", with { $0.socketMode = 0o660 }),
        ("\"0600\"", with { $0.socketMode = 0o600 }),
        ("\"600\"", with { $0.socketMode = 0o600 }),
        ("\"0700\"", with { $0.socketMode = 0o700 }),
        ("\"0666\"", with { $0.socketMode = 0o666 }),
        ("\"0777\"", with { $0.socketMode = 0o777 }),
        ("'0640'", with { $0.socketMode = 0o640 }),
    ], outside: [
        ("\"0400\"", "must include \"0600\", or the daemon could not use its own socket"),
        ("\"0200\"", "the daemon could not use its own socket"),
        ("\"0500\"", "the daemon could not use its own socket"),
        ("\"0066\"", "the daemon could not use its own socket"),
        ("\"0860\"", "must be 3 or 4 octal digits (0-7), like \"0660\""),
        ("\"1660\"", "must be at most \"0777\" (no setuid, setgid or sticky bits)"),
        ("\"4777\"", "must be at most \"0777\""),
        ("\"06600\"", "must be 3 or 4 octal digits"),
        ("\"66\"", "must be 3 or 4 octal digits"),
        ("\"\"", "must be 3 or 4 octal digits"),
        ("\"0o660\"", "must be 3 or 4 octal digits"),
        ("\" 660\"", "must be 3 or 4 octal digits"),
        ("\"rw-rw----\"", "must be 3 or 4 octal digits"),
    ]),
    ServerCase(key: "max_websocket_clients", inside: [
        ("1", with { $0.maxWebSocketClients = 1 }),
        ("65536", with { $0.maxWebSocketClients = 65_536 }),
    ], outside: [
        ("0", "must be from 1 to 65536"),
        ("65537", "must be from 1 to 65536"),
    ]),
    ServerCase(key: "max_clients_per_peer", inside: [
        ("1", with { $0.maxClientsPerPeer = 1 }),
        ("65536", with { $0.maxClientsPerPeer = 65_536 }),
    ], outside: [
        ("0", "must be from 1 to 65536"),
        ("65537", "must be from 1 to 65536"),
        ("-1", "must be from 1 to 65536"),
    ]),
    ServerCase(key: "max_clients", inside: [
        ("1", with { $0.maxClients = 1 }),
        ("65536", with { $0.maxClients = 65_536 }),
        ("65_536", with { $0.maxClients = 65_536 }),
    ], outside: [
        ("0", "must be from 1 to 65536"),
        ("65537", "must be from 1 to 65536"),
        ("-1", "must be from 1 to 65536"),
    ]),
    ServerCase(key: "backlog_limit", inside: [
        ("4096", with { $0.backlogLimit = 4_096 }),
        ("1073741824", with { $0.backlogLimit = 1_073_741_824 }),
        ("1_048_576", with { $0.backlogLimit = 1_048_576 }),
    ], outside: [
        ("4095", "must be from 4096 to 1073741824"),
        ("1073741825", "must be from 4096 to 1073741824"),
        ("0", "must be from 4096 to 1073741824"),
    ]),
    ServerCase(key: "allow_uids", inside: [
        ("[]", with { $0.allowUIDs = [] }),
        ("[0]", with { $0.allowUIDs = [0] }),
        ("[4294967294]", with { $0.allowUIDs = [4_294_967_294] }),
        ("[1000, 1001, ]", with { $0.allowUIDs = [1000, 1001] }),
        ("[ 0,4294967294 ]", with { $0.allowUIDs = [0, 4_294_967_294] }),
    ], outside: [
        ("[-1]", "item 1: must be from 0 to 4294967294 (got -1)"),
        ("[4294967295]", "item 1: must be from 0 to 4294967294 (got 4294967295)"),
        ("[1000, 4294967295]", "item 2: must be from 0 to 4294967294 (got 4294967295)"),
    ]),
    ServerCase(key: "allow_groups", inside: [
        ("[]", with { $0.allowGroups = [] }),
        ("[\"kiosk\"]", with { $0.allowGroups = [.name("kiosk")] }),
        ("[\"_\"]", with { $0.allowGroups = [.name("_")] }),
        ("[\"A\"]", with { $0.allowGroups = [.name("A")] }),
        ("[\"a.b-c_9\"]", with { $0.allowGroups = [.name("a.b-c_9")] }),
        ("[0]", with { $0.allowGroups = [.id(0)] }),
        ("[4294967294]", with { $0.allowGroups = [.id(4_294_967_294)] }),
        ("[\"wheel\", 10, 'video']", with { $0.allowGroups = [.name("wheel"), .id(10), .name("video")] }),
    ], outside: [
        ("[\"\"]", "item 1: must not be empty"),
        ("[\"9lives\"]", "item 1: must be a group name: a letter or '_', then letters, digits"),
        ("[\"-x\"]", "item 1: must be a group name"),
        ("[\".x\"]", "item 1: must be a group name"),
        ("[\"a b\"]", "item 1: must be a group name"),
        ("[\"kiosk\", \"é\"]", "item 2: must be a group name"),
        ("[\"kiosk\", -1]", "item 2: must be from 0 to 4294967294 (got -1)"),
        ("[4294967295]", "item 1: must be from 0 to 4294967294 (got 4294967295)"),
    ]),
    ServerCase(key: "websocket", inside: [
        ("\"127.0.0.1:8765\"", with { $0.webSocket = ListenAddress(host: "127.0.0.1", port: 8765) }),
        ("\"localhost:0\"", with { $0.webSocket = ListenAddress(host: "127.0.0.1", port: 0) }),
        ("\"0.0.0.0:65535\"", with { $0.webSocket = ListenAddress(host: "0.0.0.0", port: 65_535) }),
        ("\"[::1]:8765\"", with { $0.webSocket = ListenAddress(host: "::1", port: 8765, isIPv6: true) }),
    ], outside: [
        ("\"8765\"", "must be HOST:PORT"),
        ("\"127.0.0.1:65536\"", "must end with a port from 0 to 65535"),
        ("\"127.0.0.1:\"", "must end with a port from 0 to 65535"),
        ("\"127.0.0.1:-1\"", "must end with a port from 0 to 65535"),
        ("\"127.0.0.1:80x\"", "must end with a port from 0 to 65535"),
        ("\"kiosk.local:8765\"", "'kiosk.local' is not an IPv4 address"),
        ("\"::1:8765\"", "must write an IPv6 address in brackets"),
        ("\"[::1]8765\"", "must give a port after the address"),
        ("\"[::1:8765\"", "must close its IPv6 address with ']'"),
        ("\"[nope]:8765\"", "'nope' is not an IPv6 address"),
        ("\"256.0.0.1:1\"", "'256.0.0.1' is not an IPv4 address"),
    ]),
    ServerCase(key: "allow_origins", inside: [
        ("[]", with { $0.allowOrigins = [] }),
        ("[\"*\"]", with { $0.allowOrigins = ["*"] }),
        ("[\"null\", \"http://localhost:3000\", \"https://kiosk.example\"]",
         with { $0.allowOrigins = ["null", "http://localhost:3000", "https://kiosk.example"] }),
    ], outside: [
        ("[\"localhost:3000\"]", "item 1: must be an origin like \"http://localhost:3000\""),
        ("[\"http://kiosk.example/\"]", "item 1: must be scheme://host[:port] only: an origin has no path"),
        ("[\"*\", \"http://\"]", "item 2: must name a host after"),
        ("[\"ht tp://x\"]", "item 1: must start with a scheme"),
        ("[\"http://a b\"]", "item 1: must not contain spaces"),
    ]),
]

@Test(arguments: serverCases)
func serverValuesJustInsideTheRangeAreAccepted(_ testCase: ServerCase) throws {
    for (value, expected) in testCase.inside {
        let config = try parseDaemonValid(Fixture.server + "\(testCase.key) = \(value)\n")
        #expect(config.server == expected, "\(testCase.key) = \(value)")
    }
}

@Test(arguments: serverCases)
func serverValuesJustOutsideTheRangeNameLineAndKey(_ testCase: ServerCase) {
    for (value, fragment) in testCase.outside {
        expectServerError(Fixture.server + "\(testCase.key) = \(value)\n", line: 6, key: "server.\(testCase.key)",
                          fragment)
    }
}

/// Issue 26: the WebSocket's limit and the per-peer limit are keys of
/// their own, checked at their line like the others.
@Test func theWebSocketAndPerPeerLimitsAreReadAndCheckedAtTheirLine() throws {
    let config = try parseDaemonValid(Fixture.server + "max_websocket_clients = 8\nmax_clients_per_peer = 2\n")
    #expect(config.server.maxWebSocketClients == 8 && config.server.maxClientsPerPeer == 2)
    #expect(config.server.maxClients == 256)
    expectServerError(Fixture.server + "max_websocket_clients = 0\n", line: 6, key: "server.max_websocket_clients",
                      "must be from 1 to 65536 (got 0)")
    expectServerError(Fixture.server + "max_clients_per_peer = \"4\"\n", line: 6, key: "server.max_clients_per_peer",
                      "expected an integer, found a string")
    #expect(try ConfigLoader.parseDaemon(text: ConfigLoader.render(config), file: "rendered.toml") == config)
}

@Test func serverErrorsQuoteWhatWasFound() {
    expectServerError(Fixture.server + "socket_mode = \"0400\"\n", line: 6, key: "server.socket_mode",
                      "must include \"0600\", or the daemon could not use its own socket (got \"0400\")")
    expectServerError(Fixture.server + "max_clients = 65537\n", line: 6, key: "server.max_clients",
                      "must be from 1 to 65536 (got 65537)")
    expectServerError(Fixture.server + "socket = \"t.sock\"\n", line: 6, key: "server.socket",
                      "must be an absolute path (starting with '/') (got \"t.sock\")")
    expectServerError(Fixture.server + "allow_groups = [\"9lives\"]\n", line: 6, key: "server.allow_groups",
                      "item 1: must be a group name: a letter or '_', then letters, digits, '_', '.' and '-' (got \"9lives\")")
}

@Test func aBadItemOfAMultiLineArrayIsReportedOnItsOwnLine() {
    let text = Fixture.server + "allow_uids = [\n  1000,\n  1001,  # the kiosk user\n  1.5,\n]\n"
    expectServerError(text, line: 9, key: "server.allow_uids", "item 3: expected an integer, found a float (got 1.5)")
    let groups = Fixture.server + "allow_groups = [\n  \"kiosk\",\n  \"bad name\",\n]\n"
    expectServerError(groups, line: 8, key: "server.allow_groups", "item 2: must be a group name")
}

@Test func multiLineArraysAreRead() throws {
    let text = Fixture.server + "allow_uids = [\n  1000,\n  # none here\n  1001,\n]\nallow_groups = [\n  \"a\",\n  2\n]\n"
    let server = try parseDaemonValid(text).server
    #expect(server.allowUIDs == [1000, 1001])
    #expect(server.allowGroups == [.name("a"), .id(2)])
}

// MARK: - Types

@Test func serverKeysOfTheWrongTypeNameExpectedAndFound() {
    expectServerError(Fixture.server + "max_clients = \"256\"\n", line: 6, key: "server.max_clients",
                      "expected an integer, found a string (got \"256\")")
    expectServerError(Fixture.server + "backlog_limit = 1e6\n", line: 6, key: "server.backlog_limit",
                      "expected an integer, found a float (got 1e6)")
    expectServerError(Fixture.server + "backlog_limit = \"1 MiB\"\n", line: 6, key: "server.backlog_limit",
                      "expected an integer, found a string")
    expectServerError(Fixture.server + "socket = 5\n", line: 6, key: "server.socket",
                      "expected a string, found an integer (got 5)")
    expectServerError(Fixture.server + "socket = [\"/a\"]\n", line: 6, key: "server.socket",
                      "expected a string, found an array")
    expectServerError(Fixture.server + "allow_uids = 1000\n", line: 6, key: "server.allow_uids",
                      "expected an array, found an integer (got 1000)")
    expectServerError(Fixture.server + "allow_groups = \"kiosk\"\n", line: 6, key: "server.allow_groups",
                      "expected an array, found a string (got \"kiosk\")")
    expectServerError(Fixture.server + "allow_uids = [1000, \"kiosk\"]\n", line: 6, key: "server.allow_uids",
                      "item 2: expected an integer, found a string (got \"kiosk\")")
    expectServerError(Fixture.server + "allow_uids = [1.0]\n", line: 6, key: "server.allow_uids",
                      "item 1: expected an integer, found a float (got 1.0)")
    expectServerError(Fixture.server + "allow_groups = [\"a\", true]\n", line: 6, key: "server.allow_groups",
                      "item 2: expected a string or an integer, found a boolean (got true)")
    expectServerError(Fixture.server + "allow_groups = [2.5]\n", line: 6, key: "server.allow_groups",
                      "item 1: expected a string or an integer, found a float (got 2.5)")
}

@Test func socketModeMustBeAString() {
    expectServerError(Fixture.server + "socket_mode = 660\n", line: 6, key: "server.socket_mode",
                      "expected a string of 3 or 4 octal digits like \"0660\", found an integer (got 660)")
    expectServerError(Fixture.server + "socket_mode = 432\n", line: 6, key: "server.socket_mode",
                      "found an integer (got 432)")
    expectServerError(Fixture.server + "socket_mode = 0660\n", line: 6, key: "server.socket_mode",
                      "invalid number 0660: an integer cannot start with 0 (write a file mode as a string: \"0660\")")
    expectServerError(Fixture.server + "socket_mode = [\"0660\"]\n", line: 6, key: "server.socket_mode",
                      "found an array")
}

@Test func nestedArraysAreSchemaErrorsAtTheirItem() {
    expectServerError(Fixture.server + "allow_uids = [[1000]]\n", line: 6, key: "server.allow_uids",
                      "item 1: expected an integer, found an array (got [1000])")
    expectServerError(Fixture.server + "allow_groups = [\"a\", [\"b\"]]\n", line: 6, key: "server.allow_groups",
                      "item 2: expected a string or an integer, found an array (got [\"b\"])")
}

// MARK: - The table

@Test func theServerTableMayAppearOnce() {
    expectServerError(Fixture.server + "max_clients = 2\n[server]\nbacklog_limit = 4096\n", line: 7, key: "server",
                      "the table [server] is already defined on line 5")
    expectServerError("[server]\n" + Fixture.edgePan + "[server]\n", line: 6, key: "server",
                      "the table [server] is already defined on line 1")
    expectServerError(Fixture.server + "max_clients = 2\nmax_clients = 3\n", line: 7, key: "server.max_clients",
                      "duplicate key (first defined on line 6)")
}

@Test func theServerTableMustBeATable() {
    expectServerError("[[server]]\n" + Fixture.edgePan, line: 1, key: "server",
                      "must be written as a [server] table, found an array of tables")
    expectServerError("server = 1\n" + Fixture.edgePan, line: 1, key: "server",
                      "must be written as a [server] table, found an integer (got 1)")
    expectServerError(Fixture.server + "[server.tls]\n", line: 6, key: "server.tls",
                      "unknown key; the keys of [server] are socket, socket_mode")
}

@Test func unknownServerKeysSuggestTheClosest() {
    expectServerError(Fixture.server + "max_client = 3\n", line: 6, key: "server.max_client",
                      "unknown key; did you mean 'max_clients'?")
    expectServerError(Fixture.server + "sockt = \"/a\"\n", line: 6, key: "server.sockt", "did you mean 'socket'?")
    expectServerError(Fixture.server + "allow_group = [\"a\"]\n", line: 6, key: "server.allow_group",
                      "did you mean 'allow_groups'?")
    expectServerError(Fixture.server + "backlog = 4096\n", line: 6, key: "server.backlog",
                      "the keys of [server] are socket, socket_mode, max_clients, backlog_limit, allow_uids, allow_groups")
    expectServerError("[sever]\n" + Fixture.edgePan, line: 1, key: "sever", "did you mean 'server'?")
}

@Test func topLevelKeysAfterTheServerHeaderBelongToIt() {
    // TOML scoping: a key after [server] is in [server] until the next header.
    expectServerError(Fixture.server + "frame_rate = 60\n", line: 6, key: "server.frame_rate",
                      "unknown key; the keys of [server] are")
}

@Test func aBadServerTableStillFailsWithAGoodEngine() {
    // The engine-only entry points validate [server] too: never silently accepted.
    #expect(throws: ConfigError.self) { try ConfigLoader.parse(text: Fixture.server + "max_clients = 0\n", file: "t") }
    #expect(throws: ConfigError.self) { try ConfigLoader.parse(text: Fixture.server + "mode = 1\n", file: "t") }
}

@Test func engineErrorsStillComeFirst() {
    expectServerError("[server]\nmax_clients = 3\n", line: 1, key: "transition", "at least one [[transition]]")
}

// MARK: - Rendering

private func daemonRoundTrip(_ config: DaemonConfiguration, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = ConfigLoader.render(config)
    let reread = try ConfigLoader.parseDaemon(text: text, file: "rendered.toml")
    #expect(reread == config, "\(text)", sourceLocation: sourceLocation)
}

@Test func theStandardDaemonConfigRoundTrips() throws {
    try daemonRoundTrip(.standard)
}

@Test func aServerWithEveryKeySetRoundTrips() throws {
    let server = ServerSettings(socketPath: path(bytes: 107), socketMode: 0o600, maxClients: 65_536,
                                backlogLimit: 4_096, allowUIDs: [0, 1000, 4_294_967_294],
                                allowGroups: [.name("kiosk"), .id(0), .name("_a.b-c"), .id(4_294_967_294)],
                                webSocket: ListenAddress(host: "::1", port: 0, isIPv6: true),
                                allowOrigins: ["*", "null", "http://localhost:3000"])
    try daemonRoundTrip(DaemonConfiguration(engine: .standard, server: server))
    var odd = server
    odd.socketPath = "/tmp/we\"ird\\ päth\t.sock"
    odd.socketMode = 0o777
    odd.allowUIDs = []
    odd.allowGroups = [.id(5)]
    try daemonRoundTrip(DaemonConfiguration(engine: .standard, server: odd))
    odd.socketMode = 0o700
    try daemonRoundTrip(DaemonConfiguration(engine: try parseValid(Fixture.spring + Fixture.swipe.replacing("\"t\"", with: "\"u\"")),
                                            server: odd))
}

@Test func renderWritesTheEnginePartAsBeforeThenEveryServerKey() throws {
    let text = ConfigLoader.render(DaemonConfiguration.standard)
    let engine = ConfigLoader.render(EngineConfiguration.standard)
    #expect(text.hasPrefix(engine + "\n[server]\n"), "\(text)")
    let server = text.dropFirst(engine.count)
    for line in [
        "socket_mode = \"0660\"", "max_clients = 256", "backlog_limit = 1048576", "allow_uids = []",
        "allow_groups = []",
    ] {
        #expect(server.contains("\n" + line + " "), "missing \(line) in\n\(server)")
    }
    #expect(!server.contains("socket ="), "socket is written only when set")
    for comment in [
        "# octal, at most \"0777\", with owner read+write \"0600\"", "# 1 to 65536", "# bytes, 4096 to 1073741824",
        "# uids, each 0 to 4294967294", "# group names, or gids 0 to 4294967294",
    ] {
        #expect(server.contains(comment), "missing \(comment) in\n\(server)")
    }
}

@Test func renderWritesTheSocketWhenSetAndTheModeAsFourOctalDigits() {
    let server = ServerSettings(socketPath: "/run/t.sock", socketMode: 0o600, allowUIDs: [1000, 1001],
                                allowGroups: [.name("kiosk"), .id(27)])
    let text = ConfigLoader.render(DaemonConfiguration(engine: .standard, server: server))
    #expect(text.contains("\nsocket = \"/run/t.sock\" "), "\(text)")
    #expect(text.contains("# an absolute path of at most 107 bytes"), "\(text)")
    #expect(text.contains("\nsocket_mode = \"0600\" "), "\(text)")
    #expect(text.contains("\nallow_uids = [1000, 1001] "), "\(text)")
    #expect(text.contains("\nallow_groups = [\"kiosk\", 27] "), "\(text)")
    #expect(StringRule.fileModeText(0o7) == "0007")
    #expect(StringRule.fileModeText(0o1777) == "1777")
    #expect(StringRule.fileMode("0007") == 0o7)
    #expect(StringRule.fileMode("777") == 0o777)
    #expect(StringRule.fileMode("8") == nil)
}

@Test func anOutOfRangeServerRendersToTextThatNamesTheProblem() {
    // Like the engine's renderer, values out of range are written as they
    // are; reading them back is an error with the line and key.
    let text = ConfigLoader.render(DaemonConfiguration(engine: .standard, server: ServerSettings(socketMode: 0o400)))
    let line = text.split(separator: "\n", omittingEmptySubsequences: false)
        .firstIndex { $0.hasPrefix("socket_mode = ") }.map { $0 + 1 }
    expectServerError(text, line: line ?? 0, key: "server.socket_mode", "could not use its own socket (got \"0400\")")
}

// MARK: - Files

@Test func loadDaemonReportsUnreadableFilesWithoutALine() {
    do {
        _ = try ConfigLoader.loadDaemon(path: "/nonexistent/transitiond.toml")
        Issue.record("expected an error")
    } catch let error as ConfigError {
        #expect(error.line == nil)
        #expect(error.description.hasPrefix("/nonexistent/transitiond.toml: cannot read the file"))
    } catch {
        Issue.record("not a ConfigError: \(error)")
    }
}
