/// A rectangle in SVG user space (y grows downwards).
struct LabelBox: Sendable, Equatable {
    var left: Double, top: Double, right: Double, bottom: Double

    func overlaps(_ other: LabelBox, gap: Double) -> Bool {
        left < other.right + gap && other.left < right + gap && top < other.bottom + gap && other.top < bottom + gap
    }

    func isInside(_ bounds: LabelBox) -> Bool {
        left >= bounds.left && right <= bounds.right && top >= bounds.top && bottom <= bounds.bottom
    }
}

/// A place a label could go: its text's anchor point and alignment.
struct LabelSpot: Sendable, Equatable {
    enum Alignment: Sendable { case start, end }
    var x: Double
    var baseline: Double
    var alignment: Alignment

    /// The box `text` covers at this spot.
    func box(width: Double, size: Double) -> LabelBox {
        let left = alignment == .start ? x : x - width
        return LabelBox(left: left, top: baseline - size, right: left + width, bottom: baseline + size * 0.25)
    }
}

/// Keeps labels apart: each label takes the first of its candidate spots that
/// stays inside `bounds` and clear of the labels placed before it; a label with
/// no such spot, or past `limit` labels, is not shown (its tooltip remains).
struct LabelPlacer {
    let bounds: LabelBox
    let limit: Int
    let gap = 3.0
    private(set) var placed: [LabelBox] = []
    /// How many of `placed` are reserved boxes rather than labels.
    private var reserved = 0

    init(bounds: LabelBox, limit: Int) {
        self.bounds = bounds
        self.limit = limit
    }

    /// Marks `box` as taken (something drawn there that labels must not cover).
    mutating func reserve(_ box: LabelBox) {
        placed.append(box)
        reserved += 1
    }

    mutating func place(_ text: String, at spots: [LabelSpot], size: Double = PlotStyle.textSize,
                        bold: Bool = false) -> LabelSpot? {
        guard placed.count - reserved < limit else { return nil }
        let width = PlotStyle.width(of: text, size: size, bold: bold)
        for spot in spots {
            let box = spot.box(width: width, size: size)
            if box.isInside(bounds), !placed.contains(where: { $0.overlaps(box, gap: gap) }) {
                placed.append(box)
                return spot
            }
        }
        return nil
    }
}
