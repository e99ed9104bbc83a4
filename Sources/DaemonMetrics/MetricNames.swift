/// Every metric the daemon exports, declared once: its name (Prometheus
/// conventions: `transitiond_` prefix, base units, `_total` for counters),
/// its kind and its help line. The factory takes the help from here, and
/// the publisher names what it records from here.
public struct MetricDeclaration: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case counter, gauge, histogram
    }

    public var name: String
    public var kind: Kind
    public var help: String
}

/// The daemon's metrics (docs/metrics.md lists them with their labels).
public enum MetricNames {
    // MARK: The engine

    public static let transitionsBegan = MetricDeclaration(
        name: "transitiond_transitions_began_total", kind: .counter,
        help: "Interactions begun (began events), by transition.")
    public static let transitionsEnded = MetricDeclaration(
        name: "transitiond_transitions_ended_total", kind: .counter,
        help: "Interactions ended (ended events), by transition, decision (finish, cancel, snap) and reason (released, device-lost, client-lost, command, shutdown, reload, palm, stuck).")
    public static let candidatesRejected = MetricDeclaration(
        name: "transitiond_candidates_rejected_total", kind: .counter,
        help: "Touches a transition looked at and did not take, by transition and why (outside-edge, sideways, ...).")

    // MARK: Input

    public static let inputEvents = MetricDeclaration(
        name: "transitiond_input_events_total", kind: .counter,
        help: "Raw input events read from the panels (or replayed).")
    public static let inputFrames = MetricDeclaration(
        name: "transitiond_input_frames_total", kind: .counter,
        help: "Touch frames the engine processed.")
    public static let inputResyncs = MetricDeclaration(
        name: "transitiond_input_resyncs_total", kind: .counter,
        help: "SYN_DROPPED resynchronisations: the kernel dropped input events and the daemon re-read the panel's state.")
    public static let ghostTouches = MetricDeclaration(
        name: "transitiond_ghost_touches_total", kind: .counter,
        help: "Filter mode: ghost taps quarantined (ghost_touches = \"quarantine\"): periodic still taps at one place, never written to the UI's copy.")
    public static let stuckContacts = MetricDeclaration(
        name: "transitiond_stuck_contacts_total", kind: .counter,
        help: "Contacts ended as stuck: no event from their panel for [filter] stuck_after seconds while down.")
    public static let touchesWithheld = MetricDeclaration(
        name: "transitiond_touches_withheld_total", kind: .counter,
        help: "Filter mode: touches never written (or no longer written) to the UI's copy by a [filter] rule: reason max_contacts (one too many), palm (MT_TOOL_PALM or over palm_mm).")
    public static let devicesLost = MetricDeclaration(
        name: "transitiond_input_devices_lost_total", kind: .counter,
        help: "Panels lost (unplugged, or a read error); their gestures were cancelled.")
    public static let devicesAttached = MetricDeclaration(
        name: "transitiond_input_devices_attached", kind: .gauge,
        help: "Panels attached now.")
    public static let inputWaiting = MetricDeclaration(
        name: "transitiond_input_waiting", kind: .gauge,
        help: "1 while the daemon waits for a touchscreen (none attached), else 0.")
    public static let flightRecorderBytes = MetricDeclaration(
        name: "transitiond_flight_recorder_bytes", kind: .gauge,
        help: "Bytes the flight recorder's rings hold now.")
    public static let panelReportRate = MetricDeclaration(
        name: "transitiond_panel_report_rate_hz", kind: .gauge,
        help: "A panel's report rate while a contact moves, over its recent report intervals: quantile 0.5 (the median) and 0.05 (the rate it keeps 95 % of the time), by panel.")
    public static let panelReportJitter = MetricDeclaration(
        name: "transitiond_panel_report_jitter_seconds", kind: .gauge,
        help: "The interquartile range of a panel's recent report intervals while a contact moves, by panel.")
    public static let panelDegraded = MetricDeclaration(
        name: "transitiond_panel_degraded", kind: .gauge,
        help: "1 while a panel's median report rate while touched is below [input] min_report_rate, else 0, by panel.")
    public static let inputToWrite = MetricDeclaration(
        name: "transitiond_input_to_write_seconds", kind: .histogram,
        help: "From an input event (its kernel timestamp; in a paced replay, when the step was due) to the first client write of the events it caused.")
    public static let touchToFrame = MetricDeclaration(
        name: "transitiond_touch_to_frame_seconds", kind: .histogram,
        help: "From an input event (as for transitiond_input_to_write_seconds) to the presented frame that showed it, as clients report their frames (frames command), by transport; clipped to 0-10 s.")

    // MARK: Clients

    public static let clients = MetricDeclaration(
        name: "transitiond_clients", kind: .gauge,
        help: "Clients connected now, by transport (unix, websocket).")
    public static let connections = MetricDeclaration(
        name: "transitiond_client_connections_total", kind: .counter,
        help: "Connections admitted as clients, by transport.")
    public static let connectionsRefused = MetricDeclaration(
        name: "transitiond_client_connections_refused_total", kind: .counter,
        help: "Connections refused: a transport at its limit (max_clients, max_websocket_clients) or a peer at max_clients_per_peer.")
    public static let linesCoalesced = MetricDeclaration(
        name: "transitiond_lines_coalesced_total", kind: .counter,
        help: "changed and animating lines a slow client did not get because a newer one replaced them.")
    public static let backlogDisconnects = MetricDeclaration(
        name: "transitiond_backlog_disconnects_total", kind: .counter,
        help: "Clients disconnected for falling behind by more than backlog_limit bytes.")
    public static let commands = MetricDeclaration(
        name: "transitiond_commands_total", kind: .counter,
        help: "Commands answered, by command (invalid for a line that is not one) and result (ok or the error code).")

    // MARK: The daemon

    public static let buildInfo = MetricDeclaration(
        name: "transitiond_build_info", kind: .gauge,
        help: "Always 1; the labels say which transitiond this is.")

    public static let info = MetricDeclaration(
        name: "transitiond_info", kind: .gauge,
        help: "Always 1; the labels say which kiosk this is ([identity]: kiosk, site, its labels) and which config it runs (config_hash).")
    public static let processStartTime = MetricDeclaration(
        name: "process_start_time_seconds", kind: .gauge,
        help: "When the daemon started, in seconds since the Unix epoch (a restart changes it).")

    /// All of them, for the factory's help lines.
    public static let all: [MetricDeclaration] = [
        transitionsBegan, transitionsEnded, candidatesRejected,
        inputEvents, inputFrames, inputResyncs, ghostTouches, stuckContacts, touchesWithheld, devicesLost, devicesAttached, inputWaiting, flightRecorderBytes,
        panelReportRate, panelReportJitter, panelDegraded,
        inputToWrite,
        touchToFrame,
        clients, connections, connectionsRefused, linesCoalesced, backlogDisconnects, commands,
        buildInfo, info, processStartTime,
    ]

    /// The latency histogram's buckets: 50 µs to 1 s.
    public static let latencyBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
    ]
}
