/// The document's fixed geometry, in SVG user units (px).
enum PlotGeometry {
    static let width = 900.0
    /// The title line above the first panel.
    static let titleHeight = 40.0
    /// A panel without rejections; each with some adds its list of them (`rejectionListHeight`).
    static let panelHeight = 392.0
    static let bottomMargin = 8.0
    /// The height of a document with no panel ("nothing happened") and no reason given.
    static let emptyHeight = 110.0
    /// Where the lines saying why nothing happened start, and their spacing.
    static let emptyReasonBaseline = 98.0
    static let emptyReasonSpacing = 18.0
    static let plotLeft = 64.0
    static let plotRight = 872.0
    /// Where text may go: the document less a margin on each side.
    static let textLeft = 16.0
    static let textRight = 884.0
    /// Offsets from a panel's top.
    static let headingBaseline = 20.0
    static let legendBaseline = 40.0
    /// The progress area.
    static let plotTopOffset = 76.0
    static let plotBottomOffset = 236.0
    /// The velocity strip below it: a scale of its own, so the flick band
    /// (a velocity) is never read against the progress axis.
    static let velocityTopOffset = 262.0
    static let velocityBottomOffset = 352.0
    /// The strip above the plot area where rejected candidates are marked.
    static let rejectionStripHeight = 28.0
    /// The rejections listed under a panel: rows of this height, after a gap.
    static let rejectionRowHeight = 15.0
    static let rejectionListGap = 6.0

    /// The height the list of `count` rejection marks takes under a panel.
    static func rejectionListHeight(_ count: Int) -> Double {
        count == 0 ? 0 : rejectionListGap + Double(RejectionList.rows(count)) * rejectionRowHeight + 4
    }
}

/// Colours, strokes and type.
enum PlotStyle {
    static let fontFamily = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
    static let titleSize = 15.0
    static let headingSize = 13.0
    static let textSize = 11.0
    /// An estimate of a character's advance, as a share of the font size (labels are placed with it).
    static let characterWidth = 0.6

    static let text = "#222222"
    static let mutedText = "#555555"
    static let frame = "#999999"
    static let grid = "#e8e8e8"
    static let separator = "#cccccc"

    static let progress = "#1f5fbf"
    static let animating = "#e07b00"
    static let velocity = "#a58fd0"
    /// Text in the velocity's hue, dark enough to read.
    static let velocityText = "#6f58a8"
    static let flickBand = "#a58fd0"
    static let flickBandOpacity = "0.16"
    static let threshold = "#666666"
    static let finish = "#1a9850"
    static let cancel = "#d73027"
    static let otherDecision = "#555555"
    static let rejection = "#b03060"

    /// The colour of a release marker for `decision`.
    static func decisionColour(_ decision: String) -> String {
        switch decision {
        case "finish": finish
        case "cancel": cancel
        default: otherDecision
        }
    }

    /// The same for bold text, which runs wider.
    static let boldCharacterWidth = 0.68

    /// The estimated width of `text` drawn at `size`.
    static func width(of text: String, size: Double = textSize, bold: Bool = false) -> Double {
        Double(text.count) * size * (bold ? boldCharacterWidth : characterWidth)
    }

    /// How many characters fit in `width` at `size`.
    static func characters(fitting width: Double, size: Double = textSize, bold: Bool = false) -> Int {
        let each = size * (bold ? boldCharacterWidth : characterWidth)
        return each > 0 && width.isFinite ? max(1, Int(width / each)) : 1
    }
}

