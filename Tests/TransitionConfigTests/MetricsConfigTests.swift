import Testing
@testable import TransitionConfig
import Engine

// The [metrics] table: defaults, the listener's address, types, unknown keys,
// enabled = false with a listener, rendering.

extension Fixture {
    /// Lines 1–5 (a transition, then `[metrics]`); the next key is on line 6.
    static let metrics = edgePan + "[metrics]\n"
}

// MARK: - Defaults

@Test func metricsDefaultsMatchTheDesign() {
    #expect(MetricsSettings.standard.enabled)
    #expect(MetricsSettings.standard.listen == nil)
    #expect(MetricsSettings() == .standard)
    #expect(DaemonConfiguration.standard.metrics == .standard)
    #expect(DaemonConfiguration(engine: .standard, server: .standard).metrics == .standard)
}

@Test func noMetricsTableOrAnEmptyOneGivesTheDefaults() throws {
    #expect(try parseDaemonValid(Fixture.edgePan).metrics == .standard)
    #expect(try parseDaemonValid(Fixture.metrics).metrics == .standard)
    #expect(try parseDaemonValid("[metrics]\n" + Fixture.edgePan).metrics == .standard)
    // [metrics] changes nothing of the engine's part.
    #expect(try parseValid(Fixture.metrics + "listen = \"127.0.0.1:9464\"\n") == (try parseValid(Fixture.edgePan)))
}

// MARK: - Values

@Test func givenMetricsValuesReachTheirFields() throws {
    #expect(try parseDaemonValid(Fixture.metrics + "listen = \"127.0.0.1:9464\"\n").metrics
            == MetricsSettings(enabled: true, listen: ListenAddress(host: "127.0.0.1", port: 9464)))
    #expect(try parseDaemonValid(Fixture.metrics + "listen = \"[::1]:9464\"\n").metrics
            == MetricsSettings(listen: ListenAddress(host: "::1", port: 9464, isIPv6: true)))
    #expect(try parseDaemonValid(Fixture.metrics + "enabled = true\nlisten = '0.0.0.0:65535'\n").metrics
            == MetricsSettings(listen: ListenAddress(host: "0.0.0.0", port: 65_535)))
    // The same rule as [server] websocket: localhost is 127.0.0.1.
    #expect(try parseDaemonValid(Fixture.metrics + "listen = \"localhost:9464\"\n").metrics
            == MetricsSettings(listen: ListenAddress(host: "127.0.0.1", port: 9464)))
    #expect(try parseDaemonValid(Fixture.metrics + "enabled = false\n").metrics == MetricsSettings(enabled: false))
}

@Test func badListenAddressesNameLineAndKey() {
    for (value, fragment) in [
        ("\"kiosk.local:9464\"", "'kiosk.local' is not an IPv4 address (or 'localhost'); a name would depend on the resolver"),
        ("\"metrics:9464\"", "'metrics' is not an IPv4 address"),
        ("\"127.0.0.1\"", "must be HOST:PORT, like \"127.0.0.1:8765\""),
        ("\"127.0.0.1:\"", "must end with a port from 0 to 65535 (found '')"),
        ("\"[::1]\"", "must give a port after the address"),
        ("\"127.0.0.1:65536\"", "must end with a port from 0 to 65535 (found '65536')"),
        ("\"[::1]:99999\"", "must end with a port from 0 to 65535"),
        ("\"::1:9464\"", "must write an IPv6 address in brackets"),
        ("\"\"", "must be HOST:PORT"),
    ] {
        expectDaemonConfigError(Fixture.metrics + "listen = \(value)\n", line: 6, key: "metrics.listen", fragment)
        expectDaemonConfigError(Fixture.metrics + "listen = \(value)\n", line: 6, key: "metrics.listen", "(got \(value))")
    }
}

// MARK: - Types and keys

@Test func metricsKeysOfTheWrongTypeNameExpectedAndFound() {
    expectDaemonConfigError(Fixture.metrics + "enabled = \"yes\"\n", line: 6, key: "metrics.enabled",
                       "expected a boolean (true or false), found a string (got \"yes\")")
    expectDaemonConfigError(Fixture.metrics + "listen = \"127.0.0.1:9464\"\nenabled = 1\n", line: 7, key: "metrics.enabled",
                       "expected a boolean (true or false), found an integer (got 1)")
    expectDaemonConfigError(Fixture.metrics + "listen = 9464\n", line: 6, key: "metrics.listen",
                       "expected a string \"HOST:PORT\" like \"127.0.0.1:8765\", found an integer (got 9464)")
}

@Test func unknownMetricsKeysSuggestTheClosest() {
    expectDaemonConfigError(Fixture.metrics + "enable = true\n", line: 6, key: "metrics.enable",
                       "unknown key; did you mean 'enabled'?")
    expectDaemonConfigError(Fixture.metrics + "listn = \"127.0.0.1:9464\"\n", line: 6, key: "metrics.listn",
                       "unknown key; did you mean 'listen'?")
    expectDaemonConfigError(Fixture.metrics + "port = 9464\n", line: 6, key: "metrics.port",
                       "unknown key; the keys of [metrics] are enabled, listen")
    expectDaemonConfigError("[metric]\n" + Fixture.edgePan, line: 1, key: "metric", "did you mean 'metrics'?")
}

@Test func theMetricsTableMustBeATableGivenOnce() {
    expectDaemonConfigError("[[metrics]]\n" + Fixture.edgePan, line: 1, key: "metrics",
                       "must be written as a [metrics] table, found an array of tables")
    expectDaemonConfigError(Fixture.metrics + "enabled = true\n[metrics]\n", line: 7, key: "metrics",
                       "the table [metrics] is already defined on line 5")
}

// MARK: - enabled = false with a listener

@Test func aListenerWithMetricsOffIsAnErrorAtTheListenersLine() {
    let message = "set, but metrics.enabled = false turns metrics off"
    expectDaemonConfigError(Fixture.metrics + "enabled = false\nlisten = \"127.0.0.1:9464\"\n", line: 7,
                       key: "metrics.listen", message + " (enabled is on line 6)", engineToo: false)
    expectDaemonConfigError(Fixture.metrics + "listen = \"[::1]:9464\"\nenabled = false\n", line: 6,
                       key: "metrics.listen", message + " (enabled is on line 7)", engineToo: false)
    // With enabled = true, or without a listener, it is fine.
    #expect(throws: Never.self) {
        try ConfigLoader.parseDaemon(text: Fixture.metrics + "enabled = true\nlisten = \"127.0.0.1:9464\"\n", file: "t")
    }
    #expect(throws: Never.self) { try ConfigLoader.parseDaemon(text: Fixture.metrics + "enabled = false\n", file: "t") }
}

// MARK: - Rendering

private func daemonRoundTrip(_ config: DaemonConfiguration, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = ConfigLoader.render(config)
    let reread = try ConfigLoader.parseDaemon(text: text, file: "rendered.toml")
    #expect(reread == config, "\(text)", sourceLocation: sourceLocation)
}

@Test func metricsRoundTripThroughRender() throws {
    try daemonRoundTrip(DaemonConfiguration(engine: .standard, server: .standard, metrics: .standard))
    try daemonRoundTrip(DaemonConfiguration(engine: .standard, server: .standard,
                                            metrics: MetricsSettings(enabled: false)))
    try daemonRoundTrip(DaemonConfiguration(engine: .standard, server: .standard,
                                            metrics: MetricsSettings(listen: ListenAddress(host: "127.0.0.1", port: 9464))))
    try daemonRoundTrip(DaemonConfiguration(
        engine: .standard, server: ServerSettings(webSocket: ListenAddress(host: "0.0.0.0", port: 8765)),
        metrics: MetricsSettings(listen: ListenAddress(host: "::1", port: 0, isIPv6: true))))
    // And what was read from a file reads back the same.
    let read = try parseDaemonValid(Fixture.metrics + "listen = \"[::1]:9464\"\n")
    try daemonRoundTrip(read)
}

@Test func renderWritesTheMetricsTableAfterInputAndListenOnlyWhenSet() {
    let standard = ConfigLoader.render(DaemonConfiguration.standard)
    guard let input = standard.range(of: "\n[input]\n"), let metrics = standard.range(of: "\n[metrics]\n") else {
        Issue.record("no [input] or [metrics] table in\n\(standard)")
        return
    }
    #expect(input.upperBound < metrics.lowerBound, "[metrics] comes after [input]")
    let table = standard[metrics.upperBound...]
    #expect(table.hasPrefix("enabled = true "), "\(table)")
    #expect(table.contains("# serve Prometheus metrics at /metrics"), "\(table)")
    #expect(!table.contains("listen ="), "listen is written only when set:\n\(table)")

    let config = DaemonConfiguration(engine: .standard, server: .standard,
                                     metrics: MetricsSettings(listen: ListenAddress(host: "127.0.0.1", port: 9464)))
    let text = ConfigLoader.render(config)
    #expect(text.contains("\n[metrics]\nenabled = true "), "\(text)")
    #expect(text.contains("\nlisten = \"127.0.0.1:9464\" "), "\(text)")
    #expect(text.contains("# \"HOST:PORT\" of a listener of its own for /metrics and /healthz, e.g. \"127.0.0.1:9464\"; none when absent"),
            "\(text)")
}

@Test func metricsOffWithAListenerRendersToTextThatNamesTheProblem() {
    // Like the other tables, the renderer writes what it is given; reading
    // it back is an error at listen's line.
    let text = ConfigLoader.render(DaemonConfiguration(
        engine: .standard, server: .standard,
        metrics: MetricsSettings(enabled: false, listen: ListenAddress(host: "127.0.0.1", port: 9464))))
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let line = lines.firstIndex { $0.hasPrefix("listen = ") }.map { $0 + 1 } ?? 0
    do {
        let config = try ConfigLoader.parseDaemon(text: text, file: "rendered.toml")
        Issue.record("expected a ConfigError, parsed \(config)")
    } catch let error as ConfigError {
        #expect(error.line == line, "\(error)")
        #expect(error.key == "metrics.listen", "\(error)")
    } catch {
        Issue.record("expected a ConfigError, got \(error)")
    }
}
