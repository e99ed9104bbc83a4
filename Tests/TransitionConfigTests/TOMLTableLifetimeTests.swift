import Testing
@testable import TransitionConfig

/// Found by the `config` fuzz target (docs/fuzzing.md), as a leak on the
/// first input it tried, `a = 1`: every key's path maker held its table
/// weakly, and the Swift runtime never frees the side table a weak
/// reference makes (some 48 bytes per key, per document read). The path
/// makers now hold their parent's `TOMLPath`, never a table.
struct TOMLTableLifetimeTests {
    /// What the fuzzer read, refused with the header's line as before.
    @Test func theFuzzInputIsRefusedAtTheEmptyHeader() {
        #expect(throws: ConfigError.self) { try TOMLReader.read("a = 1\n[]\n", file: "fuzz.toml") }
        do {
            _ = try TOMLReader.read("a = 1\n[]\n", file: "fuzz.toml")
        } catch {
            #expect(error.line == 2)
        }
    }

    /// Tables of every kind (dotted, implicit, a header's, an array's
    /// element, inline) go with the root: no path maker holds a table.
    @Test func everyTableGoesWithTheDocument() throws {
        weak var dotted: TOMLTable?
        weak var element: TOMLTable?
        weak var inline: TOMLTable?
        try {
            let root = try TOMLReader.read("a.b = 1\n[t.u]\nx = { y = 1 }\n[[arr]]\nz = 2\n", file: "f.toml")
            guard case .table(let a)? = root["a"]?.value, case .table(let t)? = root["t"]?.value,
                  case .table(let u)? = t["u"]?.value, case .table(let x)? = u["x"]?.value,
                  case .tableArray(let arr)? = root["arr"]?.value else {
                Issue.record("the document's tables are not where they were written")
                return
            }
            dotted = a
            inline = x
            element = arr.tables.first
            // Asking for paths runs the path makers.
            #expect(x.childPath("y") == "t.u.x.y")
            #expect(arr.tables[0].childPath("z") == "arr[1].z")
        }()
        #expect(dotted == nil && element == nil && inline == nil)
    }
}
