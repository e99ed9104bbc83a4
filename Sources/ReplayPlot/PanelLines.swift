/// The lines of a panel in SVG user space: where the samples' progress and
/// velocity go, cut where they must not join, split by phase, thinned.
struct PanelLines {
    /// A stretch of the progress line drawn in one style. A stretch after the
    /// first of its line starts at the previous stretch's last point, so the
    /// line stays joined; `frames` are its own samples (for the frame dots).
    struct ProgressRun {
        var phase: PlotSample.Phase
        var points: [PlotPoint]
        var frames: [PlotPoint]
    }

    var progressRuns: [ProgressRun] = []
    var velocityLines: [[PlotPoint]] = []

    init(_ transition: PlotTransition, layout: PanelLayout) {
        for line in PanelLines.lines(transition) {
            var runs: [ProgressRun] = []
            var velocity: [PlotPoint] = []
            for index in line {
                let sample = transition.samples[index]
                let x = layout.x(time: sample.time)
                if sample.velocity.isFinite {
                    velocity.append(PlotPoint(x: x, y: layout.y(velocity: sample.velocity)))
                }
                guard sample.progress.isFinite else { continue }
                let point = PlotPoint(x: x, y: layout.y(progress: sample.progress))
                if runs.last?.phase == sample.phase {
                    runs[runs.count - 1].points.append(point)
                    runs[runs.count - 1].frames.append(point)
                } else {
                    let join = runs.last?.points.last.map { [$0] } ?? []
                    runs.append(ProgressRun(phase: sample.phase, points: join + [point], frames: [point]))
                }
            }
            for run in runs {
                progressRuns.append(ProgressRun(phase: run.phase, points: PointThinning.thinned(run.points),
                                                frames: PointThinning.thinned(run.frames)))
            }
            if !velocity.isEmpty { velocityLines.append(PointThinning.thinned(velocity)) }
        }
    }

    /// The samples with a finite time, as lines of indices: a line is cut where a
    /// new interaction starts (a dragging sample after completion frames, or after a release).
    static func lines(_ transition: PlotTransition) -> [[Int]] {
        let releaseTimes = transition.releases.map(\.time).filter(\.isFinite).sorted()
        var lines: [[Int]] = [], current: [Int] = []
        var previous: PlotSample?
        for (index, sample) in transition.samples.enumerated() where sample.time.isFinite {
            if let previous, sample.phase == .interacting,
               previous.phase == .animating || releaseTimes.containsTime(from: previous.time, before: sample.time) {
                lines.append(current)
                current = []
            }
            current.append(index)
            previous = sample
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

extension Array where Element == Double {
    /// Whether this sorted array holds a value `v` with `lower ≤ v < upper`.
    func containsTime(from lower: Double, before upper: Double) -> Bool {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < lower { low = middle + 1 } else { high = middle }
        }
        return low < count && self[low] < upper
    }
}
