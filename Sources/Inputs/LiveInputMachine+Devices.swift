import EvdevInput
import Logging
import Engine

extension LiveInputMachine {
    // MARK: Inputs: panels attached and lost, the source's news

    /// A panel was opened (its geometry: the config's, or its calibration):
    /// it gets an assembler and, in filter mode, a filter writing to its
    /// copy. When a copy must be made, the attach ends once the executor
    /// says how that went (`copyCreated`, `copyFailed`).
    mutating func attached(_ attached: AttachedDevice, geometry: ScreenGeometry, into out: inout Output) {
        let source = attached.source
        guard source >= 0 && source < TouchFrame.maximumSources else {
            out.log(.error, "BUG: \(attached.path) attached as source \(source), beyond \(TouchFrame.maximumSources); ignored")
            return
        }
        // The millimetres are for the first panel attached (also when the
        // config has none yet: a reload may bring them).
        let resolvesLengths = lengthsSource == nil || lengthsSource == source
        resolveLengths(attaching: attached, geometry: geometry, resolves: resolvesLengths, into: &out)
        do {
            assemblers[source] = try TouchFrameAssembler(device: attached.description, timeOrigin: 0, geometry: geometry,
                                                         source: source,
                                                         palmMillimetres: settings.filterRules.palmMillimetres)
        } catch {
            out.log(.error, "\(attached.path): \(error.message)")
            return
        }
        geometries[source] = geometry
        health[source] = PanelHealth(settings: settings.health)
        if resolvesLengths { lengthsSource = source }
        devices[source] = attached
        engine.nameSource(source, attached.names)
        if settings.records { out.actions.append(.startRecording(attached)) }
        if let hold = settings.filterHold, setUpFilter(for: attached, hold: hold, geometry: geometry, into: &out) { return }
        attachDone(attached, into: &out)
    }

    /// The end of an attach: the panel is in use.
    mutating func attachDone(_ attached: AttachedDevice, into out: inout Output) {
        let source = attached.source
        resyncPending.remove(source)
        counters.attaches += 1
        let check = TouchscreenCheck(attached.description)
        out.log(.info, "attached \(attached.path) \"\(attached.description.name)\" (\(check.reason)\(attached.grabbed ? ", grabbed" : ""))")
        if let geometry = geometries[source], !geometry.isIdentity { out.log(.info, "geometry of \(attached.path): \(geometry)") }
        out.actions.append(.statusChanged(statusText))
    }

    /// A panel went (at `now`): every gesture on it ends with `ended`
    /// (cancel, `device-lost`) and animates back — an empty resync frame of
    /// its source: no contact survived; gestures on other panels go on, and
    /// so do command-driven ones (no finger drives them). Its forwarded
    /// touches end on its copy, which waits for the panel to come back.
    mutating func lost(path: String, reason: String, source: Int, at now: Double, into out: inout Output) {
        let before = out.events.count
        let time = max(now, engine.now)
        if devices[source] != nil {
            engine.processResync(TouchFrame(time: time, contacts: [], source: source), into: &out.events)
        }
        let cancelled = out.events[before...].filter { $0.kind == .ended }.count
        if var panel = filters.removeValue(forKey: source) { panel.sourceLost(at: time, into: &out) }
        for i in copies.indices where copies[i].user == source { copies[i].user = nil }
        assemblers[source] = nil
        lastEventTimes[source] = nil
        health[source] = nil
        devices[source] = nil
        geometries[source] = nil
        engine.nameSource(source, nil)
        if lengthsSource == source { lengthsFollowFirstPanel(into: &out) }
        resyncPending.remove(source)
        counters.losses += 1
        out.log(.warning, "lost \(path): \(reason); \(cancelled) transition\(cancelled == 1 ? "" : "s") cancelled")
        out.actions.append(.statusChanged(statusText))
    }

    /// No panel is attached; `text` says what the source waits for.
    mutating func waiting(_ text: String, into out: inout Output) {
        waitingText = text.hasPrefix("waiting for ") ? String(text.dropFirst(12)) : text
        out.log(.info, text)
        out.actions.append(.statusChanged(statusText))
    }

    /// Something the source wants logged.
    func message(_ level: InputReport.Level, _ text: String, into out: inout Output) {
        out.log(Self.logLevel(level), text)
    }

    static func logLevel(_ level: InputReport.Level) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .notice: return .notice
        case .warning: return .warning
        case .error: return .error
        }
    }
}
