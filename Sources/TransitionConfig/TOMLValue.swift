// MARK: - Values

/// A value read from TOML text, with the line it is on and its source text.
struct TOMLNode {
    var value: TOMLValue
    /// The 1-based line of the value (for a table, of its header).
    var line: Int
    /// The value as written, shortened for messages (`"lft"`, `1e400`).
    var raw: String
}

/// The kinds of value the reader produces.
enum TOMLValue {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// An array of scalars (`[1, 2]`), single- or multi-line.
    case array([TOMLNode])
    /// A `[name]` table.
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
        case .array: return "an array"
        case .table: return "a table"
        case .tableArray: return "an array of tables"
        }
    }
}

// MARK: - Tables

/// A TOML table: its keys in file order, each with its node.
final class TOMLTable {
    /// The line of the table's header (1 for the root table).
    var line: Int
    /// The key path of the table for messages: `""`, `transition[2]`.
    let path: String
    /// False while the table exists only as the parent of a header
    /// (`[a]` is implicit after `[a.b]` until `[a]` itself appears).
    var isDefined: Bool
    /// Keys in the order they were added.
    private(set) var keys: [String] = []
    private var nodes: [String: TOMLNode] = [:]

    init(line: Int, path: String, isDefined: Bool) {
        self.line = line
        self.path = path
        self.isDefined = isDefined
    }

    subscript(key: String) -> TOMLNode? { nodes[key] }

    /// Adds a key the table does not have yet (the reader checks that).
    func insert(_ key: String, _ node: TOMLNode) {
        if nodes.updateValue(node, forKey: key) == nil { keys.append(key) }
    }

    /// Moves a key's recorded line, for an implicit table defined later.
    func setLine(_ line: Int, of key: String) {
        nodes[key]?.line = line
    }

    /// The key path of a key in this table: `transition[2].name`.
    func childPath(_ key: String) -> String {
        let shown = TOMLKey.display(key)
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
