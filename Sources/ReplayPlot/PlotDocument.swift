/// SVG plots of what a replay did: one panel per transition with its progress
/// over time against the finish threshold, its velocity on a strip of its own
/// against the flick band, its releases and its rejected candidates. Pure:
/// standard library only, deterministic (the same input gives the same
/// bytes), never traps on odd numbers.
public enum PlotDocument {
    /// The SVG document (UTF-8 text) of `transitions`, one panel each, stacked vertically, with `title` on top
    /// (shortened at a word boundary to fit the width; whole in the document's `<title>`).
    /// Transitions without a sample at a finite time get no panel; with no panel at all the
    /// document says "nothing happened", and then `whyEmpty`, lines that say why.
    public static func svg(_ transitions: [PlotTransition], title: String, whyEmpty: [String] = []) -> String {
        let layouts = layout(transitions)
        let reasonRoom = PlotStyle.characters(fitting: PlotGeometry.textRight - PlotGeometry.textLeft, size: PlotStyle.headingSize)
        let reasons = layouts.isEmpty ? whyEmpty.flatMap { DisplayText.wrapped($0, toLinesOf: reasonRoom) } : []
        let height = LayoutPlanning.documentHeight(layouts, reasonLines: reasons.count)
        let width = NumberFormatting.coordinate(PlotGeometry.width), tall = NumberFormatting.coordinate(height)
        var svg = SVGWriter()
        svg.open("svg", [("xmlns", "http://www.w3.org/2000/svg"), ("version", "1.1"),
                         ("width", width), ("height", tall), ("viewBox", "0 0 \(width) \(tall)"),
                         ("font-family", PlotStyle.fontFamily), ("font-size", NumberFormatting.coordinate(PlotStyle.textSize))])
        svg.element("title", [], text: title)
        svg.empty("rect", [("width", width), ("height", tall), ("fill", "#ffffff")])
        let titleRoom = PlotStyle.characters(fitting: PlotGeometry.textRight - PlotGeometry.textLeft,
                                             size: PlotStyle.titleSize, bold: true)
        svg.element("text", [("class", "title"), SVGWriter.at("x", PlotGeometry.textLeft), ("y", "26"),
                             ("font-size", NumberFormatting.coordinate(PlotStyle.titleSize)), ("font-weight", "bold"),
                             ("fill", PlotStyle.text)],
                    text: DisplayText.shortened(title, toAtMost: titleRoom))
        if layouts.isEmpty {
            svg.element("text", [("class", "nothing"), ("x", NumberFormatting.coordinate(PlotGeometry.width / 2)), ("y", "72"),
                                 ("text-anchor", "middle"), ("font-size", NumberFormatting.coordinate(PlotStyle.headingSize)),
                                 ("fill", PlotStyle.mutedText)],
                        text: "nothing happened")
            for (number, line) in reasons.enumerated() {
                let baseline = PlotGeometry.emptyReasonBaseline + Double(number) * PlotGeometry.emptyReasonSpacing
                svg.element("text", [("class", "nothing-why"), SVGWriter.at("x", PlotGeometry.textLeft),
                                     SVGWriter.at("y", baseline), ("font-size", NumberFormatting.coordinate(PlotStyle.headingSize)),
                                     ("fill", PlotStyle.text)],
                            text: line)
            }
        }
        for (number, panel) in layouts.enumerated() {
            PanelRenderer(transition: transitions[panel.transitionIndex], layout: panel, panelNumber: number).draw(into: &svg)
        }
        svg.close("svg")
        return svg.output
    }

    /// The layout of each panel's plot area, in panel order (transitions without a
    /// sample at a finite time have none), so tests can find where a value is drawn.
    public static func layout(_ transitions: [PlotTransition]) -> [PanelLayout] {
        LayoutPlanning.layouts(transitions)
    }
}
