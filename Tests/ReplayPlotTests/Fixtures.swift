import ReplayPlot

/// Transitions the tests plot: a `back` with two interactions (a finish by
/// threshold and a cancel by flick) and two rejected candidates, an `idle`
/// without samples, and a `home` cancelled because the device was lost.
enum Fixtures {
    static let finishByThreshold = PlotRelease(time: 0.62, progress: 0.66, velocity: 0.3, decision: "finish",
                                               reason: "released", decidedBy: "threshold")
    static let cancelByFlick = PlotRelease(time: 1.72, progress: 0.35, velocity: -2.4, decision: "cancel",
                                           reason: "released", decidedBy: "flick")
    static let deviceLost = PlotRelease(time: 1.0, progress: 0.4, velocity: 0, decision: "cancel",
                                        reason: "device-lost", decidedBy: "")

    static var back: PlotTransition {
        var samples: [PlotSample] = []
        for k in 0...30 {
            samples.append(PlotSample(time: 0.1 + Double(k) / 60, progress: 0.02 + 0.64 * Double(k) / 30,
                                      velocity: 1.2 - Double(k) * 0.03, phase: .interacting))
        }
        for k in 1...9 {
            let share = Double(k) / 9
            samples.append(PlotSample(time: 0.62 + Double(k) / 60, progress: 0.66 + 0.34 * (1 - (1 - share) * (1 - share)),
                                      velocity: 1.5 * (1 - share), phase: .animating))
        }
        for k in 0...12 {
            samples.append(PlotSample(time: 1.5 + Double(k) / 60, progress: min(0.05 + 0.05 * Double(k), 0.35),
                                      velocity: k > 8 ? -2.4 : 1.6, phase: .interacting))
        }
        for k in 1...8 {
            samples.append(PlotSample(time: 1.72 + Double(k) / 60, progress: 0.35 * (1 - Double(k) / 8),
                                      velocity: -1, phase: .animating))
        }
        return PlotTransition(name: "back", finishThreshold: 0.5, flickVelocity: 1.0, samples: samples,
                              releases: [finishByThreshold, cancelByFlick],
                              rejections: [PlotMarker(time: 1.1, text: "perpendicular"),
                                           PlotMarker(time: 1.3, text: "too many fingers")])
    }

    static var home: PlotTransition {
        var samples: [PlotSample] = []
        for k in 0...40 {
            samples.append(PlotSample(time: 0.3 + Double(k) / 60, progress: 0.4 * Double(k) / 40, velocity: 0.6))
        }
        for k in 1...6 {
            samples.append(PlotSample(time: 1.0 + Double(k) / 60, progress: 0.4 * (1 - Double(k) / 6),
                                      velocity: -1.2, phase: .animating))
        }
        return PlotTransition(name: "home", finishThreshold: 0.3, flickVelocity: 2, samples: samples, releases: [deviceLost])
    }

    static let idle = PlotTransition(name: "idle")

    static var all: [PlotTransition] { [back, idle, home] }

    /// `count` samples rising and falling, with one spike to 1 and one dip to 0 in the middle.
    static func many(_ count: Int) -> PlotTransition {
        var samples: [PlotSample] = []
        samples.reserveCapacity(count)
        for k in 0..<count {
            let wave = Double(k % 200) / 200
            var progress = 0.3 + 0.4 * wave
            if k == count / 2 { progress = 1 }
            if k == count / 2 + 1 { progress = 0 }
            samples.append(PlotSample(time: Double(k) * 0.001, progress: progress, velocity: 4 * wave - 2,
                                      phase: k % 10_000 < 8_000 ? .interacting : .animating))
        }
        return PlotTransition(name: "many", samples: samples, releases: [
            PlotRelease(time: Double(count) * 0.001, progress: 0.7, velocity: 2, decision: "finish", decidedBy: "flick"),
        ])
    }
}

/// Numbers as the SVG writes them are rounded to 0.01.
func near(_ a: Double?, _ b: Double, within tolerance: Double = 0.006) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// The points of a `points` attribute.
func points(_ node: XMLNode) -> [(x: Double, y: Double)] {
    (node.attributes["points"] ?? "").split(separator: " ").compactMap { pair in
        let parts = pair.split(separator: ",")
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else { return nil }
        return (x, y)
    }
}
