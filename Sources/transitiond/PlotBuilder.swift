import ReplayPlot
import Engine

/// Gathers what a replay did into the plot's input (`replay --plot`): per
/// transition its progress and velocity samples (interacting, then the
/// completion animation's frames), its releases with the decision and what
/// made it, and the candidates it rejected; transitions that did nothing
/// are left out.
struct PlotBuilder {
    let configuration: EngineConfiguration
    private var tracks: [Int: PlotTransition] = [:]
    /// Per transition: what decided its last end (from the explanations).
    private var causes: [Int: String] = [:]
    /// A snap flick's projection p*, per transition, until its `ended`.
    private var projections: [Int: Double] = [:]
    /// Why nothing began, in `--explain`'s words, for a plot with no panel.
    private var summary: ExplanationSummary

    init(configuration: EngineConfiguration) {
        self.configuration = configuration
        summary = ExplanationSummary(configuration: configuration)
    }

    /// A new track for transition `i`.
    private func make(_ i: Int) -> PlotTransition {
        let spec = i < configuration.transitions.count ? configuration.transitions[i] : nil
        // With snap points the threshold decides nothing: the points are drawn instead.
        let points = spec?.snap?.points.points ?? []
        var track = PlotTransition(name: spec?.name ?? "transition \(i)",
                                   finishThreshold: points.isEmpty ? spec?.finishThreshold ?? 0.5 : .nan,
                                   flickVelocity: spec?.flickVelocity ?? 1, samples: [], releases: [], rejections: [])
        track.snapPoints = points
        return track
    }

    mutating func add(_ explanation: Explanation) {
        summary.add(explanation)
        switch explanation {
        case .touchDown, .candidate, .ignored:
            return
        case .rejected(let i, let time, let why):
            // Appended in place: a copy out of the dictionary would copy the arrays each time.
            if tracks[i] == nil { tracks[i] = make(i) }
            tracks[i]!.rejections.append(PlotMarker(time: time, text: why.text))
        case .decided(let i, _, _, let cause, _, _, _):
            switch cause {
            case .flick: causes[i] = "flick"
            case .threshold: causes[i] = "threshold"
            case .noRule: causes[i] = ""
            case .nearestPoint: causes[i] = "nearest point"
            case .projected(_, let p, _, _, _):
                causes[i] = "projected flick"
                projections[i] = p
            }
        }
    }

    mutating func add(_ event: TransitionEvent) {
        let i = event.transition
        if tracks[i] == nil { tracks[i] = make(i) }
        switch event.kind {
        case .began, .changed:
            tracks[i]!.samples.append(PlotSample(time: event.time, progress: event.progress, velocity: event.velocity,
                                                 phase: .interacting))
        case .ended:
            tracks[i]!.samples.append(PlotSample(time: event.time, progress: event.progress, velocity: event.velocity,
                                                 phase: .interacting))
            tracks[i]!.releases.append(PlotRelease(time: event.time, progress: event.progress, velocity: event.velocity,
                                                   decision: event.decision?.rawValue ?? "", reason: event.reason?.rawValue ?? "",
                                                   decidedBy: causes[i] ?? "", target: event.index == nil ? nil : event.target,
                                                   projected: projections.removeValue(forKey: i)))
        case .animating, .finished, .cancelled:
            tracks[i]!.samples.append(PlotSample(time: event.time, progress: event.progress, velocity: event.velocity,
                                                 phase: .animating))
        }
    }

    /// Why no transition began (empty when one did), the lines `--explain` ends with.
    var whyNothingBegan: [String] {
        summary.whyNothingBegan().map(\.text)
    }

    /// The transitions that did something, in config order.
    var transitions: [PlotTransition] {
        tracks.sorted { $0.key < $1.key }.map(\.value).filter { !$0.samples.isEmpty }
    }
}
