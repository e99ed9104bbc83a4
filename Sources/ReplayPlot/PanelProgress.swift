/// The progress line (the finger's, then the completion's frames) and the
/// releases on it, in a panel's plot area.
extension PanelRenderer {
    func drawProgress(_ lines: PanelLines, into svg: inout SVGWriter) {
        for run in lines.progressRuns {
            let animating = run.phase == .animating
            let colour = animating ? PlotStyle.animating : PlotStyle.progress
            let style = animating ? "progress-animating" : "progress-interacting"
            if run.points.count > 1 {
                var attributes: [SVGAttribute] = [("class", style), ("points", W.points(run.points)), ("fill", "none"),
                                                  ("stroke", colour), ("stroke-width", "2"), ("stroke-linejoin", "round")]
                if animating { attributes.append(("stroke-dasharray", "5 3")) }
                svg.empty("polyline", attributes)
            } else if let point = run.points.first, !animating {
                // A lone dragging sample: a dot, since a one-point line does not show.
                svg.empty("circle", [("class", style), W.at("cx", point.x), W.at("cy", point.y), ("r", "2"), ("fill", colour)])
            }
            if animating {
                svg.open("g", [("class", "animation-frames"), ("fill", colour)])
                var lastDot = -Double.infinity
                for frame in run.frames where frame.x - lastDot >= PanelRenderer.frameDotSpacing {
                    svg.empty("circle", [W.at("cx", frame.x), W.at("cy", frame.y), ("r", "1.8")])
                    lastDot = frame.x
                }
                svg.close("g")
            }
        }
    }

    func drawReleases(into svg: inout SVGWriter, labels: inout LabelPlacer) {
        var shown: [(release: PlotRelease, x: Double, y: Double)] = []
        for release in transition.releases where release.time.isFinite {
            let x = layout.x(time: release.time)
            let colour = PlotStyle.decisionColour(release.decision)
            let tooltip = PanelWording.releaseTooltip(release)
            // Down through the velocity strip too: the release's velocity is read there.
            svg.element("line", [("class", "release-guide"), W.at("x1", x), W.at("y1", layout.plotTop), W.at("x2", x),
                                 W.at("y2", layout.velocityBottom), ("stroke", colour), ("stroke-opacity", "0.6"),
                                 ("stroke-dasharray", "2 3")],
                        tooltip: tooltip)
            guard release.progress.isFinite else { continue }
            let y = layout.y(progress: release.progress)
            if let projected = release.projected, projected.isFinite {
                // p*: where the flick was projected to, joined to the release.
                let py = layout.y(progress: projected)
                svg.empty("line", [("class", "projection"), W.at("x1", x), W.at("y1", y), W.at("x2", x + 10), W.at("y2", py),
                                   ("stroke", colour), ("stroke-dasharray", "3 2")])
                svg.element("circle", [("class", "projected"), W.at("cx", x + 10), W.at("cy", py), ("r", "3.5"), ("fill", "#ffffff"),
                                       ("stroke", colour), ("stroke-width", "1.5")],
                            tooltip: "projected to " + NumberFormatting.label(projected, maxDecimals: 3))
            }
            svg.element("circle", [("class", "release"), W.at("cx", x), W.at("cy", y), ("r", "4.5"), ("fill", colour),
                                   ("stroke", "#ffffff"), ("stroke-width", "1.5")],
                        tooltip: tooltip)
            shown.append((release, x, y))
        }
        let candidates = shown.prefix(PanelRenderer.labelledReleaseCandidates)
        for (_, x, y) in candidates {
            labels.reserve(LabelBox(left: x - 4, top: y - 4, right: x + 4, bottom: y + 4))
        }
        for (release, x, y) in candidates {
            let text = PanelWording.releaseLabel(release)
            let spots = [(8.0, -7.0), (8, 15), (-8, -7), (-8, 15), (8, -20), (8, 28), (-8, -20), (-8, 28)].map {
                LabelSpot(x: x + $0.0, baseline: y + $0.1, alignment: $0.0 > 0 ? .start : .end)
            }
            guard let spot = labels.place(text, at: spots, bold: true) else { continue }
            PanelRenderer.label(text, at: spot, style: "release-label", colour: PlotStyle.decisionColour(release.decision),
                                bold: true, into: &svg)
        }
    }
}
