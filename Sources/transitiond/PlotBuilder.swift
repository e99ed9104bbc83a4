import ReplayPlot
import TransitionEngine

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

    init(configuration: EngineConfiguration) {
        self.configuration = configuration
    }

    private mutating func track(_ i: Int) -> PlotTransition {
        if let t = tracks[i] { return t }
        let spec = i < configuration.transitions.count ? configuration.transitions[i] : nil
        return PlotTransition(name: spec?.name ?? "transition \(i)", finishThreshold: spec?.finishThreshold ?? 0.5,
                              flickVelocity: spec?.flickVelocity ?? 1, samples: [], releases: [], rejections: [])
    }

    mutating func add(_ explanation: Explanation) {
        switch explanation {
        case .touchDown, .candidate:
            return
        case .rejected(let i, let time, let why):
            var t = track(i)
            t.rejections.append(PlotMarker(time: time, text: why.text))
            tracks[i] = t
        case .decided(let i, _, _, let cause, _, _, _):
            switch cause {
            case .flick: causes[i] = "flick"
            case .threshold: causes[i] = "threshold"
            case .noRule: causes[i] = ""
            }
        }
    }

    mutating func add(_ event: TransitionEvent) {
        let i = event.transition
        var t = track(i)
        switch event.kind {
        case .began, .changed:
            t.samples.append(PlotSample(time: event.time, progress: event.progress, velocity: event.velocity, phase: .interacting))
        case .ended:
            t.samples.append(PlotSample(time: event.time, progress: event.progress, velocity: event.velocity, phase: .interacting))
            t.releases.append(PlotRelease(time: event.time, progress: event.progress, velocity: event.velocity,
                                          decision: event.decision?.rawValue ?? "", reason: event.reason?.rawValue ?? "",
                                          decidedBy: causes[i] ?? ""))
        case .animating, .finished, .cancelled:
            t.samples.append(PlotSample(time: event.time, progress: event.progress, velocity: event.velocity, phase: .animating))
        }
        tracks[i] = t
    }

    /// The transitions that did something, in config order.
    var transitions: [PlotTransition] {
        tracks.sorted { $0.key < $1.key }.map(\.value).filter { !$0.samples.isEmpty }
    }
}
