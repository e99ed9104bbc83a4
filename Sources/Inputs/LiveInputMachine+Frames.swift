import EvdevInput
import TouchFilter
import Engine

extension LiveInputMachine {
    // MARK: Inputs: a panel's events, the batch's end, ticks

    /// Events of an attached panel, in order: each `SYN_REPORT` makes a
    /// frame for the engine (the one after a `SYN_DROPPED` a resync frame:
    /// gestures whose fingers did not survive end with a `device-lost`
    /// cancel), and in filter mode the panel's filter then hears what the
    /// engine says of each touch. Events of a panel not attached are dropped.
    mutating func events(_ input: [InputEvent], source: Int, into out: inout Output) {
        // A stuck deadline that passed before these events (the timer was
        // late) ends its contacts first, as it would have on time.
        if let first = input.first, let deadline = stuckDeadline(of: source), deadline <= Double(first.time) * 1e-6 {
            endStuckContacts(by: deadline, into: &out)
        }
        // Taken out, so that the assembler's storage is uniquely referenced while feeding.
        guard var frames = assemblers.removeValue(forKey: source) else { return }
        var filter = filters.removeValue(forKey: source)
        counters.inputEvents += input.count
        if let last = input.last {
            newestInputTime = max(newestInputTime ?? last.time, last.time)
            lastEventTimes[source] = last.time
        }
        if settings.records { out.actions.append(.record(input, source: source)) }
        for event in input {
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED {
                resyncPending.insert(source)
                counters.resyncs += 1
                health[source]?.resynced()
                out.log(.notice, "SYN_DROPPED on \(devices[source]?.path ?? "the device"): the kernel dropped events; resynchronised from the device state (resync \(counters.resyncs))")
                continue
            }
            let filterFrame = filter?.feed(event) ?? false
            guard frames.feed(event) else { continue }
            counters.frames += 1
            judgeHealth(of: source, frames.frame, into: &out)
            // A predicted ghost tap is held from the engine as from the copy.
            let seen = filterFrame ? filter?.engineFrame(frames) : nil
            if resyncPending.remove(source) != nil {
                engine.processResync(seen ?? frames.frame, into: &out.events)
            } else {
                engine.process(seen ?? frames.frame, into: &out.events)
            }
            if filterFrame {
                filter?.decide(at: frames.frame.time, into: &out) { slot in verdict(slot, source: source, frames) }
                if filter?.hasNews == true, let news = filter?.news(device: devices[source]?.path ?? "the panel",
                                                                     at: frames.frame.time, into: &out) {
                    counters.ghostTouches += news.quarantined
                    health[source]?.ghostTouchesQuarantined(news.quarantined)
                    counters.touchesWithheldForMaxContacts += news.withheld[.maxContacts] ?? 0
                    counters.palmsWithheld += news.withheld[.palm] ?? 0
                    counters.touchesWithheldForBlock += news.withheld[.block] ?? 0
                }
            }
        }
        assemblers[source] = frames
        if let filter { filters[source] = filter }
    }

    /// The panel's health hears of a frame (as the panel reported it); a
    /// change of its verdict is logged once.
    mutating func judgeHealth(of source: Int, _ frame: TouchFrame, into out: inout Output) {
        // Updated in place (every frame comes here): no copy of the panel's window.
        guard let change = health[source]?.frame(frame) else { return }
        switch change {
        case .none:
            return
        case .degraded(let report):
            let path = devices[source]?.path ?? "the panel"
            out.log(.notice, "\(path) reports at \(Self.hertz(report.medianRate)) while touched (median; 5th percentile \(Self.hertz(report.p5Rate))), below min_report_rate \(Self.hertz(settings.health.minReportRate)): degraded")
        case .recovered(let report):
            let path = devices[source]?.path ?? "the panel"
            out.log(.notice, "\(path) reports at \(Self.hertz(report.medianRate)) while touched again (median; 5th percentile \(Self.hertz(report.p5Rate))): no longer degraded")
        }
    }

    /// `47.5 Hz`, one decimal.
    static func hertz(_ rate: Double?) -> String {
        guard let rate else { return "? Hz" }
        return "\((rate * 10).rounded() / 10) Hz"
    }

    /// What the UI may have of the touch in `slot`: nothing of one a
    /// transition owns, a hold for one that began where an enabled
    /// transition's gesture may start, else all of it.
    private func verdict(_ slot: Int, source: Int, _ frames: TouchFrameAssembler) -> TouchFilterMachine.Verdict {
        guard let id = frames.contactID(inSlot: slot) else { return .free }
        if engine.isClaimed(source: source, id: id) { return .claimed }
        for c in frames.frame.contacts where c.id == id {
            return engine.mayStartGesture(source: source, x: c.downX, y: c.downY) ? .startArea : .free
        }
        return .free
    }

    /// The source's batch is through: its engine events go out at once
    /// (one flush per client per batch), and the next tick is set.
    mutating func batchEnded(into out: inout Output) {
        counters.batches += 1
        if !out.events.isEmpty {
            counters.transitionEvents += out.events.count
            out.actions.append(.emit(inputTime: newestInputTime))
        }
        checkMisfires(into: &out)
        newestInputTime = nil
        scheduleTick(into: &out)
    }

    /// The timer set for `deadline` fired at `now`: held touches and
    /// delayed frames due go to the copies, animation frames to the clients.
    mutating func tick(due deadline: Double, now: Double, into out: inout Output) {
        guard !stopped else { return }
        let time = max(now, deadline)
        endStuckContacts(by: time, into: &out)
        for i in filters.values.indices { filters.values[i].advance(to: time, into: &out) }
        engine.advance(to: time, into: &out.events)
        if !out.events.isEmpty {
            counters.transitionEvents += out.events.count
            out.actions.append(.emit(inputTime: nil))
        }
        scheduleTick(into: &out)
    }

    // MARK: Stuck contacts

    /// When the contacts down on `source` count as stuck (`[filter]
    /// stuck_after`): its last event's time + `stuck_after`, nil when the
    /// rule is off or no contact is down. Any event of the panel moves it:
    /// a contact is stuck only while its whole panel is silent (a finger
    /// held still on a panel that reports nothing looks the same, hence
    /// the docs' advice to set it above the longest press).
    func stuckDeadline(of source: Int) -> Double? {
        guard let after = settings.filterRules.stuckAfter, let last = lastEventTimes[source],
              assemblers[source]?.hasContacts == true else { return nil }
        return Double(last) * 1e-6 + after
    }

    /// Ends the contacts of every panel whose stuck deadline came by `time`,
    /// at that deadline (never before the engine's time): the engine gets a
    /// frame without them (a transition one drives ends with a cancel,
    /// reason `stuck`), the panel's copy sees them lift, and they are
    /// counted. The panel's later events for them change nothing until
    /// their slots get new touches (`TouchFrameAssembler.withdrawAll`).
    mutating func endStuckContacts(by time: Double, into out: inout Output) {
        for source in assemblers.keys.sorted() {
            guard let deadline = stuckDeadline(of: source), deadline <= time,
                  var frames = assemblers.removeValue(forKey: source) else { continue }
            let at = max(deadline, engine.now)
            let count = frames.withdrawAll(at: at, reason: .stuck)
            engine.process(frames.frame, into: &out.events)
            if var panel = filters.removeValue(forKey: source) {
                panel.contactsStuck(at: at, into: &out)
                filters[source] = panel
            }
            assemblers[source] = frames
            counters.stuckContacts += count
            health[source]?.contactsStuck(count)
            out.explain(at, "copy: \(count) touch\(count == 1 ? "" : "es") stuck (no event for \(settings.filterRules.stuckAfter ?? 0) s: stuck_after), ended on the copy and for the engine")
            out.log(.notice, "\(devices[source]?.path ?? "the panel"): \(count) contact\(count == 1 ? "" : "s") stuck (no event for \(settings.filterRules.stuckAfter ?? 0) s) ended (\(counters.stuckContacts) so far)")
        }
    }

    /// One timer at the next deadline: the engine's next animation frame,
    /// a filter's held touch or delayed frame, or a panel's stuck deadline;
    /// none once stopped.
    func scheduleTick(into out: inout Output) {
        var next = stopped ? nil : engine.nextDeadline
        for panel in filters.values where !stopped {
            if let t = panel.nextDeadline { next = min(next ?? t, t) }
        }
        for source in assemblers.keys where !stopped {
            if let t = stuckDeadline(of: source) { next = min(next ?? t, t) }
        }
        out.actions.append(next.map { .scheduleTick($0) } ?? .cancelTick)
    }
}
