/// Draws one transition's panel: heading, legend, axes, threshold and
/// progress in the plot area, the flick band and velocity in the strip
/// below it, releases, and rejected candidates with their list, in that
/// order (later on top).
struct PanelRenderer {
    /// Labels shown in the plot area (threshold, releases); every release keeps its tooltip.
    static let visibleReleaseLabels = 12
    /// Releases that try for a label (and keep other labels off their marker); past this many
    /// a panel is too crowded for more.
    static let labelledReleaseCandidates = 200
    /// Animation frame dots closer than this in x (px) to the previous dot are left out.
    static let frameDotSpacing = 3.0

    let transition: PlotTransition
    let layout: PanelLayout
    /// The panel's position in the document (0 for the first).
    let panelNumber: Int

    typealias W = SVGWriter

    func draw(into svg: inout SVGWriter) {
        svg.open("g", [("class", "panel"), ("id", "panel-\(panelNumber)")])
        let lines = PanelLines(transition, layout: layout)
        let marks = RejectionList.marks(transition.rejections) { layout.x(time: $0) }
        let drawn = PanelLegend.Drawn(transition, lines: lines, marks: marks.count)
        drawHeading(into: &svg)
        drawLegend(drawn, into: &svg)
        drawAxes(into: &svg)
        var labels = LabelPlacer(
            bounds: LabelBox(left: layout.plotLeft + 2, top: layout.plotTop + 2,
                             right: layout.plotRight - 2, bottom: layout.plotBottom - 2),
            limit: PanelRenderer.visibleReleaseLabels)
        drawVelocityStrip(lines, drawn: drawn, into: &svg)
        drawThreshold(into: &svg, labels: &labels)
        drawProgress(lines, into: &svg)
        drawReleases(into: &svg, labels: &labels)
        drawRejections(marks, into: &svg)
        svg.close("g")
    }

    // MARK: - Heading

    private func drawHeading(into svg: inout SVGWriter) {
        if panelNumber > 0 {
            svg.empty("line", [W.at("x1", PlotGeometry.textLeft), W.at("y1", layout.panelTop + 2),
                               W.at("x2", PlotGeometry.width - PlotGeometry.textLeft), W.at("y2", layout.panelTop + 2),
                               ("stroke", PlotStyle.separator)])
        }
        let room = PlotStyle.characters(fitting: PlotGeometry.textRight - PlotGeometry.textLeft,
                                        size: PlotStyle.headingSize, bold: true)
        svg.element("text", [("class", "heading"), W.at("x", PlotGeometry.textLeft),
                             W.at("y", layout.panelTop + PlotGeometry.headingBaseline),
                             W.at("font-size", PlotStyle.headingSize), ("font-weight", "bold"), ("fill", PlotStyle.text)],
                    text: DisplayText.shortened(PanelWording.heading(transition), toAtMost: room))
    }

    // MARK: - Axes

    private func drawAxes(into svg: inout SVGWriter) {
        let left = layout.plotLeft, right = layout.plotRight, top = layout.plotTop, bottom = layout.plotBottom
        let axisBottom = layout.velocityBottom
        svg.open("g", [("class", "axes"), W.at("font-size", PlotStyle.textSize)])
        // Grid: progress ticks across the plot area, time ticks down both areas.
        for progress in layout.progressTicks {
            let y = layout.y(progress: progress)
            svg.empty("line", [W.at("x1", left), W.at("y1", y), W.at("x2", right), W.at("y2", y), ("stroke", PlotStyle.grid)])
            svg.element("text", [("class", "progress-tick"), W.at("x", left - 6), W.at("y", y + 4), ("text-anchor", "end"),
                                 ("fill", PlotStyle.progress)],
                        text: NumberFormatting.label(progress, maxDecimals: 2))
        }
        for time in layout.timeTicks {
            let x = layout.x(time: time)
            for (from, to) in [(top, bottom), (layout.velocityTop, axisBottom)] {
                svg.empty("line", [W.at("x1", x), W.at("y1", from), W.at("x2", x), W.at("y2", to), ("stroke", PlotStyle.grid)])
            }
            svg.empty("line", [W.at("x1", x), W.at("y1", axisBottom), W.at("x2", x), W.at("y2", axisBottom + 4),
                               ("stroke", PlotStyle.frame)])
            svg.element("text", [("class", "time-tick"), W.at("x", x), W.at("y", axisBottom + 16), ("text-anchor", "middle"),
                                 ("fill", PlotStyle.text)],
                        text: NumberFormatting.label(time, maxDecimals: layout.timeTickDecimals,
                                                     minDecimals: layout.timeTickDecimals))
        }
        svg.empty("rect", [("class", "plot-area"), W.at("x", left), W.at("y", top), W.at("width", right - left),
                           W.at("height", bottom - top), ("fill", "none"), ("stroke", PlotStyle.frame)])
        PanelRenderer.caption("progress", centredOn: (top + bottom) / 2, colour: PlotStyle.progress, into: &svg)
        svg.element("text", [W.at("x", (left + right) / 2), W.at("y", axisBottom + 31), ("text-anchor", "middle"),
                             ("fill", PlotStyle.text)],
                    text: "time (s)")
        svg.close("g")
    }

    /// An axis caption, turned to read upwards at the panel's left edge.
    static func caption(_ text: String, centredOn y: Double, colour: String, into svg: inout SVGWriter) {
        let c = NumberFormatting.coordinate
        svg.element("text", [W.at("x", 18), W.at("y", y), ("text-anchor", "middle"), ("fill", colour),
                             ("transform", "rotate(-90 18 \(c(y)))")],
                    text: text)
    }

    // MARK: - Threshold

    private func drawThreshold(into svg: inout SVGWriter, labels: inout LabelPlacer) {
        if !transition.snapPoints.isEmpty { return drawSnapPoints(into: &svg, labels: &labels) }
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

    /// Each snap point as a line across the plot, labelled at the right.
    private func drawSnapPoints(into svg: inout SVGWriter, labels: inout LabelPlacer) {
        for point in transition.snapPoints where point.isFinite {
            let y = layout.y(progress: point)
            svg.empty("line", [("class", "snap-point"), W.at("x1", layout.plotLeft), W.at("y1", y), W.at("x2", layout.plotRight),
                               W.at("y2", y), ("stroke", PlotStyle.threshold), ("stroke-width", "1.2"), ("stroke-dasharray", "2 3")])
            let text = "snap point " + NumberFormatting.label(point, maxDecimals: 3)
            let spots = [LabelSpot(x: layout.plotRight - 6, baseline: y - 5, alignment: .end),
                         LabelSpot(x: layout.plotRight - 6, baseline: y + 14, alignment: .end)]
            if let spot = labels.place(text, at: spots) {
                PanelRenderer.label(text, at: spot, style: "snap-point-label", colour: PlotStyle.threshold, into: &svg)
            }
        }
    }

    /// A label on a translucent white backdrop, so it reads over lines and bands.
    static func label(_ text: String, at spot: LabelSpot, style: String, colour: String, bold: Bool = false,
                      into svg: inout SVGWriter) {
        let box = spot.box(width: PlotStyle.width(of: text, bold: bold), size: PlotStyle.textSize)
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
