/// A JSON object: members in document order, keys unique (the parser
/// rejects a duplicate key). Lookup by key is a linear scan, which is the
/// fastest for the handful of keys of a protocol line. Two objects are equal
/// when they have the same keys with equal values, in any order.
public struct JSONObject: Sendable, Equatable, RandomAccessCollection {
    /// One `"key": value` member.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in document order.
    public private(set) var members: [Member]

    public init() { members = [] }

    /// An object of `members`; for a repeated key the last one wins.
    public init(_ members: [Member]) {
        self.members = []
        for member in members { self[member.key] = member.value }
    }

    /// Members known to have unique keys (the parser checks as it reads).
    init(uniqueMembers: [Member]) { members = uniqueMembers }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The value of `key`, or nil. Setting a value replaces the member in
    /// place or appends it; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case let (i?, value?): members[i].value = value
            case let (i?, nil): members.remove(at: i)
            case let (nil, value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    // MARK: Collection

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    // MARK: Equality

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        guard a.members.count == b.members.count else { return false }
        if a.members == b.members { return true }
        return a.members.allSatisfy { b[$0.key] == $0.value }
    }
}
