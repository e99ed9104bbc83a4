// MARK: - Values

/// A value read from TOML text, with where it is and its source text.
struct TOMLNode {
    var value: TOMLValue
    /// The 1-based line of the value (for a table, of its header or of the
    /// key that made it).
    var line: Int
    /// The 1-based column (in Unicode scalars) where the value starts.
    var column: Int = 1
    /// The value as written, shortened for messages (`"lft"`, `1e400`).
    var raw: String

    /// Whether the value is a table (of any origin).
    var isTable: Bool {
        if case .table = value { return true }
        return false
    }
}

/// The kinds of value the reader produces (TOML 1.0's types).
enum TOMLValue {
    case string(String)
    /// A 64-bit integer (decimal, `0x`, `0o` or `0b`).
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// An offset date-time, a local date-time, a local date or a local time
    /// (boxed: it is larger than the other cases, which every node pays for).
    indirect case dateTime(TOMLDateTime)
    /// An array of any values (`[1, "a", [2], {x = 1}]`), over one or more lines.
    case array([TOMLNode])
    /// A table: a `[name]` header's, an inline `{ … }`, or one made by a
    /// dotted key or as the parent of a header.
    case table(TOMLTable)
    /// The tables of `[[name]]` headers, in file order.
    case tableArray(TOMLTableArray)

    /// The kind of value, with its article, for messages: "an integer".
    var typeName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a float"
        case .boolean: return "a boolean"
        case .dateTime(let value): return value.kind.typeName
        case .array: return "an array"
        case .table: return "a table"
        case .tableArray: return "an array of tables"
        }
    }
}

// MARK: - Tables

/// A TOML table: its keys in file order, each with its node.
final class TOMLTable {
    /// How a table came to be, which says what may still add to it
    /// (TOML 1.0, "Table" and "Inline Table").
    enum Origin {
        /// The document itself.
        case root
        /// Made as the parent of a header (`a` of `[a.b]`): a `[a]` header
        /// may still define it, once.
        case implicit
        /// Defined by a `[name]` header.
        case header
        /// Made by a dotted key (`a.b = 1` makes `a`): later dotted keys of
        /// the same table may add to it, and headers may define tables
        /// under it, but no header may define it.
        case dotted
        /// An inline table `{ … }`: complete as written.
        case inline
        /// One table of a `[[name]]` array.
        case arrayElement
    }

    /// The line of the table's header (1 for the root table).
    var line: Int
    var origin: Origin
    /// The table's key path, made when first asked for. The path makers of
    /// the tables and keys under it hold this, not the table (which holds
    /// them), so that nothing holds its parent.
    let pathMaker: TOMLPath
    /// Keys in the order they were added.
    private(set) var keys: [String] = []
    /// By the key's UTF-8 bytes: TOML compares keys code point by code
    /// point, where Swift's `String ==` would take "é" and "e\u{301}" for
    /// one key.
    private var nodes: [[UInt8]: TOMLNode] = [:]

    /// A table at the key path `path` (its text made when first asked for).
    init(line: Int, origin: Origin, path: TOMLPath) {
        self.line = line
        self.origin = origin
        self.pathMaker = path
    }

    /// The key path of the table for messages: `""`, `transition[2]`.
    var path: String { pathMaker.text }

    subscript(key: String) -> TOMLNode? { nodes[Array(key.utf8)] }

    /// Adds a key the table does not have yet (the reader checks that).
    func insert(_ key: String, _ node: TOMLNode) {
        if nodes.updateValue(node, forKey: Array(key.utf8)) == nil { keys.append(key) }
    }

    /// An inline table is complete at its '}': it and the tables its dotted
    /// keys made become `.inline`, which nothing may add to.
    func seal() {
        origin = .inline
        for key in keys {
            if case .table(let child)? = self[key]?.value, child.origin == .dotted { child.seal() }
        }
    }

    /// Moves a key's recorded line, for an implicit table defined later.
    func setLine(_ line: Int, of key: String) {
        nodes[Array(key.utf8)]?.line = line
    }

    /// The key path of a key in this table: `transition[2].name`.
    func childPath(_ key: String) -> String { pathMaker.child(key) }
}

/// A key path for messages (of a table, a key or an array element), its
/// text made once, when first asked for: a document may hold millions of
/// keys and tables under a long key, and their paths are made only for
/// messages. A path holds its parent path, never a table: no cycle, and no
/// weak reference (whose side table the Swift 6.3 runtime never frees).
/// Plain data, not a closure: a closure capturing the parent path and the
/// key's parts was reported by LeakSanitizer as leaking both, once per key
/// read (docs/fuzzing.md).
final class TOMLPath {
    private enum Step {
        case root
        /// `parent.a.b` (dotted keys, a header's parts).
        case keys(TOMLPath, [String])
        /// `parent[n]`: an element of an array (from 1).
        case element(TOMLPath, Int)
    }

    private let step: Step
    private var made: String?

    /// The document's root: the empty path.
    init() {
        step = .root
        made = ""
    }

    private init(_ step: Step) {
        self.step = step
    }

    /// The path of `keys` under this one.
    func appending(_ keys: [String]) -> TOMLPath { TOMLPath(.keys(self, keys)) }

    /// The path of the `number`th element (from 1) of the array at this path.
    func element(_ number: Int) -> TOMLPath { TOMLPath(.element(self, number)) }

    var text: String {
        if let made { return made }
        var text: String
        switch step {
        case .root:
            text = ""
        case .keys(let parent, let keys):
            text = parent.text
            for key in keys {
                let shown = TOMLKey.display(key)
                text = text.isEmpty ? shown : text + "." + shown
            }
        case .element(let parent, let number):
            text = parent.text + "[\(number)]"
        }
        made = text
        return text
    }

    /// The text, as a key's path for messages is asked for: `key()`.
    func callAsFunction() -> String { text }

    /// The path of a key under this one: `transition[2].name`.
    func child(_ key: String) -> String {
        let shown = TOMLKey.display(key)
        let path = text
        return path.isEmpty ? shown : path + "." + shown
    }
}

/// The growing list of tables of one `[[name]]` array.
final class TOMLTableArray {
    private(set) var tables: [TOMLTable]

    init(first: TOMLTable) { tables = [first] }

    func append(_ table: TOMLTable) { tables.append(table) }
}

// MARK: - Keys

/// Bare-key rules shared by the reader, the validator and the renderer.
enum TOMLKey {
    /// A byte allowed in a bare key: `A-Z a-z 0-9 _ -`.
    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// The key as it would be written: bare when it can be, quoted otherwise.
    static func display(_ key: String) -> String {
        if !key.isEmpty && key.utf8.allSatisfy(isBareKeyByte) { return key }
        return TOMLString.quoted(key)
    }
}

// MARK: - Strings

/// Writing TOML basic strings.
enum TOMLString {
    /// `text` as a TOML basic string, escaping quotes, backslashes and
    /// control characters.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
