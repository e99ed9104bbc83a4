import WireFormat

/// Why a line of the stream could not be decoded.
public enum StreamDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not one strict JSON document.
    case json(JSONParseError)
    /// JSON, but not an object.
    case notAnObject
    /// An object without a string `type`.
    case missingType
    /// A `type` line without a field it needs.
    case missingField(type: String, field: String)
    /// A field of the wrong JSON type or out of range (`expected` says what
    /// it should be).
    case badField(type: String, field: String, expected: String)

    public var description: String {
        switch self {
        case .json(let error):
            return "not JSON: \(error)"
        case .notAnObject:
            return "not a JSON object"
        case .missingType:
            return "no \"type\" field"
        case .missingField(let type, let field):
            return "a \"\(type)\" line without \"\(field)\""
        case .badField(let type, let field, let expected):
            return "a \"\(type)\" line whose \"\(field)\" is not \(expected)"
        }
    }
}
