extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text (no spaces, members in order), e.g. to
    /// build a command line: `JSONValue.object(…).jsonText + "\n"`. Integers
    /// up to 2⁵³ are written without a fraction, other numbers in the
    /// shortest form that reads back to the same `Double`; a non-finite
    /// number (which `parse` never produces) is written as `null`.
    public var jsonText: String {
        var text = ""
        write(into: &text)
        return text
    }

    public var description: String { jsonText }

    private func write(into text: inout String) {
        switch self {
        case .null:
            text += "null"
        case .bool(let b):
            text += b ? "true" : "false"
        case .number(let x):
            text += JSONValue.numberText(x)
        case .string(let s):
            JSONValue.writeString(s, into: &text)
        case .array(let elements):
            text += "["
            for (k, element) in elements.enumerated() {
                if k > 0 { text += "," }
                element.write(into: &text)
            }
            text += "]"
        case .object(let object):
            text += "{"
            for (k, member) in object.members.enumerated() {
                if k > 0 { text += "," }
                JSONValue.writeString(member.key, into: &text)
                text += ":"
                member.value.write(into: &text)
            }
            text += "}"
        }
    }

    static func numberText(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if isExactInteger(x) { return String(Int64(x)) }
        return "\(x)"   // e.g. 0.25, 1e-07, 1e+300: all valid JSON numbers
    }

    /// A string literal: `"` and `\` escaped, control characters as `\n`,
    /// `\r`, `\t` or `\u00XX`; everything else as UTF-8.
    static func writeString(_ s: String, into text: inout String) {
        text += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u00" + (hex.count < 2 ? "0" : "") + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
