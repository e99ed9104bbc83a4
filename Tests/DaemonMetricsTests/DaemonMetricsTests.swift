import DaemonMetrics
import Testing
@testable import Engine
import ServerPorts
import WireProtocol

/// The exposition `MetricsExporter` makes of the counts it is given: names,
/// labels, help lines, counters that follow the totals, gauges that follow
/// the values, the latency histogram.
@Suite("Daemon metrics")
struct DaemonMetricsTests {
    /// The sample lines (no comments), as "name{labels} value" (gauges are
    /// written as floating point: "1.0").
    private func samples(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") })
    }

    private func reading(ended: Int = 0, commands: Int = 0, unix: Int = 0, attached: Int = 0) -> MetricsReading {
        var host = HostStatistics()
        host.live = true
        host.inputEvents = 10 * ended
        host.frames = 2 * ended
        host.devicesAttached = attached
        var tally = EngineTally()
        if ended > 0 {
            tally.began["back"] = ended
            tally.ended[EngineTally.Outcome(transition: "back", decision: .finish, reason: .released)] = ended
            tally.rejected[EngineTally.Rejected(transition: "back", reason: "sideways")] = 1
        }
        host.engine = tally
        var server = ServerStatistics()
        if commands > 0 { server.commands[ServerStatistics.Command(name: "ping", result: "ok")] = commands }
        server.admitted[.unixSocket] = unix
        return MetricsReading(server: server, clients: [.unixSocket: unix, .webSocket: 0], host: host)
    }

    @Test func everyFamilyHasHelpAndTypeAndTheUnlabelledOnesStartAtZero() {
        let metrics = MetricsExporter(live: true, version: "9.9.9")
        let text = metrics.service.render(reading()).body
        let exposition = String(decoding: text, as: UTF8.self)
        let lines = samples(exposition)
        for name in ["transitiond_input_events_total", "transitiond_input_frames_total", "transitiond_input_resyncs_total",
                     "transitiond_ghost_touches_total", "transitiond_stuck_contacts_total",
                     "transitiond_touches_withheld_total{reason=\"max_contacts\"}", "transitiond_touches_withheld_total{reason=\"palm\"}",
                     "transitiond_input_devices_lost_total", "transitiond_lines_coalesced_total",
                     "transitiond_backlog_disconnects_total", "transitiond_client_connections_refused_total"] {
            #expect(lines.contains("\(name) 0"), "\(name)")
        }
        #expect(lines.contains("transitiond_input_waiting 1.0"))
        #expect(lines.contains("transitiond_clients{transport=\"unix\"} 0.0"))
        #expect(lines.contains("transitiond_build_info{version=\"9.9.9\"} 1.0"))
        // Each family that has samples is declared, with its help.
        for declaration in MetricNames.all where exposition.contains("\n\(declaration.name)") || exposition.hasPrefix(declaration.name) {
            #expect(exposition.contains("# HELP \(declaration.name) "), "\(declaration.name) has help")
            let type = declaration.kind == .histogram ? "histogram" : declaration.kind == .counter ? "counter" : "gauge"
            #expect(exposition.contains("# TYPE \(declaration.name) \(type)"), "\(declaration.name) is a \(type)")
        }
    }

    @Test func countersFollowTheTotalsAcrossScrapesAndGaugesTheValues() {
        let metrics = MetricsExporter(live: true, version: "1")
        _ = metrics.service.render(reading(ended: 2, commands: 1, unix: 1, attached: 1))
        let lines = samples(String(decoding: metrics.service.render(reading(ended: 5, commands: 4, unix: 3, attached: 2)).body, as: UTF8.self))
        #expect(lines.contains("transitiond_transitions_ended_total{transition=\"back\",decision=\"finish\",reason=\"released\"} 5"))
        #expect(lines.contains("transitiond_transitions_began_total{transition=\"back\"} 5"))
        #expect(lines.contains("transitiond_candidates_rejected_total{transition=\"back\",reason=\"sideways\"} 1"))
        #expect(lines.contains("transitiond_commands_total{command=\"ping\",result=\"ok\"} 4"))
        #expect(lines.contains("transitiond_input_events_total 50"))
        #expect(lines.contains("transitiond_input_frames_total 10"))
        #expect(lines.contains("transitiond_client_connections_total{transport=\"unix\"} 3"))
        #expect(lines.contains("transitiond_clients{transport=\"unix\"} 3.0"))
        #expect(lines.contains("transitiond_input_devices_attached 2.0"))
        #expect(lines.contains("transitiond_input_waiting 0.0"))
        // A scrape with the same totals changes nothing.
        let again = samples(String(decoding: metrics.service.render(reading(ended: 5, commands: 4, unix: 3, attached: 2)).body, as: UTF8.self))
        #expect(again == lines)
    }

    @Test func stuckContactsAreCounted() {
        let metrics = MetricsExporter(live: true, version: "1")
        var read = reading()
        read.host.stuckContacts = 3
        let lines = samples(String(decoding: metrics.service.render(read).body, as: UTF8.self))
        #expect(lines.contains("transitiond_stuck_contacts_total 3"))
    }

    @Test func eachPanelsHealthIsAGaugeThatGoesWithThePanel() {
        let metrics = MetricsExporter(live: true, version: "1")
        var read = reading()
        read.host.panels = [
            PanelStatus(source: 0, path: "/dev/input/event3", degraded: true, samples: 128, reportRate: 25,
                        reportRateP5: 24.5, jitterMilliseconds: 0.5),
            PanelStatus(source: 1, path: "/dev/input/event4"),
        ]
        var lines = samples(String(decoding: metrics.service.render(read).body, as: UTF8.self))
        #expect(lines.contains("transitiond_panel_report_rate_hz{panel=\"/dev/input/event3\",quantile=\"0.5\"} 25.0"))
        #expect(lines.contains("transitiond_panel_report_rate_hz{panel=\"/dev/input/event3\",quantile=\"0.05\"} 24.5"))
        #expect(lines.contains("transitiond_panel_report_jitter_seconds{panel=\"/dev/input/event3\"} 0.0005"))
        #expect(lines.contains("transitiond_panel_degraded{panel=\"/dev/input/event3\"} 1.0"))
        // A panel not measured yet has only its verdict.
        #expect(lines.contains("transitiond_panel_degraded{panel=\"/dev/input/event4\"} 0.0"))
        #expect(!lines.contains { $0.hasPrefix("transitiond_panel_report_rate_hz{panel=\"/dev/input/event4\"") })

        read.host.panels.removeFirst()
        lines = samples(String(decoding: metrics.service.render(read).body, as: UTF8.self))
        #expect(!lines.contains { $0.contains("/dev/input/event3") }, "\(lines)")
        #expect(lines.contains("transitiond_panel_degraded{panel=\"/dev/input/event4\"} 0.0"))
    }

    @Test func withheldTouchesAreCountedByReason() {
        let metrics = MetricsExporter(live: true, version: "1")
        var read = reading()
        read.host.touchesWithheldForMaxContacts = 4
        read.host.palmsWithheld = 2
        let lines = samples(String(decoding: metrics.service.render(read).body, as: UTF8.self))
        #expect(lines.contains("transitiond_touches_withheld_total{reason=\"max_contacts\"} 4"))
        #expect(lines.contains("transitiond_touches_withheld_total{reason=\"palm\"} 2"))
    }

    @Test func theInfoMetricSaysWhoTheDaemonIsAndFollowsAReload() {
        let metrics = MetricsExporter(live: true, version: "1.2")
        var read = reading()
        var lines = samples(String(decoding: metrics.service.render(read).body, as: UTF8.self))
        #expect(!lines.contains { $0.hasPrefix("transitiond_info") }, "no identity, no info")
        #expect(lines.contains { $0.hasPrefix("process_start_time_seconds 1") })
        read.identity = DaemonIdentity(kiosk: "lobby-3", site: "hbf", labels: ["floor": "2", "aisle": "b"], configHash: "00ff")
        lines = samples(String(decoding: metrics.service.render(read).body, as: UTF8.self))
        #expect(lines.contains(
            "transitiond_info{kiosk=\"lobby-3\",site=\"hbf\",config_hash=\"00ff\",version=\"1.2\",aisle=\"b\",floor=\"2\"} 1.0"),
                "\(lines)")
        // A reload with another config: one series, the new one.
        read.identity = DaemonIdentity(configHash: "abcd")
        lines = samples(String(decoding: metrics.service.render(read).body, as: UTF8.self))
        #expect(lines.filter { $0.hasPrefix("transitiond_info") }
                == ["transitiond_info{kiosk=\"\",site=\"\",config_hash=\"abcd\",version=\"1.2\"} 1.0"], "\(lines)")
    }

    @Test func aReplayHasNoDeviceMetrics() {
        let metrics = MetricsExporter(live: false, version: "1")
        let exposition = String(decoding: metrics.service.render(reading()).body, as: UTF8.self)
        #expect(!exposition.contains("transitiond_input_devices_attached"))
        #expect(!exposition.contains("transitiond_input_resyncs_total"))
        #expect(!exposition.contains("transitiond_stuck_contacts_total"))
        #expect(!exposition.contains("transitiond_touches_withheld_total"))
        #expect(exposition.contains("transitiond_input_frames_total 0"))
    }

    @Test func latenciesGoToTheHistogramInSeconds() {
        let metrics = MetricsExporter(live: true, version: "1")
        let service = metrics.service
        service.observeLatency(300_000)        // 0.3 ms
        service.observeLatency(2_000_000)      // 2 ms
        let lines = samples(String(decoding: service.render(reading()).body, as: UTF8.self))
        #expect(lines.contains("transitiond_input_to_write_seconds_count 2"))
        #expect(lines.contains("transitiond_input_to_write_seconds_bucket{le=\"0.0005\"} 1"))
        #expect(lines.contains("transitiond_input_to_write_seconds_bucket{le=\"0.0025\"} 2"))
        #expect(lines.contains("transitiond_input_to_write_seconds_bucket{le=\"+Inf\"} 2"))
        #expect(lines.contains { $0.hasPrefix("transitiond_input_to_write_seconds_sum 0.0023") })
    }

    @Test func touchToFrameSamplesGoToTheirTransportsHistogram() {
        let metrics = MetricsExporter(live: true, version: "1")
        let service = metrics.service
        service.observeTouchToFrame(.webSocket, 40_000_000)      // 40 ms
        service.observeTouchToFrame(.webSocket, 20_000_000)
        service.observeTouchToFrame(.unixSocket, 3_000_000)
        let lines = samples(String(decoding: service.render(reading()).body, as: UTF8.self))
        #expect(lines.contains("transitiond_touch_to_frame_seconds_count{transport=\"websocket\"} 2"), "\(lines)")
        #expect(lines.contains("transitiond_touch_to_frame_seconds_bucket{transport=\"websocket\",le=\"0.025\"} 1"), "\(lines)")
        #expect(lines.contains("transitiond_touch_to_frame_seconds_count{transport=\"unix\"} 1"), "\(lines)")
    }

    @Test func twoDaemonsInOneProcessKeepTheirOwnCounts() {
        let a = MetricsExporter(live: true, version: "1"), b = MetricsExporter(live: true, version: "1")
        _ = a.service.render(reading(ended: 3))
        let lines = samples(String(decoding: b.service.render(reading()).body, as: UTF8.self))
        #expect(!lines.contains { $0.hasPrefix("transitiond_transitions_ended_total") })
        #expect(lines.contains("transitiond_input_events_total 0"))
    }
}
