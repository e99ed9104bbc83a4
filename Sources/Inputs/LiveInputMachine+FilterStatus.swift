import Engine
import TouchFilter
import WireProtocol

extension LiveInputMachine {
    /// Filter mode: what the filter does, for `hello` and `state` — the hold,
    /// the `[filter]` rules in force (each one that is off left out), and
    /// the ghost tap patterns every panel's filter has confirmed and still
    /// quarantines at `now` (seconds on the input's clock; nil: as of each
    /// panel's latest event), by source, each with its panel's path when
    /// several panels are selected. nil in the other modes.
    func filterStatus(at now: Double? = nil) -> FilterStatus? {
        guard let hold = settings.filterHold else { return nil }
        let rules = settings.filterRules
        var patterns: [FilterStatus.GhostPattern] = []
        for (source, panel) in filters.sorted(by: { $0.key < $1.key }) {
            let device = settings.selectsSeveral ? devices[source]?.path : nil
            for pattern in panel.filter.ghostPatterns(at: now) {
                patterns.append(FilterStatus.GhostPattern(device: device, period: pattern.period, xMillimetres: pattern.x,
                                                          yMillimetres: pattern.y, taps: pattern.occurrences))
            }
        }
        let ghostTouches: String?
        switch rules.ghostTouches {
        case .off: ghostTouches = nil
        case .quarantine: ghostTouches = rules.ghostTouches.rawValue
        }
        return FilterStatus(
            hold: hold, maxContacts: rules.maxContacts, block: Self.names(rules.block),
            regions: rules.regions.map { region in
                FilterStatus.Region(x0: region.x.lowerBound, x1: region.x.upperBound, y0: region.y.lowerBound,
                                    y1: region.y.upperBound, maxContacts: region.maxContacts,
                                    block: region.block.map(Self.names))
            },
            ghostTouches: ghostTouches, ghostPatterns: patterns, stuckAfter: rules.stuckAfter,
            palmMillimetres: rules.palmMillimetres, transform: rules.transform)
    }

    /// A `block` list's names, in a fixed order.
    static func names(_ block: Set<BlockedGesture>) -> [String] {
        BlockedGesture.ordered(block).map(\.rawValue)
    }
}
