import Foundation
import TestSupport
import Testing
@testable import TransitionConfig

/// Each key of the config and of the expectation file is declared once, as a
/// typed `ConfigKey` (ConfigSchema.swift, ExpectationSchema.swift): the
/// sections are built from the declarations, which are consistent, and no
/// other source spells a key's name. (That the renderer writes every
/// declared key, and only those, is in ConfigRenderTests.)
@Suite("Key declarations")
struct KeyDeclarationTests {
    /// Every section of both files, with its table path.
    static let sections = allSections(of: ConfigSchema.root).map { ("config " + $0.path, $0.schema) }
        + allSections(of: ExpectationSchema.root).map { ("expectation " + $0.path, $0.schema) }

    @Test func keysOfOneNameApplyUnderDisjointConditions() {
        for (path, schema) in Self.sections {
            for name in schema.keyNames {
                let specs = schema.keys.filter { $0.name == name }
                guard specs.count > 1 else { continue }
                // The validator takes the first spec whose condition holds: two
                // declarations of one name must never both hold.
                var selectors: Set<String> = []
                var options: [String] = []
                for spec in specs {
                    switch spec.condition {
                    case .always:
                        Issue.record("[\(path)] \(name) is declared \(specs.count) times, one of them always")
                    case .when(let selector, let values):
                        selectors.insert(selector)
                        options += values
                    }
                }
                #expect(selectors.count <= 1, "[\(path)] \(name) depends on several keys: \(selectors)")
                #expect(Set(options).count == options.count, "[\(path)] \(name): conditions overlap in \(options)")
            }
        }
    }

    @Test func conditionsLookAtAnEarlierChoiceKey() {
        for (path, schema) in Self.sections {
            for (index, spec) in schema.keys.enumerated() {
                guard case .when(let selector, let values) = spec.condition else { continue }
                let earlier = schema.keys[..<index].first { $0.name == selector }
                guard case .choice(let choices)? = earlier?.kind else {
                    Issue.record("[\(path)] \(spec.name) depends on \(selector), not an earlier choice key")
                    continue
                }
                #expect(values.allSatisfy(choices.contains), "[\(path)] \(spec.name): \(values) not in \(choices)")
            }
        }
    }

    @Test func defaultsAreValuesTheirKeysAllow() {
        for (path, schema) in Self.sections {
            for spec in schema.keys {
                guard case .value(let value) = spec.defaultValue else { continue }
                #expect(spec.kind.matchesType(of: value) && spec.kind.problem(with: value) == nil,
                        "[\(path)] \(spec.name) defaults to \(value.rendered)")
            }
        }
    }

    @Test func tableHeadersNameTheirPaths() {
        for (path, schema) in Self.sections where !schema.children.isEmpty {
            let tablePath = path.split(separator: " ").dropFirst().joined()
            for child in schema.children {
                let childPath = tablePath.isEmpty ? child.name : tablePath + "." + child.name
                #expect(child.schema.header == child.shape.header(childPath), "\(child.schema.header) at \(childPath)")
            }
        }
    }

    /// A key name is spelled, as a string, only where a key of that name is
    /// declared: at most once per section that has it (a later declaration
    /// of the same key, as a pinch's `direction` or a gesture's `tolerance`,
    /// takes the first one's name). The TOML reader's files know no keys.
    @Test func keyNamesAreSpelledOnlyInTheirDeclarations() throws {
        var declaringSections: [String: Int] = [:]
        for (_, schema) in Self.sections {
            for name in Set(schema.keyNames + schema.children.map(\.name)) { declaringSections[name, default: 0] += 1 }
        }
        let folder = ProjectPaths.file("Sources/TransitionConfig")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("TOML") }
        #expect(files.contains("ConfigSchema.swift"))
        var spellings: [String: Int] = [:]
        for file in files {
            let code = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                .split(separator: "\n").filter { !$0.drop(while: { $0 == " " }).hasPrefix("//") }
                .joined(separator: "\n")
            for name in declaringSections.keys {
                spellings[name, default: 0] += code.ranges(of: "\"\(name)\"").count
            }
        }
        for (name, sections) in declaringSections.sorted(by: { $0.key < $1.key }) {
            let count = spellings[name] ?? 0
            #expect((1...sections).contains(count), "\"\(name)\" is spelled \(count) times; declared in \(sections) sections")
        }
    }
}
