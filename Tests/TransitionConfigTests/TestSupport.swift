import Testing
@testable import TransitionConfig
import Engine

/// Config fragments whose line counts the tests rely on.
enum Fixture {
    /// Lines 1–4; the next key is on line 5.
    static let edgePan = "[[transition]]\nname = \"t\"\ngesture = \"edge-pan\"\nedge = \"left\"\n"
    /// Lines 1–4; the next key is on line 5.
    static let swipe = "[[transition]]\nname = \"t\"\ngesture = \"swipe\"\ndirection = \"up\"\n"
    /// Lines 1–4; the next key is on line 5.
    static let pinchIn = "[[transition]]\nname = \"t\"\ngesture = \"pinch\"\ndirection = \"in\"\n"
    /// Lines 1–5; the next key is on line 6.
    static let spring = edgePan + "completion_curve = \"spring\"\n"
    /// Lines 1–6 (a keyframe `p` of transition `t`); the next key is on line 7.
    static let keyframe = edgePan + "[[transition.keyframe]]\nproperty = \"p\"\n"
}

/// Parses `text`, recording an issue unless it fails with a `ConfigError`.
func parseError(_ text: String, file: String = "test.toml",
                sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
    do {
        let config = try ConfigLoader.parse(text: text, file: file)
        Issue.record("expected a ConfigError, parsed \(config)", sourceLocation: sourceLocation)
    } catch let error as ConfigError {
        return error
    } catch {
        Issue.record("expected a ConfigError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Expects `text` to fail on `line`, about `key`, with a message containing `fragment`.
func expectError(_ text: String, line: Int, key: String?, _ fragment: String,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error = parseError(text, sourceLocation: sourceLocation) else { return }
    #expect(error.file == "test.toml", sourceLocation: sourceLocation)
    #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
}

/// Parses text that must be valid.
func parseValid(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> EngineConfiguration {
    do {
        return try ConfigLoader.parse(text: text, file: "test.toml")
    } catch {
        Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Parses text that must be valid, the daemon's tables included.
func parseDaemonValid(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> DaemonConfiguration {
    do {
        return try ConfigLoader.parseDaemon(text: text, file: "test.toml")
    } catch {
        Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

// MARK: - Schemas and rendered configs

/// Every section of a schema with its table path (`""` for the top level,
/// `transition.keyframe`), parents before their children.
func allSections(of schema: SectionSchema, path: String = "") -> [(path: String, schema: SectionSchema)] {
    var sections = [(path: path, schema: schema)]
    for child in schema.children {
        sections += allSections(of: child.schema, path: path.isEmpty ? child.name : path + "." + child.name)
    }
    return sections
}

/// The keys a rendered config writes, each with the path of the table it is
/// in (`""` for the top level), in order.
func renderedKeys(_ text: String) -> [(table: String, key: String)] {
    var table = ""
    var keys: [(table: String, key: String)] = []
    for line in text.split(separator: "\n") {
        let line = line.drop(while: { $0 == " " })
        if line.isEmpty || line.hasPrefix("#") { continue }
        if line.hasPrefix("[") {
            table = String(line.filter { $0 != "[" && $0 != "]" })
        } else if let equals = line.firstRange(of: " = ") {
            keys.append((table, String(line[..<equals.lowerBound])))
        }
    }
    return keys
}

/// Renders `config`, expects every key written to be one `ConfigSchema`
/// declares for its table and the text to read back to `config`; returns
/// the keys written as `table.key` (`.frame_rate` for the top level).
@discardableResult
func expectDeclaredKeysRoundTrip(_ config: DaemonConfiguration,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> Set<String> {
    let text = ConfigLoader.render(config)
    let declared = Dictionary(uniqueKeysWithValues: allSections(of: ConfigSchema.root).map { ($0.path, $0.schema.keyNames) })
    let written = renderedKeys(text)
    for (table, key) in written {
        #expect(declared[table]?.contains(key) == true, "[\(table)] \(key) is not declared in\n\(text)",
                sourceLocation: sourceLocation)
    }
    #expect(try ConfigLoader.parseDaemon(text: text, file: "rendered.toml") == config, "\(text)",
            sourceLocation: sourceLocation)
    return Set(written.map { $0.table + "." + $0.key })
}

/// Expects `text` to fail through `parseDaemon` on `line`, about `key`, with a
/// message containing `fragment`. What the schema checks fails through the
/// engine-only `parse` too, with the same error (`engineToo`); what the
/// builder checks across keys and tables only through `parseDaemon`.
func expectDaemonConfigError(_ text: String, line: Int, key: String, _ fragment: String, engineToo: Bool = true,
                             sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let config = try ConfigLoader.parseDaemon(text: text, file: "test.toml")
        Issue.record("expected a ConfigError, parsed \(config)", sourceLocation: sourceLocation)
    } catch let error as ConfigError {
        if engineToo {
            #expect(error == parseError(text, sourceLocation: sourceLocation),
                    "parse and parseDaemon disagree", sourceLocation: sourceLocation)
        }
        #expect(error.file == "test.toml", sourceLocation: sourceLocation)
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix("test.toml:\(line)\(error.column.map { ":\($0)" } ?? ""): key '\(key)': "), "\(error)",
                sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a ConfigError, got \(error)", sourceLocation: sourceLocation)
    }
}
