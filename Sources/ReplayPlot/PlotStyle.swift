/// The document's fixed geometry, in SVG user units (px).
enum PlotGeometry {
    static let width = 900.0
    /// The title line above the first panel.
    static let titleHeight = 40.0
    static let panelHeight = 300.0
    static let bottomMargin = 8.0
    /// The height of a document with no panel ("nothing happened").
    static let emptyHeight = 110.0
    static let plotLeft = 64.0
    static let plotRight = 828.0
    /// Offsets from a panel's top.
    static let headingBaseline = 20.0
    static let legendBaseline = 40.0
    static let plotTopOffset = 72.0
    static let plotBottomOffset = 256.0
    /// The strip above the plot area where rejected candidates are marked.
    static let rejectionStripHeight = 22.0
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

    /// The estimated width of `text` drawn at `size`.
    static func width(of text: String, size: Double = textSize) -> Double {
        Double(text.count) * size * characterWidth
    }
}

