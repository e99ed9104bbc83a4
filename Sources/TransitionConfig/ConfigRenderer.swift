import Engine
import TouchFilter

/// Writes an `EngineConfiguration` (or a `DaemonConfiguration`) as the TOML
/// config it is equivalent to: every key that applies, with its effective
/// value and, in a comment, what it may be. `ConfigLoader.parse` (or
/// `parseDaemon`) reads the text back to an equal value. Every key is written
/// through its declaration (`ConfigKey.entry`), so only declared keys can be.
enum ConfigRenderer {
    /// The engine part exactly as `render(_: EngineConfiguration)` writes
    /// it, then the `[server]`, `[input]`, `[filter]` (with its
    /// `[[filter.region]]` tables, in order) and `[metrics]` tables, and
    /// `[identity]` when it says anything.
    static func render(_ config: DaemonConfiguration) -> String {
        render(config.engine)
            + table(ServerKeys.table, entries(of: config.server), indent: "")
            + table(InputKeys.table, entries(of: config.input), indent: "")
            + table(FilterKeys.table, entries(of: config.filter), indent: "")
            + config.filter.regions.map { table(FilterRegionKeys.table, entries(of: $0), indent: "  ") }.joined()
            + table(MetricsKeys.table, entries(of: config.metrics), indent: "")
            + (config.identity.isEmpty ? "" : table(IdentityKeys.table, entries(of: config.identity), indent: ""))
    }

    static func render(_ config: EngineConfiguration) -> String {
        var out = "# transitiond configuration: every key with its effective value.\n"
        out += section([TopLevelKeys.frameRate.entry(config.frameRate)], schema: ConfigSchema.root, indent: "")
        for transition in config.transitions {
            out += table(TransitionKeys.table, entries(of: transition), indent: "")
            for track in transition.keyframes {
                out += table(KeyframeKeys.table, entries(of: track), indent: "  ")
            }
        }
        return out
    }

    // MARK: - Entries, in schema order

    private static func entries(of transition: TransitionSpec) -> [ConfigEntry?] {
        typealias Key = TransitionKeys
        var entries = [Key.name.entry(transition.name), Key.gesture.entry(GestureName(transition.gesture))]
        switch transition.gesture {
        case .edgePan(let edge, let fingers, let edgeMargin, let range):
            entries += [Key.edge.entry(edge), Key.edgePanFingers.entry(fingers),
                        Key.edgeMarginMM.entry(transition.physical.edgeMarginMM) ?? Key.edgeMargin.entry(edgeMargin),
                        Key.edgeRange.entry([range.start, range.end])]
        case .swipe(let direction, let fingers):
            entries += [Key.swipeDirection.entry(direction), Key.swipeFingers.entry(fingers)]
        case .pinch(let direction):
            entries += [Key.pinchDirection.entry(direction), Key.pinchFingers.entry(transition.gesture.fingers)]
        }
        entries += [
            Key.activationMM.entry(transition.physical.activationMM) ?? Key.activation.entry(transition.activation),
            Key.distanceMM.entry(transition.physical.distanceMM) ?? Key.distance.entry(transition.distance),
            Key.finishThreshold.entry(transition.finishThreshold),
            Key.flickVelocity.entry(transition.flickVelocity),
            Key.duration.entry(transition.duration),
            Key.completionSpeed.entry(transition.completionSpeed),
            Key.completionCurve.entry(CompletionCurveName(transition.completionCurve)),
        ]
        if case .spring(let dampingRatio, let stiffness) = transition.completionCurve {
            entries += [Key.dampingRatio.entry(dampingRatio), Key.stiffness.entry(stiffness)]
        }
        entries += [
            Key.interruptible.entry(transition.interruptible),
            Key.reportPosition.entry(transition.reportPosition),
            Key.enabled.entry(transition.enabled),
            Key.device.entry(transition.device),
        ]
        if let snap = transition.snap {
            // Evenly spaced from 0 to 1: `pages`.
            let n = snap.points.points.count
            let paged = SnapPoints(pages: n) == snap.points
            entries += [
                paged ? Key.pages.entry(n) : Key.snapPoints.entry(snap.points.points),
                Key.bidirectional.entry(snap.bidirectional),
                Key.longSwipes.entry(snap.longSwipes),
                Key.decelerationRate.entry(snap.decelerationRate),
                Key.overshoot.entry(snap.overshoot),
            ]
        }
        return entries
    }

    private static func entries(of track: KeyframeTrack) -> [ConfigEntry?] {
        typealias Key = KeyframeKeys
        return [
            Key.property.entry(track.property),
            Key.start.entry(track.start),
            Key.duration.entry(track.duration),
            Key.from.entry(track.from),
            Key.to.entry(track.to),
            Key.curve.entry(track.curve),
        ]
    }

    /// The panel and its geometry, then the filter's and flight recorder's
    /// keys; `calibration` only when set (else the device's is used).
    private static func entries(of input: InputSettings) -> [ConfigEntry?] {
        typealias Key = InputKeys
        return [
            Key.device.entry(input.device),
            Key.mode.entry(input.mode),
            Key.rotation.entry(input.rotation.rawValue),
            Key.flipX.entry(input.flipX),
            Key.flipY.entry(input.flipY),
            Key.filterHold.entry(input.filterHold),
            Key.flightRecorder.entry(input.flightRecorder),
            Key.flightRecorderBytes.entry(input.flightRecorderBytes),
            Key.keepMisfires.entry(input.misfires.keep),
            Key.misfireSpool.entry(input.misfires.folder),
            Key.misfireSpoolFiles.entry(input.misfires.maxFiles),
            Key.misfireSpoolBytes.entry(input.misfires.maxBytes),
            Key.misfireInterval.entry(input.misfires.interval),
            Key.maxEdgeExclusion.entry(input.maxEdgeExclusion),
            Key.minReportRate.entry(input.minReportRate),
            Key.calibration.entry(input.calibration),
        ]
    }

    /// `max_contacts`, `stuck_after` and `palm_mm` only when set; `block`
    /// in `BlockedGesture`'s order.
    private static func entries(of filter: FilterRules) -> [ConfigEntry?] {
        typealias Key = FilterKeys
        return [
            Key.maxContacts.entry(filter.maxContacts),
            Key.block.entry(BlockedGesture.ordered(filter.block)),
            Key.ghostTouches.entry(filter.ghostTouches),
            Key.stuckAfter.entry(filter.stuckAfter),
            Key.palmMillimetres.entry(filter.palmMillimetres),
            Key.transform.entry(filter.transform),
        ]
    }

    /// The rectangle; `max_contacts` and `block` only when the region has
    /// its own (`block = []` is its own: nothing blocked there).
    private static func entries(of region: FilterRegion) -> [ConfigEntry?] {
        typealias Key = FilterRegionKeys
        return [
            Key.x.entry([region.x.lowerBound, region.x.upperBound]),
            Key.y.entry([region.y.lowerBound, region.y.upperBound]),
            Key.maxContacts.entry(region.maxContacts),
            Key.block.entry(region.block.map(BlockedGesture.ordered)),
        ]
    }

    /// `listen` only when set.
    private static func entries(of identity: IdentitySettings) -> [ConfigEntry?] {
        [IdentityKeys.kiosk.entry(identity.kiosk), IdentityKeys.site.entry(identity.site),
         IdentityKeys.labels.entry(identity.labels)]
    }

    private static func entries(of metrics: MetricsSettings) -> [ConfigEntry?] {
        [MetricsKeys.enabled.entry(metrics.enabled), MetricsKeys.listen.entry(metrics.listen)]
    }

    /// `socket`, `max_clients_per_peer` and `websocket` only when set; the mode as a 4-digit octal string.
    private static func entries(of server: ServerSettings) -> [ConfigEntry?] {
        typealias Key = ServerKeys
        return [
            Key.socket.entry(server.socketPath),
            Key.socketMode.entry(server.socketMode),
            Key.maxClients.entry(server.maxClients),
            Key.backlogLimit.entry(server.backlogLimit),
            Key.allowUIDs.entry(server.allowUIDs),
            Key.allowGroups.entry(server.allowGroups),
            Key.webSocket.entry(server.webSocket),
            Key.allowOrigins.entry(server.allowOrigins),
            Key.maxWebSocketClients.entry(server.maxWebSocketClients),
            Key.maxClientsPerPeer.entry(server.maxClientsPerPeer),
        ]
    }

    // MARK: - Formatting

    /// A blank line, the table's header, then its keys.
    private static func table(_ table: ChildSection, _ entries: [ConfigEntry?], indent: String) -> String {
        "\n" + indent + table.schema.header + "\n" + section(entries, schema: table.schema, indent: indent)
    }

    /// `key = value` lines, comments aligned, each saying what the key may
    /// be; nil entries (absent optional keys) are left out.
    private static func section(_ entries: [ConfigEntry?], schema: SectionSchema, indent: String) -> String {
        let lines = entries.compactMap { entry in
            entry.map { entry in
                assert(schema.keyNames.contains(entry.spec.name), "\(entry.spec.name) is not a key of \(schema.header)")
                return (text: indent + entry.line, comment: entry.spec.summary)
            }
        }
        let width = lines.map(\.text.count).max() ?? 0
        var out = ""
        for line in lines {
            out += line.text
            if let comment = line.comment {
                out += String(repeating: " ", count: width - line.text.count) + "  # " + comment
            }
            out += "\n"
        }
        return out
    }
}
