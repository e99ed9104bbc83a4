/// One JSON value (RFC 8259), as `JSONParser` reads it. Numbers are
/// `Double`s; objects keep their members in document order (`JSONObject`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    // MARK: Accessors

    /// The member named `key` of an object; nil for a missing key or a value
    /// that is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` of an array; nil out of bounds or for a value
    /// that is not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    public var string: String? {
        guard case .string(let s) = self else { return nil }
        return s
    }

    public var double: Double? {
        guard case .number(let x) = self else { return nil }
        return x
    }

    /// The number as an `Int` when it is an exact integer (no fraction, and
    /// within ±2⁵³ where every integer is exact in a `Double`); else nil.
    /// `7`, `7.0` and `7e0` are 7; `7.5` and `1e300` are nil.
    public var int: Int? {
        guard case .number(let x) = self, JSONValue.isExactInteger(x) else { return nil }
        return Int(x)
    }

    public var bool: Bool? {
        guard case .bool(let b) = self else { return nil }
        return b
    }

    public var array: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    public var object: JSONObject? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    public var isNull: Bool { self == .null }

    /// The name of the value's JSON type, for messages: "an object",
    /// "a string", …
    public var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// 2⁵³: the largest magnitude below which every integer is a `Double`.
    static let largestExactInteger = 9_007_199_254_740_992.0

    /// Whether `x` is an integer within ±2⁵³ (by conversion, not libm).
    static func isExactInteger(_ x: Double) -> Bool {
        abs(x) <= largestExactInteger && Double(Int64(x)) == x
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
