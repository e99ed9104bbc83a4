/// Draws one transition's panel: heading, legend, axes, flick band, threshold,
/// velocity and progress lines, releases and rejected candidates, in that
/// order (later on top).
struct PanelRenderer {
    /// Labels shown in a plot area (threshold, flick band, releases); every release keeps its tooltip.
    static let visibleReleaseLabels = 12
    /// Releases that try for a label (and keep other labels off their marker); past this many
    /// a panel is too crowded for more.
    static let labelledReleaseCandidates = 200
    /// Rejection labels shown per panel (every marker keeps its tooltip).
    static let visibleRejectionLabels = 8
    /// Rejections closer than this in x (px) share one marker.
    static let rejectionMergeSpacing = 2.0
    /// Animation frame dots closer than this in x (px) to the previous dot are left out.
    static let frameDotSpacing = 3.0

    let transition: PlotTransition
    let layout: PanelLayout
    /// The panel's position in the document (0 for the first).
    let panelNumber: Int

    private typealias W = SVGWriter

    func draw(into svg: inout SVGWriter) {
        svg.open("g", [("class", "panel"), ("id", "panel-\(panelNumber)")])
        drawHeading(into: &svg)
        drawLegend(into: &svg)
        drawAxes(into: &svg)
        var labels = LabelPlacer(
            bounds: LabelBox(left: layout.plotLeft + 2, top: layout.plotTop + 2,
                             right: layout.plotRight - 2, bottom: layout.plotBottom - 2),
            limit: PanelRenderer.visibleReleaseLabels)
        drawFlickBand(into: &svg, labels: &labels)
        drawThreshold(into: &svg, labels: &labels)
        let lines = PanelLines(transition, layout: layout)
        drawVelocity(lines, into: &svg)
        drawProgress(lines, into: &svg)
        drawReleases(into: &svg, labels: &labels)
        drawRejections(into: &svg)
        svg.close("g")
    }

    // MARK: - Heading and legend

    private func drawHeading(into svg: inout SVGWriter) {
        if panelNumber > 0 {
            svg.empty("line", [W.at("x1", 16), W.at("y1", layout.panelTop + 2), W.at("x2", PlotGeometry.width - 16),
                               W.at("y2", layout.panelTop + 2), ("stroke", PlotStyle.separator)])
        }
        svg.element("text", [("class", "heading"), W.at("x", 16), W.at("y", layout.panelTop + PlotGeometry.headingBaseline),
                             W.at("font-size", PlotStyle.headingSize), ("font-weight", "bold"), ("fill", PlotStyle.text)],
                    text: PanelWording.heading(transition))
    }

    private func drawLegend(into svg: inout SVGWriter) {
        let baseline = layout.panelTop + PlotGeometry.legendBaseline
        let middle = baseline - 4
        var x = layout.plotLeft
        svg.open("g", [("class", "legend"), W.at("font-size", PlotStyle.textSize), ("fill", PlotStyle.mutedText)])
        func item(_ text: String, swatch: (inout SVGWriter, Double) -> Void) {
            swatch(&svg, x)
            svg.element("text", [W.at("x", x + 23), W.at("y", baseline)], text: text)
            x += 23 + PlotStyle.width(of: text) + 14
        }
        item("progress (finger)") { svg, x in
            svg.empty("line", [W.at("x1", x), W.at("y1", middle), W.at("x2", x + 18), W.at("y2", middle),
                               ("stroke", PlotStyle.progress), ("stroke-width", "2")])
        }
        item("animation frames") { svg, x in
            svg.empty("line", [W.at("x1", x), W.at("y1", middle), W.at("x2", x + 18), W.at("y2", middle),
                               ("stroke", PlotStyle.animating), ("stroke-width", "2"), ("stroke-dasharray", "5 3")])
            svg.empty("circle", [W.at("cx", x + 9), W.at("cy", middle), ("r", "2"), ("fill", PlotStyle.animating)])
        }
        item("velocity") { svg, x in
            svg.empty("line", [W.at("x1", x), W.at("y1", middle), W.at("x2", x + 18), W.at("y2", middle),
                               ("stroke", PlotStyle.velocity), ("stroke-width", "1.5")])
        }
        item("finish threshold") { svg, x in
            svg.empty("line", [W.at("x1", x), W.at("y1", middle), W.at("x2", x + 18), W.at("y2", middle),
                               ("stroke", PlotStyle.threshold), ("stroke-width", "1.2"), ("stroke-dasharray", "6 4")])
        }
        item("flick band") { svg, x in
            svg.empty("rect", [W.at("x", x), W.at("y", middle - 5), ("width", "18"), ("height", "10"),
                               ("fill", PlotStyle.flickBand), ("fill-opacity", PlotStyle.flickBandOpacity)])
        }
        item("release") { svg, x in
            svg.empty("circle", [W.at("cx", x + 9), W.at("cy", middle), ("r", "4"), ("fill", PlotStyle.finish)])
        }
        item("rejected") { svg, x in
            svg.empty("path", [("d", PanelRenderer.cross(x: x + 9, y: middle)), ("stroke", PlotStyle.rejection),
                               ("stroke-width", "1.6"), ("fill", "none")])
        }
        svg.close("g")
    }

    // MARK: - Axes

    private func drawAxes(into svg: inout SVGWriter) {
        let left = layout.plotLeft, right = layout.plotRight, top = layout.plotTop, bottom = layout.plotBottom
        let middleY = (top + bottom) / 2
        svg.open("g", [("class", "axes"), W.at("font-size", PlotStyle.textSize)])
        // Grid: progress ticks across, time ticks down.
        for progress in layout.progressTicks {
            let y = layout.y(progress: progress)
            svg.empty("line", [W.at("x1", left), W.at("y1", y), W.at("x2", right), W.at("y2", y), ("stroke", PlotStyle.grid)])
            svg.element("text", [W.at("x", left - 6), W.at("y", y + 4), ("text-anchor", "end"), ("fill", PlotStyle.progress)],
                        text: NumberFormatting.label(progress, maxDecimals: 2))
        }
        for time in layout.timeTicks {
            let x = layout.x(time: time)
            svg.empty("line", [W.at("x1", x), W.at("y1", top), W.at("x2", x), W.at("y2", bottom), ("stroke", PlotStyle.grid)])
            svg.empty("line", [W.at("x1", x), W.at("y1", bottom), W.at("x2", x), W.at("y2", bottom + 4), ("stroke", PlotStyle.frame)])
            svg.element("text", [("class", "time-tick"), W.at("x", x), W.at("y", bottom + 16), ("text-anchor", "middle"),
                                 ("fill", PlotStyle.text)],
                        text: NumberFormatting.label(time, maxDecimals: layout.timeTickDecimals,
                                                     minDecimals: layout.timeTickDecimals))
        }
        for velocity in layout.velocityTicks {
            let y = layout.y(velocity: velocity)
            svg.empty("line", [W.at("x1", right), W.at("y1", y), W.at("x2", right + 4), W.at("y2", y), ("stroke", PlotStyle.frame)])
            svg.element("text", [("class", "velocity-tick"), W.at("x", right + 7), W.at("y", y + 4), ("fill", PlotStyle.velocityText)],
                        text: NumberFormatting.label(velocity, maxDecimals: layout.velocityTickDecimals,
                                                     minDecimals: layout.velocityTickDecimals))
        }
        svg.empty("rect", [("class", "plot-area"), W.at("x", left), W.at("y", top), W.at("width", right - left),
                           W.at("height", bottom - top), ("fill", "none"), ("stroke", PlotStyle.frame)])
        // Captions.
        svg.element("text", [W.at("x", 18), W.at("y", middleY), ("text-anchor", "middle"), ("fill", PlotStyle.progress),
                             ("transform", "rotate(-90 18 \(NumberFormatting.coordinate(middleY)))")],
                    text: "progress")
        let velocityX = PlotGeometry.width - 12
        svg.element("text", [W.at("x", velocityX), W.at("y", middleY), ("text-anchor", "middle"), ("fill", PlotStyle.velocityText),
                             ("transform", "rotate(90 \(NumberFormatting.coordinate(velocityX)) \(NumberFormatting.coordinate(middleY)))")],
                    text: "velocity (progress/s)")
        svg.element("text", [W.at("x", (left + right) / 2), W.at("y", bottom + 31), ("text-anchor", "middle"),
                             ("fill", PlotStyle.text)],
                    text: "time (s)")
        svg.close("g")
    }

    // MARK: - Flick band and threshold

    private func drawFlickBand(into svg: inout SVGWriter, labels: inout LabelPlacer) {
        let flick = transition.flickVelocity
        guard flick.isFinite, flick > 0 else { return }
        let top = layout.y(velocity: flick), bottom = layout.y(velocity: -flick)
        svg.empty("rect", [("class", "flick-band"), W.at("x", layout.plotLeft), W.at("y", top),
                           W.at("width", layout.plotRight - layout.plotLeft), W.at("height", bottom - top),
                           ("fill", PlotStyle.flickBand), ("fill-opacity", PlotStyle.flickBandOpacity)])
        let text = "flick ±" + NumberFormatting.label(flick, maxDecimals: 3, minDecimals: 1) + "/s"
        let spots = [LabelSpot(x: layout.plotRight - 6, baseline: top + 13, alignment: .end),
                     LabelSpot(x: layout.plotRight - 6, baseline: top - 4, alignment: .end)]
        if let spot = labels.place(text, at: spots) {
            PanelRenderer.label(text, at: spot, style: "flick-label", colour: PlotStyle.velocityText, into: &svg)
        }
    }

    private func drawThreshold(into svg: inout SVGWriter, labels: inout LabelPlacer) {
        let threshold = transition.finishThreshold
        guard threshold.isFinite else { return }
        let y = layout.y(progress: threshold)
        svg.empty("line", [("class", "threshold"), W.at("x1", layout.plotLeft), W.at("y1", y), W.at("x2", layout.plotRight),
                           W.at("y2", y), ("stroke", PlotStyle.threshold), ("stroke-width", "1.2"), ("stroke-dasharray", "6 4")])
        let text = "finish threshold " + NumberFormatting.label(threshold, maxDecimals: 3, minDecimals: 1)
        let spots = [LabelSpot(x: layout.plotLeft + 6, baseline: y - 5, alignment: .start),
                     LabelSpot(x: layout.plotLeft + 6, baseline: y + 14, alignment: .start)]
        if let spot = labels.place(text, at: spots) {
            PanelRenderer.label(text, at: spot, style: "threshold-label", colour: PlotStyle.threshold, into: &svg)
        }
    }

    // MARK: - Lines

    private func drawVelocity(_ lines: PanelLines, into svg: inout SVGWriter) {
        for points in lines.velocityLines where points.count > 1 {
            svg.empty("polyline", [("class", "velocity"), ("points", W.points(points)), ("fill", "none"),
                                   ("stroke", PlotStyle.velocity), ("stroke-width", "1.25"), ("stroke-linejoin", "round")])
        }
    }

    private func drawProgress(_ lines: PanelLines, into svg: inout SVGWriter) {
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

    // MARK: - Releases

    private func drawReleases(into svg: inout SVGWriter, labels: inout LabelPlacer) {
        var shown: [(release: PlotRelease, x: Double, y: Double)] = []
        for release in transition.releases where release.time.isFinite {
            let x = layout.x(time: release.time)
            let colour = PlotStyle.decisionColour(release.decision)
            let tooltip = PanelWording.releaseTooltip(release)
            svg.element("line", [("class", "release-guide"), W.at("x1", x), W.at("y1", layout.plotTop), W.at("x2", x),
                                 W.at("y2", layout.plotBottom), ("stroke", colour), ("stroke-opacity", "0.6"),
                                 ("stroke-dasharray", "2 3")],
                        tooltip: tooltip)
            guard release.progress.isFinite else { continue }
            let y = layout.y(progress: release.progress)
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
            guard let spot = labels.place(text, at: spots) else { continue }
            PanelRenderer.label(text, at: spot, style: "release-label", colour: PlotStyle.decisionColour(release.decision),
                                bold: true, into: &svg)
        }
    }

    // MARK: - Rejected candidates

    private func drawRejections(into svg: inout SVGWriter) {
        let markers = transition.rejections.filter(\.time.isFinite).sorted { $0.time < $1.time }
        guard !markers.isEmpty else { return }
        // Markers that would be drawn on top of each other share one ✕.
        var groups: [(x: Double, markers: [PlotMarker])] = []
        for marker in markers {
            let x = layout.x(time: marker.time)
            if let last = groups.last, x - last.x < PanelRenderer.rejectionMergeSpacing {
                groups[groups.count - 1].markers.append(marker)
            } else {
                groups.append((x, [marker]))
            }
        }
        let centre = layout.plotTop - 11
        var labels = LabelPlacer(
            bounds: LabelBox(left: layout.plotLeft - 40, top: layout.plotTop - PlotGeometry.rejectionStripHeight,
                             right: PlotGeometry.width - 4, bottom: layout.plotTop - 1),
            limit: PanelRenderer.visibleRejectionLabels)
        svg.open("g", [("class", "rejections"), W.at("font-size", PlotStyle.textSize), ("fill", PlotStyle.rejection)])
        for group in groups {
            labels.reserve(LabelBox(left: group.x - 4, top: centre - 4, right: group.x + 4, bottom: centre + 4))
            svg.element("path", [("class", "rejection"), ("d", PanelRenderer.cross(x: group.x, y: centre)),
                                 ("stroke", PlotStyle.rejection), ("stroke-width", "1.6"), ("fill", "none")],
                        tooltip: PanelWording.rejectionTooltip(group.markers))
        }
        for group in groups {
            let text = PanelWording.rejectionLabel(group.markers)
            let spots = [LabelSpot(x: group.x + 8, baseline: centre + 4, alignment: .start),
                         LabelSpot(x: group.x - 8, baseline: centre + 4, alignment: .end)]
            guard !text.isEmpty, let spot = labels.place(text, at: spots) else { continue }
            svg.element("text", [("class", "rejection-label"), W.at("x", spot.x), W.at("y", spot.baseline),
                                 ("text-anchor", spot.alignment == .start ? "start" : "end")],
                        text: text)
        }
        svg.close("g")
    }

    /// A label on a translucent white backdrop, so it reads over lines and bands.
    static func label(_ text: String, at spot: LabelSpot, style: String, colour: String, bold: Bool = false,
                      into svg: inout SVGWriter) {
        let box = spot.box(width: PlotStyle.width(of: text), size: PlotStyle.textSize)
        svg.empty("rect", [W.at("x", box.left - 1), W.at("y", box.top), W.at("width", box.right - box.left + 2),
                           W.at("height", box.bottom - box.top), ("fill", "#ffffff"), ("fill-opacity", "0.8")])
        var attributes: [SVGAttribute] = [("class", style), W.at("x", spot.x), W.at("y", spot.baseline)]
        if spot.alignment == .end { attributes.append(("text-anchor", "end")) }
        attributes += [W.at("font-size", PlotStyle.textSize), ("fill", colour)]
        if bold { attributes.append(("font-weight", "bold")) }
        svg.element("text", attributes, text: text)
    }

    /// An ✕ centred at (x, y), as path data.
    static func cross(x: Double, y: Double, size: Double = 3.5) -> String {
        let c = NumberFormatting.coordinate
        return "M\(c(x - size)) \(c(y - size))L\(c(x + size)) \(c(y + size))M\(c(x - size)) \(c(y + size))L\(c(x + size)) \(c(y - size))"
    }
}
