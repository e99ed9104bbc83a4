// The vocabulary of the declarative key tables in ConfigSchema.swift: what
// a key holds, when it applies, and its default.

// MARK: - Values

/// A key's validated, effective value.
enum ConfigValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case integer(Int)
    case boolean(Bool)
    /// An array of scalars, items in file order.
    case array([ConfigValue])
    /// A table of free keys (`labels = { floor = "2" }`), each a scalar.
    case table([String: ConfigValue])

    /// The value written as TOML.
    var rendered: String {
        switch self {
        case .string(let text): return TOMLString.quoted(text)
        case .number(let value): return value.description
        case .integer(let value): return String(value)
        case .boolean(let value): return value ? "true" : "false"
        case .array(let items): return "[" + items.map(\.rendered).joined(separator: ", ") + "]"
        case .table(let entries):
            // Sorted: the same table is always written the same way (the config's hash reads it).
            if entries.isEmpty { return "{}" }
            return "{ " + entries.sorted { $0.key < $1.key }.map { TOMLKey.display($0.key) + " = " + $0.value.rendered }
                .joined(separator: ", ") + " }"
        }
    }
}

// MARK: - Kinds

/// What may be written in a string key.
enum StringRule: Sendable {
    case any
    /// Non-empty, only `A-Z a-z 0-9 _ . -` (names that need no escaping in JSON).
    case identifier
    /// A path starting with `/`, without NUL, of at most `maxBytes` UTF-8 bytes.
    case absolutePath(maxBytes: Int)
    /// A permission mode as 3 or 4 octal digits (`"0660"`, `"660"`), at most
    /// `0777`, with every bit of `mustInclude` set; `reason` says why.
    case fileMode(mustInclude: UInt32, reason: String)
    /// A POSIX-style group name: `[A-Za-z_][A-Za-z0-9_.-]*`.
    case groupName
    /// `"auto"`, or an absolute path of at most `maxBytes` bytes (an input
    /// device: `/dev/input/eventN` or a by-id/by-path link).
    case deviceSelector(maxBytes: Int)
    /// A touchscreen a transition is bound to: a path or link (absolute),
    /// or a device name; not empty, no NUL.
    case deviceReference(maxBytes: Int)
    /// `HOST:PORT` to listen on: an IPv4 address, `localhost` or `[IPv6]`,
    /// and a port 0 to 65535 (see `ListenAddress`).
    case listenAddress
    /// A web origin a browser sends: `scheme://host[:port]`, `"null"`, or `"*"`.
    case origin
    /// A Prometheus label name (`[A-Za-z_][A-Za-z0-9_]*`, not starting
    /// with `__`), none of `reserved`.
    case labelName(reserved: [String])

    func problem(with text: String) -> String? {
        switch self {
        case .any:
            return nil
        case .identifier:
            if text.isEmpty { return "must not be empty" }
            let allowed = text.utf8.allSatisfy { TOMLKey.isBareKeyByte($0) || $0 == UInt8(ascii: ".") }
            return allowed ? nil : "must contain only letters, digits, '_', '.' and '-'"
        case .absolutePath(let maxBytes):
            if text.isEmpty { return "must not be empty" }
            if !text.hasPrefix("/") { return "must be an absolute path (starting with '/')" }
            if text.utf8.contains(0) { return "must not contain a NUL character" }
            let length = text.utf8.count
            return length <= maxBytes ? nil : "must be at most \(maxBytes) bytes long (this one has \(length))"
        case .fileMode(let mustInclude, let reason):
            guard let mode = Self.fileMode(text) else {
                return "must be 3 or 4 octal digits (0-7), like \"0660\""
            }
            if mode > 0o777 { return "must be at most \"0777\" (no setuid, setgid or sticky bits)" }
            if mode & mustInclude != mustInclude {
                return "must include \(TOMLString.quoted(Self.fileModeText(mustInclude))), or \(reason)"
            }
            return nil
        case .groupName:
            guard let first = text.utf8.first else { return "must not be empty" }
            let startsWell = first == UInt8(ascii: "_")
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
            let restIsAllowed = text.utf8.dropFirst().allSatisfy { TOMLKey.isBareKeyByte($0) || $0 == UInt8(ascii: ".") }
            return startsWell && restIsAllowed
                ? nil : "must be a group name: a letter or '_', then letters, digits, '_', '.' and '-'"
        case .deviceSelector(let maxBytes):
            if text == "auto" || text == "all" { return nil }
            guard let problem = StringRule.absolutePath(maxBytes: maxBytes).problem(with: text) else { return nil }
            return text.hasPrefix("/") ? problem : "must be \"auto\", \"all\" or an absolute path like \"/dev/input/by-id/…\""
        case .deviceReference(let maxBytes):
            if text.isEmpty { return "must not be empty" }
            if text.hasPrefix("/") { return StringRule.absolutePath(maxBytes: maxBytes).problem(with: text) }
            if text.utf8.contains(0) { return "must not contain a NUL character" }
            let length = text.utf8.count
            return length <= maxBytes ? nil : "must be at most \(maxBytes) bytes long (this one has \(length))"
        case .listenAddress:
            switch ListenAddress.parse(text) {
            case .success: return nil
            case .failure(let problem): return problem.message
            }
        case .origin:
            return OriginRule.problem(with: text)
        case .labelName(let reserved):
            guard let first = text.utf8.first else { return "must not be empty" }
            let letter = { (b: UInt8) in (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") || b == UInt8(ascii: "_") }
            let valid = letter(first) && text.utf8.allSatisfy { letter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) }
            if !valid { return "must be a Prometheus label name: a letter or '_', then letters, digits or '_'" }
            if text.hasPrefix("__") { return "must not start with '__' (Prometheus keeps those names)" }
            if reserved.contains(text) { return "is a label transitiond sets itself (" + reserved.joined(separator: ", ") + ")" }
            return nil
        }
    }

    /// The type wanted, for "expected ..., found ..." messages.
    var expected: String {
        switch self {
        case .fileMode: return "a string of 3 or 4 octal digits like \"0660\""
        case .listenAddress: return "a string \"HOST:PORT\" like \"127.0.0.1:8765\""
        case .any, .identifier, .absolutePath, .groupName, .deviceSelector, .deviceReference, .origin, .labelName:
            return "a string"
        }
    }

    /// The mode 3 or 4 octal digits spell, or nil when `text` is not that.
    static func fileMode(_ text: String) -> UInt32? {
        let digits = text.utf8
        guard digits.count == 3 || digits.count == 4 else { return nil }
        var mode: UInt32 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { return nil }
            mode = mode * 8 + UInt32(digit - UInt8(ascii: "0"))
        }
        return mode
    }

    /// A mode as at least 4 octal digits: `0o660` is `"0660"`.
    static func fileModeText(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// The range of a number key; `nil` bounds are open-ended.
struct NumberRange: Sendable {
    /// One end of a range.
    enum Bound: Sendable {
        case inclusive(Double)
        case exclusive(Double)
    }

    var lower: Bound?
    var upper: Bound?

    static let any = NumberRange(lower: nil, upper: nil)
    /// `x > lower`.
    static func above(_ lower: Double) -> NumberRange {
        NumberRange(lower: .exclusive(lower), upper: nil)
    }
    /// `lower < x ≤ upper`.
    static func above(_ lower: Double, upTo upper: Double) -> NumberRange {
        NumberRange(lower: .exclusive(lower), upper: .inclusive(upper))
    }
    /// `lower ≤ x < upper`.
    static func from(_ lower: Double, below upper: Double) -> NumberRange {
        NumberRange(lower: .inclusive(lower), upper: .exclusive(upper))
    }
    /// `lower ≤ x ≤ upper`.
    static func from(_ lower: Double, through upper: Double) -> NumberRange {
        NumberRange(lower: .inclusive(lower), upper: .inclusive(upper))
    }

    func contains(_ value: Double) -> Bool {
        switch lower {
        case .inclusive(let bound)? where !(value >= bound): return false
        case .exclusive(let bound)? where !(value > bound): return false
        default: break
        }
        switch upper {
        case .inclusive(let bound)? where !(value <= bound): return false
        case .exclusive(let bound)? where !(value < bound): return false
        default: return true
        }
    }

    /// "> 0 and <= 10", "any number".
    var summary: String {
        var parts: [String] = []
        switch lower {
        case .inclusive(let bound)?: parts.append(">= " + Self.format(bound))
        case .exclusive(let bound)?: parts.append("> " + Self.format(bound))
        case nil: break
        }
        switch upper {
        case .inclusive(let bound)?: parts.append("<= " + Self.format(bound))
        case .exclusive(let bound)?: parts.append("< " + Self.format(bound))
        case nil: break
        }
        return parts.isEmpty ? "any number" : parts.joined(separator: " and ")
    }

    /// A bound for messages: `0`, `0.5`, `100000`.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return value.description
    }
}

/// The type and allowed values of a key.
indirect enum ValueKind: Sendable {
    case string(StringRule)
    /// A string from a fixed list.
    case choice([String])
    /// A finite float within a range; integers are accepted.
    case number(NumberRange)
    case integer(ClosedRange<Int>)
    case boolean
    /// An array (possibly empty) whose every item is of this kind.
    case array(of: ValueKind)
    /// An item of any of these kinds, told apart by type: the first kind
    /// that reads the value decides (`"kiosk"` or `1000`).
    case either([ValueKind])
    /// A table (inline or with a header of its own) whose keys are free,
    /// each following `keys`, and whose every value is of this kind.
    case table(keys: StringRule, of: ValueKind)

    /// The expected type, for "expected ..., found ..." messages.
    var expected: String {
        switch self {
        case .string(let rule): return rule.expected
        case .choice: return "a string"
        case .number: return "a number"
        case .integer: return "an integer"
        case .boolean: return "a boolean (true or false)"
        case .array: return "an array"
        case .table: return "a table"
        case .either(let kinds):
            var types: [String] = []
            for kind in kinds where !types.contains(kind.expected) { types.append(kind.expected) }
            return types.joined(separator: " or ")
        }
    }

    /// The allowed values in short, for comments in rendered configs.
    var summary: String? {
        switch self {
        case .string(.any): return nil
        case .string(.identifier): return "letters, digits, '_', '.', '-'"
        case .string(.absolutePath(let maxBytes)): return "an absolute path of at most \(maxBytes) bytes"
        case .string(.fileMode(let mustInclude, _)):
            return "3 or 4 octal digits, at most \"0777\", including \(TOMLString.quoted(StringRule.fileModeText(mustInclude)))"
        case .string(.groupName): return "a group name"
        case .string(.deviceSelector): return "\"auto\", \"all\", or a device path or by-id/by-path link"
        case .string(.deviceReference): return "a device path or by-id/by-path link, or a device name"
        case .string(.listenAddress): return "\"HOST:PORT\", an IPv4 address, localhost or [IPv6]"
        case .string(.origin): return "an origin \"scheme://host[:port]\", \"null\" or \"*\""
        case .string(.labelName): return "a Prometheus label name"
        case .choice(let options): return options.joined(separator: " | ")
        case .number(let range): return range.summary
        case .integer(let range):
            return range.count == 1 ? "always \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
        case .boolean: return "true | false"
        case .array(let item): return item.summary.map { "each " + $0 }
        case .table(_, let item): return "a table" + (item.summary.map { " of " + $0 } ?? "")
        case .either(let kinds):
            let summaries = kinds.compactMap(\.summary)
            return summaries.isEmpty ? nil : summaries.joined(separator: " or ")
        }
    }

    /// Whether a value has the type this kind reads (its range aside).
    func matchesType(of value: ConfigValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.choice, .string), (.number, .number), (.integer, .integer),
             (.boolean, .boolean), (.array, .array), (.table, .table):
            return true
        case (.either(let kinds), _):
            return kinds.contains { $0.matchesType(of: value) }
        default:
            return false
        }
    }

    /// The value this kind reads from a TOML node, or nil on a type mismatch
    /// (of the value or, for an array, of any item).
    func read(_ value: TOMLValue) -> ConfigValue? {
        switch (self, value) {
        case (.string, .string(let text)), (.choice, .string(let text)): return .string(text)
        case (.number, .float(let number)): return .number(number)
        case (.number, .integer(let number)): return .number(Double(number))
        case (.integer, .integer(let number)): return .integer(number)
        case (.boolean, .boolean(let flag)): return .boolean(flag)
        case (.array(let item), .array(let nodes)):
            var items: [ConfigValue] = []
            for node in nodes {
                guard let value = item.read(node.value) else { return nil }
                items.append(value)
            }
            return .array(items)
        case (.table(_, let item), .table(let table)):
            var entries: [String: ConfigValue] = [:]
            for key in table.keys {
                guard let node = table[key], let value = item.read(node.value) else { return nil }
                entries[key] = value
            }
            return .table(entries)
        case (.either(let kinds), _):
            for kind in kinds {
                if let read = kind.read(value) { return read }
            }
            return nil
        default: return nil
        }
    }

    /// What is wrong with a value of the right type, or nil when it is allowed.
    func problem(with value: ConfigValue) -> String? {
        switch (self, value) {
        case (.string(let rule), .string(let text)):
            return rule.problem(with: text)
        case (.choice(let options), .string(let text)):
            return options.contains(text) ? nil : "must be one of " + options.joined(separator: ", ")
        case (.number(let range), .number(let number)):
            if !number.isFinite { return "must be a finite number" }
            return range.contains(number) ? nil : "must be " + range.summary
        case (.integer(let range), .integer(let number)):
            if range.contains(number) { return nil }
            return range.count == 1
                ? "must be \(range.lowerBound)"
                : "must be from \(range.lowerBound) to \(range.upperBound)"
        case (.boolean, .boolean):
            return nil
        case (.array(let item), .array(let items)):
            for (index, value) in items.enumerated() {
                if let problem = item.problem(with: value) { return "item \(index + 1): " + problem }
            }
            return nil
        case (.table(let keys, let item), .table(let entries)):
            for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
                if let problem = keys.problem(with: key) { return "key '\(key)' " + problem }
                if let problem = item.problem(with: value) { return "\(TOMLKey.display(key)): " + problem }
            }
            return nil
        case (.either(let kinds), _):
            guard let kind = kinds.first(where: { $0.matchesType(of: value) }) else { return "must be \(expected)" }
            return kind.problem(with: value)
        default:
            return "must be \(expected)"
        }
    }
}

// MARK: - Keys

/// When a key applies: always, or when an earlier key of the same section
/// has one of some values (`edge` only when `gesture` is `edge-pan`).
enum Condition: Sendable {
    case always
    case when(String, isOneOf: [String])

    func holds(in values: [String: ConfigValue]) -> Bool {
        switch self {
        case .always:
            return true
        case .when(let key, let options):
            guard case .string(let text)? = values[key] else { return false }
            return options.contains(text)
        }
    }
}

/// What a key is when the file does not give it.
enum DefaultValue: Sendable {
    /// The file must give it (when it applies).
    case required
    case value(ConfigValue)
    /// No value: the key is optional and has no default (`socket`).
    case absent
    /// Computed from the keys before it; the text says how, for messages.
    case computed(String, @Sendable (ValidatedSection) -> ConfigValue)
}

/// One key of a section: its name, kind, when it applies and its default.
/// A name may have several specs with different conditions (`direction` of a
/// swipe or of a pinch); the first whose condition holds is used.
struct KeySpec: Sendable {
    var name: String
    var kind: ValueKind
    var condition: Condition
    var defaultValue: DefaultValue
    /// Added to range errors: "a pinch uses exactly 2 fingers".
    var note: String?
    /// What the key may be, for comments in rendered configs, when the
    /// kind's own summary does not say enough ("bytes, 4096 to ...").
    var customSummary: String?

    init(_ name: String, _ kind: ValueKind, when condition: Condition = .always,
         default defaultValue: DefaultValue, note: String? = nil, summary: String? = nil) {
        self.name = name
        self.kind = kind
        self.condition = condition
        self.defaultValue = defaultValue
        self.note = note
        self.customSummary = summary
    }

    /// What the key may be, in short, for comments in rendered configs.
    var summary: String? { customSummary ?? kind.summary }
}

// MARK: - Sections

/// A table of the config: its keys, in the order they are checked and
/// rendered (a condition or computed default may only look at keys before
/// it), and its sub-tables.
struct SectionSchema: Sendable {
    /// How the section is written, for messages: "[[transition]]".
    var header: String
    var keys: [KeySpec]
    var children: [ChildSection]

    init(header: String, keys: [KeySpec], children: [ChildSection] = []) {
        self.header = header
        self.keys = keys
        self.children = children
    }

    /// Key names without repeats, in schema order.
    var keyNames: [String] {
        var names: [String] = []
        for spec in keys where !names.contains(spec.name) { names.append(spec.name) }
        return names
    }

    /// The spec of `name` that applies given the keys before it.
    func spec(named name: String, given values: [String: ConfigValue]) -> KeySpec? {
        keys.first { $0.name == name && $0.condition.holds(in: values) }
    }
}

/// A sub-table of a section: `[name]` or `[[name]]`.
struct ChildSection: Sendable {
    /// How the child is written.
    enum Shape: Sendable {
        case table
        case arrayOfTables
    }

    var name: String
    var shape: Shape
    var schema: SectionSchema
}
