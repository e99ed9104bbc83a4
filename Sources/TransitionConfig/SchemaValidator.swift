// MARK: - Validated sections

/// A table checked against its `SectionSchema`: the effective value of every
/// key that applies (defaults filled in), where given keys are, and the
/// checked sub-tables.
struct ValidatedSection {
    /// The table's key path: `""`, `transition[2]`.
    let path: String
    /// The line of the table's header.
    let line: Int
    var values: [String: ConfigValue] = [:]
    /// Lines of the keys the file gives.
    var lines: [String: Int] = [:]
    var children: [String: [ValidatedSection]] = [:]

    func keyPath(_ key: String) -> String {
        let shown = TOMLKey.display(key)
        return path.isEmpty ? shown : path + "." + shown
    }

    /// The key's line, or the header's when the key was defaulted.
    func line(of key: String) -> Int { lines[key] ?? line }

    // MARK: Typed reads

    /// The key's value, typed by its declaration: nil for an optional key the
    /// file does not give. Called only for keys the schema guarantees.
    subscript<Value>(key: ConfigKey<Value>) -> Value {
        guard let value = key.value(in: values) else { missing(key.name) }
        return value
    }

    /// The validated tables of a sub-table declaration, in file order.
    subscript(table: ChildSection) -> [ValidatedSection] { children[table.name] ?? [] }

    /// Whether the file gives the key (rather than its default).
    func gives<Value>(_ key: ConfigKey<Value>) -> Bool { lines[key.name] != nil }

    func keyPath<Value>(_ key: ConfigKey<Value>) -> String { keyPath(key.name) }

    func line<Value>(of key: ConfigKey<Value>) -> Int { line(of: key.name) }

    /// A problem with the key's value, at its line (the header's when defaulted).
    func error<Value>(at key: ConfigKey<Value>, file: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: line(of: key), key: keyPath(key), message: message)
    }

    private func missing(_ key: String) -> Never {
        preconditionFailure("schema does not guarantee '\(keyPath(key))' (\(String(describing: values[key])))")
    }
}

// MARK: - Validator

/// Checks a `TOMLTable` against a `SectionSchema`: unknown keys (with a
/// suggestion), keys that do not apply, types, ranges, required keys;
/// fills in defaults. The first problem found is thrown.
struct SchemaValidator {
    let file: String

    func validate(_ table: TOMLTable, as schema: SectionSchema) throws(ConfigError) -> ValidatedSection {
        try rejectUnknownKeys(in: table, schema: schema)
        var section = ValidatedSection(path: table.path, line: table.line)
        for name in schema.keyNames {
            try validateKey(name, in: table, schema: schema, into: &section)
        }
        for child in schema.children {
            section.children[child.name] = try validateChild(child, in: table)
        }
        return section
    }

    // MARK: Keys

    private func rejectUnknownKeys(in table: TOMLTable, schema: SectionSchema) throws(ConfigError) {
        let known = schema.keyNames + schema.children.map(\.name)
        for key in table.keys where !known.contains(key) {
            var message = "unknown key"
            if let suggestion = KeySuggestion.closest(to: key, among: known) {
                message += "; did you mean '\(suggestion)'?"
            } else {
                message += "; the keys of \(schema.header) are " + known.joined(separator: ", ")
            }
            throw ConfigError(file: file, line: table[key]?.line ?? table.line,
                              key: table.childPath(key), message: message)
        }
    }

    private func validateKey(_ name: String, in table: TOMLTable, schema: SectionSchema,
                             into section: inout ValidatedSection) throws(ConfigError) {
        let keyPath = table.childPath(name)
        let spec = schema.spec(named: name, given: section.values)

        guard let node = table[name] else {
            guard let spec else { return }
            section.values[name] = try defaultValue(of: spec, in: section, keyPath: keyPath)
            return
        }
        guard let spec else {
            throw ConfigError(file: file, line: node.line, key: keyPath,
                              message: notApplicable(name, schema: schema, section: section))
        }
        section.values[name] = try value(of: node, as: spec.kind, note: spec.note, keyPath: keyPath)
        section.lines[name] = node.line
    }

    /// The checked value of a node. An array's items are checked one by one,
    /// so a bad item is reported on its own line as "item N: ...".
    private func value(of node: TOMLNode, as kind: ValueKind, note: String?, keyPath: String,
                       item: Int? = nil) throws(ConfigError) -> ConfigValue {
        let prefix = item.map { "item \($0): " } ?? ""
        if case .array(let itemKind) = kind, case .array(let nodes) = node.value {
            var items: [ConfigValue] = []
            for (index, element) in nodes.enumerated() {
                items.append(try value(of: element, as: itemKind, note: note, keyPath: keyPath, item: index + 1))
            }
            return .array(items)
        }
        guard let value = kind.read(node.value) else {
            throw ConfigError(file: file, line: node.line, key: keyPath,
                              message: prefix + "expected \(kind.expected), found \(node.value.typeName) (got \(node.raw))")
        }
        if var problem = kind.problem(with: value) {
            if let note { problem += ": " + note }
            throw ConfigError(file: file, line: node.line, key: keyPath, message: prefix + problem + " (got \(node.raw))")
        }
        return value
    }

    /// The key's default; nil when it has none (`.absent`).
    private func defaultValue(of spec: KeySpec, in section: ValidatedSection,
                              keyPath: String) throws(ConfigError) -> ConfigValue? {
        switch spec.defaultValue {
        case .required:
            var message = "required key is missing"
            if case .when(let key, let options) = spec.condition {
                message += " (\(key) is \(options.joined(separator: " or ")))"
            }
            if case .choice(let options) = spec.kind {
                message += "; expected one of " + options.joined(separator: ", ")
            }
            throw ConfigError(file: file, line: section.line, key: keyPath, message: message)
        case .value(let value):
            return value
        case .absent:
            return nil
        case .computed(let how, let compute):
            let value = compute(section)
            if let problem = spec.kind.problem(with: value) {
                throw ConfigError(file: file, line: section.line, key: keyPath,
                                  message: "defaults to \(how) = \(value.rendered) here, which \(problem); set it explicitly")
            }
            return value
        }
    }

    /// "applies only when gesture is edge-pan (here gesture is "swipe")".
    private func notApplicable(_ name: String, schema: SectionSchema, section: ValidatedSection) -> String {
        var selector: String?
        var options: [String] = []
        for spec in schema.keys where spec.name == name {
            if case .when(let key, let values) = spec.condition {
                selector = key
                options += values
            }
        }
        guard let selector else { return "does not apply here" }
        var message = "applies only when \(selector) is \(options.joined(separator: " or "))"
        if let actual = section.values[selector] {
            message += " (here \(selector) is \(actual.rendered)"
            message += section.lines[selector] == nil ? ", the default)" : ")"
        }
        return message
    }

    // MARK: Sub-tables

    private func validateChild(_ child: ChildSection, in table: TOMLTable) throws(ConfigError) -> [ValidatedSection] {
        guard let node = table[child.name] else { return [] }
        switch (child.shape, node.value) {
        case (.arrayOfTables, .tableArray(let array)):
            var sections: [ValidatedSection] = []
            for element in array.tables {
                sections.append(try validate(element, as: child.schema))
            }
            return sections
        case (.arrayOfTables, .array(let nodes)) where nodes.allSatisfy(\.isTable):
            // `keyframe = [{ property = "dim" }, …]`: the same tables, inline.
            var sections: [ValidatedSection] = []
            for element in nodes {
                guard case .table(let table) = element.value else { continue }
                sections.append(try validate(table, as: child.schema))
            }
            return sections
        case (.table, .table(let subtable)):
            return [try validate(subtable, as: child.schema)]
        default:
            let wanted = child.shape == .table ? "a \(child.schema.header) table" : "\(child.schema.header) tables"
            var found = "found \(node.value.typeName) (got \(node.raw))"
            if case .table(let implied) = node.value, implied.origin == .implicit {
                found = "found only the parent of a header under it on line \(node.line), with no \(child.schema.header) before that header"
            } else if case .table(let dotted) = node.value, dotted.origin == .dotted, child.shape == .arrayOfTables {
                found = "found a table made by dotted keys (\(child.name).… = …); start each with a \(child.schema.header) line, or write \(child.name) = [{ … }, …]"
            }
            throw ConfigError(file: file, line: node.line, key: table.childPath(child.name),
                              message: "must be written as \(wanted), \(found)")
        }
    }
}
