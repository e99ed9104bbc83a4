import WireFormat

/// Typed access to the fields of one line, with errors naming the line's
/// type and the field.
struct Fields {
    let type: String
    let object: JSONObject
    /// Where `object` is in the line (`transitions[0].`), for the errors.
    var prefix = ""

    func missing(_ field: String) -> StreamDecodeError { .missingField(type: type, field: prefix + field) }

    func bad(_ field: String, _ expected: String) -> StreamDecodeError {
        .badField(type: type, field: prefix + field, expected: expected)
    }

    func string(_ field: String) throws(StreamDecodeError) -> String {
        guard let value = try optionalString(field) else { throw missing(field) }
        return value
    }

    func optionalString(_ field: String) throws(StreamDecodeError) -> String? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let s = value.string else { throw bad(field, "a string") }
        return s
    }

    func number(_ field: String) throws(StreamDecodeError) -> Double {
        guard let value = try optionalNumber(field) else { throw missing(field) }
        return value
    }

    func optionalNumber(_ field: String) throws(StreamDecodeError) -> Double? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let x = value.double else { throw bad(field, "a number") }
        return x
    }

    /// A reply's `id`: the daemon echoes a string or an integer; anything
    /// else reads as none.
    var id: RequestID? {
        switch object["id"] {
        case .string(let text)?: return .text(text)
        case .number(let x)? where x.isFinite && x.rounded(.towardZero) == x
                                   && abs(x) <= Double(RequestID.largestNumber):
            return .number(Int64(x))
        default: return nil
        }
    }

    func optionalBool(_ field: String) throws(StreamDecodeError) -> Bool? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let b = value.bool else { throw bad(field, "true or false") }
        return b
    }

    func optionalInt(_ field: String) throws(StreamDecodeError) -> Int? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let n = value.int else { throw bad(field, "an integer") }
        return n
    }

    func seq(_ field: String = "seq") throws(StreamDecodeError) -> UInt64 {
        guard let value = try optionalSeq(field) else { throw missing(field) }
        return value
    }

    func optionalSeq(_ field: String = "seq") throws(StreamDecodeError) -> UInt64? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let n = value.int, n >= 0 else { throw bad(field, "a non-negative integer") }
        return UInt64(n)
    }

    /// `"values":{"dim":0.16,…}`; absent is empty.
    func values(_ field: String = "values") throws(StreamDecodeError) -> [PropertyValue] {
        guard let value = object[field], !value.isNull else { return [] }
        guard let members = value.object else { throw bad(field, "an object of numbers") }
        var result: [PropertyValue] = []
        result.reserveCapacity(members.count)
        for member in members {
            guard let x = member.value.double else { throw bad("\(field).\(member.key)", "a number") }
            result.append(PropertyValue(member.key, x))
        }
        return result
    }

    /// An array of numbers; nil when absent.
    func optionalNumbers(_ field: String) throws(StreamDecodeError) -> [Double]? {
        guard let value = object[field], !value.isNull else { return nil }
        guard let items = value.array else { throw bad(field, "an array of numbers") }
        var numbers: [Double] = []
        for item in items {
            guard let n = item.double else { throw bad(field, "an array of numbers") }
            numbers.append(n)
        }
        return numbers
    }

    /// An array field; absent is empty.
    func array(_ field: String) throws(StreamDecodeError) -> [JSONValue] {
        guard let value = object[field], !value.isNull else { return [] }
        guard let items = value.array else { throw bad(field, "an array") }
        return items
    }
}
