/// A problem with a configuration file: where it is (`file`, `line`, `key`)
/// and what is wrong, including what was found.
///
/// `description` reads
/// `FILE:LINE: key 'transition[1].edge': must be one of left, right, top, bottom (got "lft")`.
/// Key paths number the entries of an array of tables from 1, in file order:
/// `transition[2].keyframe[1]` is the first `[[transition.keyframe]]` of the
/// second `[[transition]]`. `line` is `nil` only when the file itself could
/// not be read (the CLI's "no input" case); `key` is `nil` for syntax errors
/// that are not about one key.
public struct ConfigError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file, as it was named to the loader.
    public var file: String
    /// The 1-based line of the problem, when known.
    public var line: Int?
    /// The key path the problem is about, e.g. `transition[1].edge`.
    public var key: String?
    /// What is wrong, and what was found.
    public var message: String
    /// The 1-based column (in characters) of a syntax error, when known.
    public var column: Int?
    /// The source line of a syntax error, shown with a caret under `column`.
    public var excerpt: String?

    /// An error at `line` of `file`, about `key` when it is about one key.
    public init(file: String, line: Int?, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `FILE:LINE: key 'PATH': MESSAGE`, leaving out what is not known;
    /// for a syntax error `FILE:LINE:COLUMN: MESSAGE`, then the line and a
    /// caret under the column.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if line != nil, let column { text += ":\(column)" }
        text += ": "
        if let key {
            // A key is shown whole unless it is absurdly long (a hostile file's).
            let shown = key.count <= 200 ? key : String(key.prefix(200)) + "… (\(key.count) characters)"
            text += "key '\(Self.visible(shown))': "
        }
        text += Self.visible(message)
        if let caret { text += "\n" + caret }
        return text
    }

    /// `text` with control characters (what a hostile file may hold:
    /// escapes that move a terminal's cursor) written as `U+001B`.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "U+" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The source line and a caret under the column (tabs kept, so the
    /// caret lines up), indented by two spaces; nil without an excerpt.
    public var caret: String? {
        guard let excerpt, let column, column >= 1 else { return nil }
        let scalars = Array(excerpt.unicodeScalars)
        guard column <= scalars.count + 1 else { return nil }
        var pad = ""
        for scalar in scalars.prefix(column - 1) { pad += scalar == "\t" ? "\t" : " " }
        let shown = String(String.UnicodeScalarView(scalars.map { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F ? "?" : $0 }))
        return "  " + shown + "\n  " + pad + "^"
    }
}
