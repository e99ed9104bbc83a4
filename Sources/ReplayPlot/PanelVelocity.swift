/// The velocity strip under a panel's plot area: velocity on a scale of its
/// own (ticks, zero line), the flick band ±flick_velocity on that scale,
/// and each release's velocity. Apart from progress, so that the band —
/// a velocity — is never read against the finish threshold, a progress.
extension PanelRenderer {
    func drawVelocityStrip(_ lines: PanelLines, drawn: PanelLegend.Drawn, into svg: inout SVGWriter) {
        let left = layout.plotLeft, right = layout.plotRight, top = layout.velocityTop, bottom = layout.velocityBottom
        svg.open("g", [("class", "velocity-strip"), W.at("font-size", PlotStyle.textSize)])
        var row = PanelLegend.Row(x: left, baseline: top - 8)
        if drawn.velocity {
            row.item("velocity (progress/s)", into: &svg, swatch: PanelLegend.Row.stroke(PlotStyle.velocity, width: "1.5"))
        }
        let flick = transition.flickVelocity
        if drawn.flickBand {
            let text = "flick band ±" + NumberFormatting.label(flick, maxDecimals: 3, minDecimals: 1)
                + "/s: a release this fast decides by its direction"
            row.item(text, style: "flick-label", into: &svg) { svg, x, y in
                svg.empty("rect", [W.at("x", x), W.at("y", y - 5), ("width", "18"), ("height", "10"),
                                   ("fill", PlotStyle.flickBand), ("fill-opacity", PlotStyle.flickBandOpacity)])
            }
            let high = layout.y(velocity: flick), low = layout.y(velocity: -flick)
            svg.empty("rect", [("class", "flick-band"), W.at("x", left), W.at("y", high), W.at("width", right - left),
                               W.at("height", low - high), ("fill", PlotStyle.flickBand), ("fill-opacity", PlotStyle.flickBandOpacity)])
        }
        for velocity in layout.velocityTicks {
            let y = layout.y(velocity: velocity)
            svg.empty("line", [W.at("x1", left), W.at("y1", y), W.at("x2", right), W.at("y2", y),
                               ("stroke", velocity == 0 ? PlotStyle.frame : PlotStyle.grid)]
                      + (velocity == 0 ? [("class", "velocity-zero")] : []))
            svg.element("text", [("class", "velocity-tick"), W.at("x", left - 6), W.at("y", y + 4), ("text-anchor", "end"),
                                 ("fill", PlotStyle.velocityText)],
                        text: NumberFormatting.label(velocity, maxDecimals: layout.velocityTickDecimals,
                                                     minDecimals: layout.velocityTickDecimals))
        }
        svg.empty("rect", [("class", "velocity-area"), W.at("x", left), W.at("y", top), W.at("width", right - left),
                           W.at("height", bottom - top), ("fill", "none"), ("stroke", PlotStyle.frame)])
        PanelRenderer.caption("velocity", centredOn: (top + bottom) / 2, colour: PlotStyle.velocityText, into: &svg)
        for points in lines.velocityLines where points.count > 1 {
            svg.empty("polyline", [("class", "velocity"), ("points", W.points(points)), ("fill", "none"),
                                   ("stroke", PlotStyle.velocity), ("stroke-width", "1.25"), ("stroke-linejoin", "round")])
        }
        // Where each release's velocity lies against the band.
        for release in transition.releases where release.time.isFinite && release.velocity.isFinite {
            svg.element("circle", [("class", "release-velocity"), W.at("cx", layout.x(time: release.time)),
                                   W.at("cy", layout.y(velocity: release.velocity)), ("r", "3"),
                                   ("fill", PlotStyle.decisionColour(release.decision))],
                        tooltip: PanelWording.releaseTooltip(release))
        }
        svg.close("g")
    }
}
