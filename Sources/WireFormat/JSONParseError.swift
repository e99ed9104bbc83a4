/// Why a line is not one strict JSON document. Offsets are 0-based byte
/// offsets into the input. Invalid UTF-8 anywhere in the input is always
/// reported as `invalidUTF8` (before any syntax error), so a server can
/// answer it with its own error code (`bad-utf8`).
public enum JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes at `offset` do not start a valid UTF-8 sequence (a stray
    /// continuation byte, a truncated, overlong or surrogate encoding, or a
    /// code point past U+10FFFF).
    case invalidUTF8(offset: Int)
    /// Nothing but whitespace (or nothing at all).
    case empty
    /// Not JSON grammar at `offset`: an unexpected character, a trailing
    /// comma, a bad escape or literal, a lone surrogate escape, a control
    /// character in a string, text after the value, …
    case syntax(offset: Int, message: String)
    /// Arrays and objects nest deeper than `limit` at `offset`.
    case tooDeep(offset: Int, limit: Int)
    /// An object repeats `key` (at `offset`); the reader refuses rather than
    /// pick one of the values.
    case duplicateKey(offset: Int, key: String)
    /// A number too large for a `Double` (e.g. `1e400`) at `offset`.
    case numberOutOfRange(offset: Int)

    /// The byte offset of the problem (0 for `empty`).
    public var offset: Int {
        switch self {
        case .empty: return 0
        case .invalidUTF8(let offset), .syntax(let offset, _), .tooDeep(let offset, _),
             .duplicateKey(let offset, _), .numberOutOfRange(let offset):
            return offset
        }
    }

    public var description: String {
        switch self {
        case .invalidUTF8(let offset):
            return "byte \(offset): invalid UTF-8"
        case .empty:
            return "no JSON value (the line is empty)"
        case .syntax(let offset, let message):
            return "byte \(offset): \(message)"
        case .tooDeep(let offset, let limit):
            return "byte \(offset): arrays and objects nest deeper than \(limit) levels"
        case .duplicateKey(let offset, let key):
            return "byte \(offset): duplicate key \"\(key)\""
        case .numberOutOfRange(let offset):
            return "byte \(offset): number out of range"
        }
    }
}
