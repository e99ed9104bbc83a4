/// Panels and their axes from the transitions: which transitions get a panel
/// (those with a sample at a finite time), the time range that holds all
/// their finite times, and a symmetric velocity range that holds their finite
/// velocities and ±flick velocity.
enum LayoutPlanning {
    /// The shortest time range drawn as it is; shorter (one sample, equal times)
    /// is shown as ±0.5 s around its middle.
    static let shortestTimeSpan = 1e-6
    /// Space left on both sides of the data on the time axis, as a share of its span.
    static let timePadding = 0.02
    /// Headroom above the largest velocity, as a share of it.
    static let velocityHeadroom = 0.1

    static func layouts(_ transitions: [PlotTransition]) -> [PanelLayout] {
        var layouts: [PanelLayout] = []
        var top = PlotGeometry.titleHeight
        for (index, transition) in transitions.enumerated() where transition.samples.contains(where: { $0.time.isFinite }) {
            let panel = layout(transition, index: index, panelTop: top)
            layouts.append(panel)
            top += panel.panelHeight
        }
        return layouts
    }

    /// The document's height for `layouts`, or with no panel for `reasonLines` lines saying why.
    static func documentHeight(_ layouts: [PanelLayout], reasonLines: Int) -> Double {
        guard let last = layouts.last else {
            let reasons = PlotGeometry.emptyReasonBaseline + Double(reasonLines) * PlotGeometry.emptyReasonSpacing
            return max(PlotGeometry.emptyHeight, reasonLines == 0 ? 0 : reasons)
        }
        return last.panelTop + last.panelHeight + PlotGeometry.bottomMargin
    }

    static func layout(_ transition: PlotTransition, index: Int, panelTop: Double) -> PanelLayout {
        let time = timeAxis(transition)
        let velocity = velocityAxis(transition)
        // The list of rejections under the panel takes a row per mark (or per two).
        let left = PlotGeometry.plotLeft, right = PlotGeometry.plotRight
        let marks = RejectionList.marks(transition.rejections) {
            left + PanelLayout.fraction($0, from: time.range.lowerBound, to: time.range.upperBound) * (right - left)
        }
        return PanelLayout(
            name: transition.name, transitionIndex: index,
            panelTop: panelTop, panelHeight: PlotGeometry.panelHeight + PlotGeometry.rejectionListHeight(marks.count),
            plotLeft: left, plotRight: right,
            plotTop: panelTop + PlotGeometry.plotTopOffset, plotBottom: panelTop + PlotGeometry.plotBottomOffset,
            velocityTop: panelTop + PlotGeometry.velocityTopOffset, velocityBottom: panelTop + PlotGeometry.velocityBottomOffset,
            timeRange: time.range, timeTicks: time.ticks, timeTickDecimals: time.decimals,
            velocityLimit: velocity.limit, velocityTicks: velocity.ticks, velocityTickDecimals: velocity.decimals)
    }

    // MARK: - Time

    static func timeAxis(_ transition: PlotTransition) -> (range: ClosedRange<Double>, ticks: [Double], decimals: Int) {
        var lowest = Double.infinity, highest = -Double.infinity
        func include(_ time: Double) {
            guard time.isFinite else { return }
            lowest = min(lowest, time)
            highest = max(highest, time)
        }
        transition.samples.forEach { include($0.time) }
        transition.releases.forEach { include($0.time) }
        transition.rejections.forEach { include($0.time) }
        guard lowest <= highest else { return (0...1, [0, 1], 0) }

        var lower: Double, upper: Double
        let span = highest - lowest
        if span >= shortestTimeSpan {
            let padding = span.isFinite ? span * timePadding : 0
            lower = lowest - padding
            upper = highest + padding
        } else {
            let middle = lowest / 2 + highest / 2
            lower = middle - 0.5
            upper = middle + 0.5
        }
        if !lower.isFinite { lower = lowest }
        if !upper.isFinite { upper = highest }
        // About eight labelled ticks across the axis.
        if let step = NiceStep(atLeast: (upper - lower) / 8), let ticks = step.ticks(from: lower, to: upper) {
            return (lower...upper, ticks, step.decimals)
        }
        return (lower...upper, lower < upper ? [lower, upper] : [lower], 3)
    }

    // MARK: - Velocity

    static func velocityAxis(_ transition: PlotTransition) -> (limit: Double, ticks: [Double], decimals: Int) {
        var largest = 0.0
        for sample in transition.samples where sample.time.isFinite && sample.velocity.isFinite {
            largest = max(largest, abs(sample.velocity))
        }
        for release in transition.releases where release.velocity.isFinite {
            largest = max(largest, abs(release.velocity))
        }
        if transition.flickVelocity.isFinite, transition.flickVelocity > 0 {
            largest = max(largest, transition.flickVelocity)
        }
        var wanted = largest * (1 + velocityHeadroom)
        if !wanted.isFinite { wanted = .greatestFiniteMagnitude }
        if !(wanted > 1e-9) { wanted = 1 }
        // One or two labelled ticks on each side of zero: the strip is short.
        if let step = NiceStep(atLeast: wanted / 2) {
            let limit = WholeNumbers.up(wanted / step.value) * step.value
            if limit.isFinite, let ticks = step.ticks(from: -limit, to: limit) {
                return (limit, ticks, step.decimals)
            }
        }
        return (wanted, [-wanted, 0, wanted], 0)
    }
}
