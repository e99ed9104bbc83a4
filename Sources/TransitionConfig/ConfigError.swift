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

    /// An error at `line` of `file`, about `key` when it is about one key.
    public init(file: String, line: Int?, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `FILE:LINE: key 'PATH': MESSAGE`, leaving out what is not known.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "key '\(key)': " }
        return text + message
    }
}
