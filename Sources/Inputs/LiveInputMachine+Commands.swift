import Engine
import TouchFilter
import WireProtocol

extension LiveInputMachine {
    // MARK: Inputs: commands, reload, shutdown

    /// A command at engine time `now`; its events go to `events`, whoever
    /// asked's (no `emit`: the server sends them with its reply).
    mutating func perform(_ command: TransitionEngine.Command, transition: Int, at now: Double,
                          events: inout [TransitionEvent], into out: inout Output) -> TransitionEngine.CommandOutcome {
        let outcome = engine.perform(command, transition: transition, at: now, into: &events)
        scheduleTick(into: &out)
        return outcome
    }

    /// The exclusion regions in force (the clients' `exclude`): no gesture
    /// starts from a touch that begins inside one, and in filter mode such
    /// a touch is not held (`verdict`: the engine says no gesture may start
    /// there), so it goes to the UI at once.
    mutating func setExclusions(_ rects: [ScreenRect]) {
        engine.setExclusions(rects)
    }

    /// Filter mode: the UI's regions (`filter_regions`) replace the
    /// `[[filter.region]]` ones of every panel's filter; nil brings the
    /// config's back. Said in `hello`/`state`, and in a debug line when
    /// they change (a page may send them often: `--verbose` shows them).
    mutating func setFilterRegions(_ regions: [FilterRegion]?, into out: inout Output) {
        guard settings.filterHold != nil, !stopped else { return }
        let before = settings.filterRules.regions
        if let regions {
            if configRegions == nil { configRegions = settings.filterRules.regions }
            settings.filterRules.regions = regions
        } else if let saved = configRegions {
            settings.filterRules.regions = saved
            configRegions = nil
        } else {
            return
        }
        guard settings.filterRules.regions != before else { return }
        for source in filters.keys { filters[source]?.replaceRegions(settings.filterRules.regions) }
        let count = settings.filterRules.regions.count
        out.log(.debug, "filter: \(count) region\(count == 1 ? "" : "s") in force, \(regions == nil ? "the config's again" : "the UI's (filter_regions)")")
    }

    /// `filter_regions`' regions as the filter takes them (their names
    /// checked by the server; one it does not know is left out).
    static func filterRegions(_ wire: [FilterStatus.Region]) -> [FilterRegion] {
        wire.map { region in
            FilterRegion(x: region.x0...region.x1, y: region.y0...region.y1, maxContacts: region.maxContacts,
                         block: region.block.map { Set($0.compactMap(BlockedGesture.init(rawValue:))) })
        }
    }

    /// A new config for new gestures, its millimetres resolved for the
    /// panel they are for; returns, per old transition, its new index
    /// (`TransitionEngine.reload`).
    mutating func reload(_ configuration: EngineConfiguration, into out: inout Output) -> [Int?] {
        baseConfiguration = configuration
        let moved = engine.reload(resolved(configuration, into: &out))
        // Indices move at a reload: the peaks of gestures under way are let go.
        misfires?.forget()
        scheduleTick(into: &out)
        return moved
    }

    /// Everything in flight ends (reason `shutdown`; the events go to
    /// `events`, the server's), the input stops, every touch the UI has
    /// ends, then the copies go. Inputs after it do nothing.
    mutating func shutdown(at now: Double, events: inout [TransitionEvent], into out: inout Output) {
        guard !stopped else { return }
        stopped = true
        engine.shutdown(at: now, into: &events)
        out.actions.append(.cancelTick)
        out.actions.append(.stopInput)
        let time = max(now, engine.now)
        for source in filters.keys.sorted() { filters[source]?.sourceLost(at: time, into: &out) }
        filters = [:]
        for copy in copies { out.actions.append(.removeCopy(copy.id)) }
        copies = []
        awaitingCopy = nil
    }
}
