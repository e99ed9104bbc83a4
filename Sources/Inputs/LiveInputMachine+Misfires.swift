import Engine

/// `[input] keep_misfires`: the machine watches each batch's events and the
/// engine's rejections for gestures that went wrong (`MisfireWatch`), and
/// asks the executor to keep the flight recorder's dump of one.
extension LiveInputMachine {
    /// Watches for misfires from now on, keeping at most one per `interval`
    /// seconds; nil turns it off. The engine explains its rejections only
    /// while it is on (the rule needs how far a rejected candidate went).
    mutating func watchMisfires(every interval: Double?) {
        misfires = interval.map(MisfireWatch.init(interval:))
        engine.explanations = interval == nil ? nil : []
    }

    /// At a batch's end and a tick's, after their events are emitted: a
    /// misfire among them is kept (the dump is made and written off the
    /// loop's time). Every path that makes the engine explain drains what
    /// it explained (here, or after a command), so nothing piles up.
    mutating func checkMisfires(into out: inout Output) {
        guard misfires != nil else { return }
        // Most batches explain nothing (a finger moving): then nothing is copied.
        var explained: [Explanation] = []
        if engine.explanations?.isEmpty == false {
            explained = engine.explanations ?? []
            engine.explanations?.removeAll(keepingCapacity: true)
        }
        guard !out.events.isEmpty || !explained.isEmpty else { return }
        if let misfire = misfires?.observe(out.events, explained, configuration: engine.configuration) {
            out.actions.append(.keepMisfire(misfire))
        }
    }
}
