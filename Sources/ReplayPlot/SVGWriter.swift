/// An SVG attribute: its name and its value, unescaped (the writer escapes it).
typealias SVGAttribute = (name: String, value: String)

/// Writes SVG elements one per line, escaping every attribute value and text.
struct SVGWriter {
    private(set) var output = ""

    init(capacity: Int = 16_384) {
        output.reserveCapacity(capacity)
    }

    /// `<name a="v" …>` (to be closed with `close(name)`).
    mutating func open(_ name: String, _ attributes: [SVGAttribute] = []) {
        start(name, attributes)
        output += ">\n"
    }

    /// `</name>`.
    mutating func close(_ name: String) {
        output += "</" + name + ">\n"
    }

    /// `<name a="v" …/>`.
    mutating func empty(_ name: String, _ attributes: [SVGAttribute]) {
        start(name, attributes)
        output += "/>\n"
    }

    /// `<name a="v" …>text</name>`.
    mutating func element(_ name: String, _ attributes: [SVGAttribute], text: String) {
        start(name, attributes)
        output += ">" + XMLEscaping.escaped(text) + "</" + name + ">\n"
    }

    /// `<name a="v" …><title>tooltip</title></name>`: a shape with a tooltip.
    mutating func element(_ name: String, _ attributes: [SVGAttribute], tooltip: String) {
        start(name, attributes)
        output += "><title>" + XMLEscaping.escaped(tooltip) + "</title></" + name + ">\n"
    }

    private mutating func start(_ name: String, _ attributes: [SVGAttribute]) {
        output += "<" + name
        for attribute in attributes {
            output += " " + attribute.name + "=\"" + XMLEscaping.escaped(attribute.value) + "\""
        }
    }
}

/// Short spellings of the attribute values the panels use.
extension SVGWriter {
    /// A coordinate attribute.
    static func at(_ name: String, _ value: Double) -> SVGAttribute {
        (name, NumberFormatting.coordinate(value))
    }

    /// An SVG `points` list ("x,y x,y …").
    static func points(_ points: [PlotPoint]) -> String {
        var text = ""
        text.reserveCapacity(points.count * 14)
        for (index, point) in points.enumerated() {
            if index > 0 { text += " " }
            text += NumberFormatting.coordinate(point.x) + "," + NumberFormatting.coordinate(point.y)
        }
        return text
    }
}
