/// One node of a YAML document as `libinput record` writes them: a scalar
/// (its text), a sequence or a mapping, with the line it starts on.
struct YAMLNode {
    enum Content {
        /// `plain` is false for a quoted scalar: `"null"` is text, `null` is not.
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        /// Pairs in the file's order; keys are unique.
        case mapping([(key: String, value: YAMLNode)])
    }

    let content: Content
    let line: Int

    /// An empty plain scalar, `~` or `null`: what a key with nothing after it holds.
    var isNull: Bool {
        guard case let .scalar(text, plain: true) = content else { return false }
        return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    var scalar: String? {
        guard case let .scalar(text, _) = content else { return nil }
        return text
    }

    var sequence: [YAMLNode]? {
        guard case let .sequence(items) = content else { return nil }
        return items
    }

    var mapping: [(key: String, value: YAMLNode)]? {
        guard case let .mapping(pairs) = content else { return nil }
        return pairs
    }

    /// The value of `key` in a mapping.
    subscript(key: String) -> YAMLNode? {
        mapping?.first { $0.key == key }?.value
    }
}
