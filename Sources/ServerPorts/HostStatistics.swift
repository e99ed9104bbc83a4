import Engine
import WireProtocol

/// What an engine host has fed the engine and what the engine did, as the
/// metrics endpoint reads it (on the server's loop, when scraped): the
/// engine's tally, input events and frames, and for live input the panels
/// attached, lost and resynchronised and the flight recorder's memory.
public struct HostStatistics: Sendable, Equatable {
    /// Interactions begun and ended, candidates rejected.
    public var engine = EngineTally()
    /// Raw input events read (live) or replayed.
    public var inputEvents = 0
    /// Touch frames the engine processed.
    public var frames = 0
    /// Whether the input is live panels (the device metrics apply) rather
    /// than a replay.
    public var live = false
    /// Panels attached now.
    public var devicesAttached = 0
    /// Panels lost since start (unplugged, or a read error).
    public var devicesLost = 0
    /// `SYN_DROPPED` resynchronisations since start.
    public var resyncs = 0
    /// Filter mode: ghost taps quarantined (`ghost_touches`) since start.
    public var ghostTouches = 0
    /// Contacts ended as stuck (`[filter] stuck_after`) since start.
    public var stuckContacts = 0
    /// Filter mode: touches withheld from the UI's copy since start, as one
    /// too many for `max_contacts`, as palms, and as fingers of a blocked
    /// gesture (`reason` `max_contacts`, `palm`, `block`).
    public var touchesWithheldForMaxContacts = 0
    public var palmsWithheld = 0
    public var touchesWithheldForBlock = 0
    /// Bytes the flight recorder's rings hold now.
    public var flightRecorderBytes = 0
    /// Live input: every attached panel's health now (report rate while
    /// touched, degraded or not).
    public var panels: [PanelStatus] = []

    public init() {}
}
