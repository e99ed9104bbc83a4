/// Text made safe for XML 1.0 character data and quoted attribute values:
/// `& < > " '` become entities; characters XML 1.0 forbids (C0 controls other
/// than tab, line feed and carriage return; U+FFFE, U+FFFF) become U+FFFD.
enum XMLEscaping {
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsWork) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default:
                result.unicodeScalars.append(isForbidden(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return result
    }

    private static func needsWork(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "&", "<", ">", "\"", "'": true
        default: isForbidden(scalar)
        }
    }

    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00..<0x20, 0xFFFE, 0xFFFF: true
        default: false
        }
    }
}

/// Display forms of free text (names, reasons): shortened to a length that fits a line.
enum DisplayText {
    /// `text` cut to at most `limit` characters, the cut marked with "…".
    static func truncated(_ text: String, to limit: Int) -> String {
        guard text.count > limit, limit > 1 else { return text }
        return String(text.prefix(limit - 1)) + "…"
    }
}
