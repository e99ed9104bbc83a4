/// The legends of a panel: an entry for each kind of thing the panel draws
/// and nothing else (a "rejected" entry over a panel without a ✕ would say
/// something was rejected). The progress area's legend heads the panel; the
/// velocity strip has its own above it, so the flick band is named with
/// the scale it belongs to.
enum PanelLegend {
    /// What a panel draws.
    struct Drawn {
        var progress = false
        var animation = false
        var velocity = false
        var threshold = false
        var snapPoints = false
        var flickBand = false
        var releases = false
        var rejections = false

        init(_ transition: PlotTransition, lines: PanelLines, marks: Int) {
            for run in lines.progressRuns {
                switch run.phase {
                case .interacting: progress = progress || !run.points.isEmpty
                case .animating: animation = animation || !run.points.isEmpty
                }
            }
            velocity = lines.velocityLines.contains { $0.count > 1 }
            threshold = transition.finishThreshold.isFinite && transition.snapPoints.isEmpty
            snapPoints = !transition.snapPoints.isEmpty
            flickBand = transition.flickVelocity.isFinite && transition.flickVelocity > 0
            releases = transition.releases.contains { $0.time.isFinite && $0.progress.isFinite }
            rejections = marks > 0
        }
    }

    /// A row of legend entries, left to right from `x` on `baseline`.
    struct Row {
        var x: Double
        let baseline: Double
        var middle: Double { baseline - 4 }
        typealias W = SVGWriter

        mutating func item(_ text: String, style: String? = nil, into svg: inout SVGWriter,
                           swatch: (inout SVGWriter, Double, Double) -> Void) {
            swatch(&svg, x, middle)
            var attributes: [SVGAttribute] = [W.at("x", x + 23), W.at("y", baseline)]
            if let style { attributes.insert(("class", style), at: 0) }
            svg.element("text", attributes, text: text)
            x += 23 + PlotStyle.width(of: text) + 14
        }

        /// A line swatch.
        static func stroke(_ colour: String, width: String, dashes: String? = nil) -> (inout SVGWriter, Double, Double) -> Void {
            { svg, x, y in
                var attributes: [SVGAttribute] = [W.at("x1", x), W.at("y1", y), W.at("x2", x + 18), W.at("y2", y),
                                                  ("stroke", colour), ("stroke-width", width)]
                if let dashes { attributes.append(("stroke-dasharray", dashes)) }
                svg.empty("line", attributes)
            }
        }
    }
}

extension PanelRenderer {
    /// The legend of the progress area, under the heading.
    func drawLegend(_ drawn: PanelLegend.Drawn, into svg: inout SVGWriter) {
        var row = PanelLegend.Row(x: layout.plotLeft, baseline: layout.panelTop + PlotGeometry.legendBaseline)
        svg.open("g", [("class", "legend"), W.at("font-size", PlotStyle.textSize), ("fill", PlotStyle.mutedText)])
        if drawn.progress { row.item("progress (finger)", into: &svg, swatch: PanelLegend.Row.stroke(PlotStyle.progress, width: "2")) }
        if drawn.animation {
            row.item("animation frames", into: &svg) { svg, x, y in
                PanelLegend.Row.stroke(PlotStyle.animating, width: "2", dashes: "5 3")(&svg, x, y)
                svg.empty("circle", [W.at("cx", x + 9), W.at("cy", y), ("r", "2"), ("fill", PlotStyle.animating)])
            }
        }
        if drawn.threshold {
            row.item("finish threshold", into: &svg,
                     swatch: PanelLegend.Row.stroke(PlotStyle.threshold, width: "1.2", dashes: "6 4"))
        }
        if drawn.snapPoints {
            row.item("snap points", into: &svg,
                     swatch: PanelLegend.Row.stroke(PlotStyle.threshold, width: "1.2", dashes: "2 3"))
        }
        if drawn.releases && drawn.snapPoints {
            row.item("release, projected flick", into: &svg) { svg, x, y in
                svg.empty("circle", [W.at("cx", x + 4), W.at("cy", y), ("r", "4"), ("fill", PlotStyle.otherDecision)])
                svg.empty("circle", [W.at("cx", x + 14), W.at("cy", y), ("r", "3.5"), ("fill", "#ffffff"),
                                     ("stroke", PlotStyle.otherDecision), ("stroke-width", "1.5")])
            }
        } else if drawn.releases {
            // Both colours a release marker takes, so a red one is not read as something else.
            row.item("release: finish, cancel", into: &svg) { svg, x, y in
                svg.empty("circle", [W.at("cx", x + 4), W.at("cy", y), ("r", "4"), ("fill", PlotStyle.finish)])
                svg.empty("circle", [W.at("cx", x + 14), W.at("cy", y), ("r", "4"), ("fill", PlotStyle.cancel)])
            }
        }
        if drawn.rejections {
            row.item("rejected (listed below)", into: &svg) { svg, x, y in
                svg.empty("path", [("d", PanelRenderer.cross(x: x + 9, y: y)), ("stroke", PlotStyle.rejection),
                                   ("stroke-width", "1.6"), ("fill", "none")])
            }
        }
        svg.close("g")
    }
}
