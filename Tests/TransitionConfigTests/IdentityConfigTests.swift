import Testing
@testable import TransitionConfig
import Engine

// The [identity] table and the config's hash: what reaches the settings,
// what is refused (by line and key), and that equivalent files hash alike.

extension Fixture {
    /// Lines 1–5 (a transition, then `[identity]`); the next key is on line 6.
    static let identity = edgePan + "[identity]\n"
}

@Test func noIdentityTableSaysNothing() throws {
    #expect(try parseDaemonValid(Fixture.edgePan).identity == .none)
    #expect(try parseDaemonValid(Fixture.identity).identity == .none)
    #expect(IdentitySettings.none.isEmpty)
}

@Test func identityValuesReachTheirFields() throws {
    let inline = try parseDaemonValid(Fixture.identity + "kiosk = \"lobby-3\"\nsite = \"berlin.hbf\"\nlabels = { floor = \"2\", vendor = \"Acme Kiosks\" }\n")
    #expect(inline.identity == IdentitySettings(kiosk: "lobby-3", site: "berlin.hbf", labels: ["floor": "2", "vendor": "Acme Kiosks"]))
    // The labels as a table of their own read the same.
    let table = try parseDaemonValid(Fixture.identity + "kiosk = \"lobby-3\"\nsite = \"berlin.hbf\"\n[identity.labels]\nvendor = \"Acme Kiosks\"\nfloor = \"2\"\n")
    #expect(table.identity == inline.identity)
    // [identity] changes nothing of the engine's part.
    #expect(try parseValid(Fixture.identity + "kiosk = \"k\"\n") == (try parseValid(Fixture.edgePan)))
}

@Test func badIdentityValuesNameLineAndKey() {
    expectDaemonConfigError(Fixture.identity + "kiosk = \"lobby 3\"\n", line: 6, key: "identity.kiosk", "only letters, digits")
    expectDaemonConfigError(Fixture.identity + "kiosk = \"\"\n", line: 6, key: "identity.kiosk", "must not be empty")
    expectDaemonConfigError(Fixture.identity + "site = 3\n", line: 6, key: "identity.site", "expected a string")
    expectDaemonConfigError(Fixture.identity + "labels = [\"floor=2\"]\n", line: 6, key: "identity.labels", "expected a table")
    expectDaemonConfigError(Fixture.identity + "labels = { floor = 2 }\n", line: 6, key: "identity.labels", "expected a table")
    expectDaemonConfigError(Fixture.identity + "labels = { \"2floor\" = \"x\" }\n", line: 6, key: "identity.labels",
                            "key '2floor' must be a Prometheus label name")
    expectDaemonConfigError(Fixture.identity + "labels = { \"a-b\" = \"x\" }\n", line: 6, key: "identity.labels", "Prometheus label name")
    expectDaemonConfigError(Fixture.identity + "labels = { __name__ = \"x\" }\n", line: 6, key: "identity.labels", "must not start with '__'")
    expectDaemonConfigError(Fixture.identity + "labels = { kiosk = \"x\" }\n", line: 6, key: "identity.labels",
                            "is a label transitiond sets itself")
    expectDaemonConfigError(Fixture.identity + "labels = { job = \"x\" }\n", line: 6, key: "identity.labels", "sets itself")
    expectDaemonConfigError(Fixture.identity + "labels = { a = { b = \"c\" } }\n", line: 6, key: "identity.labels", "expected a table")
    expectDaemonConfigError(Fixture.identity + "name = \"k\"\n", line: 6, key: "identity.name", "unknown key")
}

@Test func identityRendersAndReadsBack() throws {
    let config = try parseDaemonValid(Fixture.identity + "kiosk = \"k-1\"\nlabels = { b = \"x \\\"y\\\"\", a = \"\" }\n")
    let text = ConfigRenderer.render(config)
    #expect(text.contains("[identity]\nkiosk = \"k-1\""))
    #expect(text.contains("labels = { a = \"\", b = \"x \\\"y\\\"\" }"))
    #expect(!text.contains("site ="))
    #expect(try ConfigLoader.parseDaemon(text: text, file: "rendered.toml") == config)
    // Nothing said: no table.
    #expect(!ConfigRenderer.render(try parseDaemonValid(Fixture.edgePan)).contains("[identity]"))
}

// MARK: - The hash

@Test func sha256MatchesTheStandardVectors() {
    #expect(ConfigDigest.hex(ConfigDigest.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(ConfigDigest.hex(ConfigDigest.sha256(Array("abc".utf8)))
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    // Two blocks: FIPS 180-4's 448-bit example.
    #expect(ConfigDigest.hex(ConfigDigest.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(ConfigDigest.hex(ConfigDigest.sha256([UInt8](repeating: 0x61, count: 1_000_000)))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
}

@Test func equivalentConfigsHashAlike() throws {
    func hash(_ text: String) throws -> String { ConfigDigest.hash(of: try parseDaemonValid(text)) }
    let plain = try hash(Fixture.edgePan + "finish_threshold = 0.4\n")
    #expect(plain.count == ConfigDigest.digits)
    #expect(plain.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    for equivalent in [
        // Comments, blank lines, other quotes, key order.
        "# back\n[[transition]]\n\nedge = 'left'  # the left edge\nfinish_threshold = 0.4\nname = \"t\"\ngesture = \"edge-pan\"\n",
        // Defaults written out, an integer for a float, 4.0e-1.
        Fixture.edgePan + "finish_threshold = 4.0e-1\nedge_margin = 0.05\ndistance = 1\nfingers = 1\n[server]\nmax_clients = 256\n",
        // [identity] is no part of it.
        Fixture.edgePan + "finish_threshold = 0.4\n[identity]\nkiosk = \"other\"\nlabels = { floor = \"3\" }\n",
        // Dotted keys and inline tables for the same tables.
        "transition = [{ name = \"t\", gesture = \"edge-pan\", edge = \"left\", finish_threshold = 0.4 }]\n",
    ] {
        #expect(try hash(equivalent) == plain, "\(equivalent)")
    }
    for different in [
        Fixture.edgePan + "finish_threshold = 0.45\n",
        Fixture.edgePan + "finish_threshold = 0.4\nflick_velocity = 1.2\n",
        Fixture.edgePan + "finish_threshold = 0.4\n[input]\nmode = \"grab\"\n",
        Fixture.edgePan + "finish_threshold = 0.4\n[metrics]\nlisten = \"127.0.0.1:9464\"\n",
        "[[transition]]\nname = \"u\"\ngesture = \"edge-pan\"\nedge = \"left\"\nfinish_threshold = 0.4\n",
    ] {
        #expect(try hash(different) != plain, "\(different)")
    }
}
