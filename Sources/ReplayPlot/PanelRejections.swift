/// Rejected candidates: a numbered ✕ above the plot area at each mark's
/// time, and under the panel a list that gives each number its words
/// (`RejectionList`), shortened at a word boundary to fit its column.
extension PanelRenderer {
    func drawRejections(_ marks: [RejectionMark], into svg: inout SVGWriter) {
        guard !marks.isEmpty else { return }
        let centre = layout.plotTop - 7
        svg.open("g", [("class", "rejections"), W.at("font-size", PlotStyle.textSize), ("fill", PlotStyle.rejection)])
        for (index, mark) in marks.enumerated() {
            svg.element("path", [("class", "rejection"), ("d", PanelRenderer.cross(x: mark.x, y: centre)),
                                 ("stroke", PlotStyle.rejection), ("stroke-width", "1.6"), ("fill", "none")],
                        tooltip: PanelWording.rejectionTooltip(mark.markers))
            svg.element("text", [("class", "rejection-number"), W.at("x", mark.x), W.at("y", centre - 7),
                                 ("text-anchor", "middle")],
                        text: String(index + 1))
        }
        // The list: numbers in order down the first column, then the second.
        let columns = RejectionList.columns(marks.count), rows = RejectionList.rows(marks.count)
        let left = PlotGeometry.textLeft, width = (PlotGeometry.textRight - left) / Double(columns)
        let top = layout.panelTop + PlotGeometry.panelHeight + PlotGeometry.rejectionListGap
        let room = PlotStyle.characters(fitting: width - 24)
        for (index, mark) in marks.enumerated() {
            let x = left + Double(index / rows) * width
            let baseline = top + Double(index % rows + 1) * PlotGeometry.rejectionRowHeight - 3
            svg.element("text", [("class", "rejection-number"), W.at("x", x + 14), W.at("y", baseline), ("text-anchor", "end"),
                                 ("font-weight", "bold")],
                        text: String(index + 1))
            svg.element("text", [("class", "rejection-label"), W.at("x", x + 20), W.at("y", baseline),
                                 ("fill", PlotStyle.text)],
                        text: RejectionList.text(mark, limit: room))
        }
        svg.close("g")
    }
}
