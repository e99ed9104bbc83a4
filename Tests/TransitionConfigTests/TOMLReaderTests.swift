import Testing
@testable import TransitionConfig

private func read(_ text: String) throws -> TOMLTable {
    try TOMLReader.read(text, file: "test.toml")
}

private func value(_ table: TOMLTable, _ key: String) -> TOMLValue? { table[key]?.value }

private func string(_ table: TOMLTable, _ key: String) -> String? {
    if case .string(let text)? = value(table, key) { return text }
    return nil
}

private func integer(_ table: TOMLTable, _ key: String) -> Int? {
    if case .integer(let number)? = value(table, key) { return number }
    return nil
}

private func float(_ table: TOMLTable, _ key: String) -> Double? {
    if case .float(let number)? = value(table, key) { return number }
    return nil
}

private func tables(_ table: TOMLTable, _ key: String) -> [TOMLTable] {
    if case .tableArray(let array)? = value(table, key) { return array.tables }
    return []
}

// MARK: - Values

@Test func basicStringsDecodeEscapes() throws {
    let root = try read(#"a = "q\"b\\s\n\t\u00E9\U0001F600 \b\f\r""# + "\n")
    #expect(string(root, "a") == "q\"b\\s\n\t\u{E9}\u{1F600} \u{8}\u{C}\r")
}

@Test func literalStringsKeepBackslashes() throws {
    let root = try read(#"a = 'C:\path\n "quoted"'"# + "\nb = ''\nc = \"\"")
    #expect(string(root, "a") == #"C:\path\n "quoted""#)
    #expect(string(root, "b") == "")
    #expect(string(root, "c") == "")
}

@Test func integersTakeSignsAndUnderscores() throws {
    let root = try read("""
        a = +1_000
        b = -42
        c = 0
        d = 9223372036854775807
        e = -9223372036854775808
        f = -0
        """)
    #expect(integer(root, "a") == 1000)
    #expect(integer(root, "b") == -42)
    #expect(integer(root, "c") == 0)
    #expect(integer(root, "d") == Int.max)
    #expect(integer(root, "e") == Int.min)
    #expect(integer(root, "f") == 0)
}

@Test func floatsTakeFractionsExponentsInfAndNan() throws {
    let root = try read("""
        a = 1.5
        b = -2e3
        c = 6.02E+23
        d = 1_0.2_5
        e = 5e-1_0
        f = inf
        g = -inf
        h = nan
        i = 0.0
        """)
    #expect(float(root, "a") == 1.5)
    #expect(float(root, "b") == -2000)
    #expect(float(root, "c") == 6.02e23)
    #expect(float(root, "d") == 10.25)
    #expect(float(root, "e") == 5e-10)
    #expect(float(root, "f") == .infinity)
    #expect(float(root, "g") == -.infinity)
    #expect(float(root, "h")?.isNaN == true)
    #expect(float(root, "i") == 0)
}

@Test func booleansAndQuotedKeys() throws {
    let root = try read("t = true\nf = false\n\"a b\" = 1\n'c.d' = 2\n\"\" = 3")
    guard case .boolean(true)? = value(root, "t"), case .boolean(false)? = value(root, "f") else {
        Issue.record("booleans not read")
        return
    }
    #expect(integer(root, "a b") == 1)
    #expect(integer(root, "c.d") == 2)
    #expect(integer(root, "") == 3)
    #expect(root.childPath("a b") == "\"a b\"")
}

@Test func arraysSpanLinesWithCommentsAndTrailingCommas() throws {
    let root = try read("""
        single = [1, "two", 3.0, true]
        empty = []
        multi = [ # first comment
            10,   # ten
            # nothing here

            20,
        ]
        after = 1
        """)
    guard case .array(let single)? = value(root, "single"), case .array(let empty)? = value(root, "empty"),
          case .array(let multi)? = value(root, "multi") else {
        Issue.record("arrays not read")
        return
    }
    #expect(single.count == 4)
    #expect(empty.isEmpty)
    #expect(multi.map(\.line) == [4, 7])
    #expect(root["multi"]?.line == 3)
    #expect(root["after"]?.line == 9)
}

@Test func everyValueKeepsItsLine() throws {
    let root = try read("# comment\n\n  a = 1   # trailing\n\tb = 'x'\n[t]\nc = 2\n")
    #expect(root["a"]?.line == 3)
    #expect(root["b"]?.line == 4)
    #expect(root["t"]?.line == 5)
    guard case .table(let table)? = value(root, "t") else {
        Issue.record("no table t")
        return
    }
    #expect(table["c"]?.line == 6)
    #expect(table.path == "t")
}

@Test func crlfLineEndsCountAsOneLine() throws {
    let root = try read("a = 1\r\n# c\r\n\r\nb = [\r\n  2,\r\n]\r\n")
    #expect(root["b"]?.line == 4)
    guard case .array(let elements)? = value(root, "b") else {
        Issue.record("no array")
        return
    }
    #expect(elements.first?.line == 5)
}

@Test func byteOrderMarkIsSkipped() throws {
    let root = try read("\u{FEFF}a = 1")
    #expect(integer(root, "a") == 1)
}

// MARK: - Tables

@Test func keyframesAttachToTheMostRecentTransition() throws {
    let root = try read("""
        [[transition]]
        name = "a"
          [[ transition . keyframe ]]
          property = "x"
        [[transition]]
        name = "b"
        [[transition.keyframe]]
        property = "y"
        [[transition.keyframe]]
        property = "z"
        """)
    let transitions = tables(root, "transition")
    #expect(transitions.map { string($0, "name") } == ["a", "b"])
    #expect(tables(transitions[0], "keyframe").map { string($0, "property") } == ["x"])
    #expect(tables(transitions[1], "keyframe").map { string($0, "property") } == ["y", "z"])
    #expect(tables(transitions[1], "keyframe").map(\.path) == ["transition[2].keyframe[1]", "transition[2].keyframe[2]"])
    #expect(tables(transitions[1], "keyframe").map(\.line) == [7, 9])
}

@Test func implicitParentTablesCanBeDefinedLater() throws {
    let root = try read("[a.b]\nx = 1\n[a]\ny = 2\n")
    guard case .table(let a)? = value(root, "a") else {
        Issue.record("no table a")
        return
    }
    #expect(integer(a, "y") == 2)
    #expect(a.line == 3)
    #expect(root["a"]?.line == 3)
}

// MARK: - Syntax errors

/// A malformed document, the line of its error and part of the message.
struct SyntaxCase: Sendable, CustomTestStringConvertible {
    var text: String
    var line: Int
    var fragment: String
    var testDescription: String { fragment }
}

private let syntaxCases: [SyntaxCase] = [
    SyntaxCase(text: "a = 1\nb = \"abc\nc = 2", line: 2, fragment: "unterminated string"),
    SyntaxCase(text: "a = \"abc", line: 1, fragment: "unterminated string"),
    SyntaxCase(text: "a = 'abc\n", line: 1, fragment: "unterminated string"),
    SyntaxCase(text: "a = \"abc\\", line: 1, fragment: "unterminated string"),
    SyntaxCase(text: "\n\nname \"x\"", line: 3, fragment: "expected '=' after the key, found '\"'"),
    SyntaxCase(text: "name\n", line: 1, fragment: "expected '=' after the key, found the end of the line"),
    SyntaxCase(text: "a = 1.2.3", line: 1, fragment: "invalid number 1.2.3"),
    SyntaxCase(text: "a = 01", line: 1, fragment: "invalid number 01"),
    SyntaxCase(text: "a = 0660", line: 1, fragment: "invalid number 0660: an integer cannot start with 0"),
    SyntaxCase(text: "a = 0_1", line: 1, fragment: "invalid number 0_1"),
    SyntaxCase(text: "a = 1__0", line: 1, fragment: "invalid number"),
    SyntaxCase(text: "a = 1_", line: 1, fragment: "invalid number"),
    SyntaxCase(text: "a = 1e", line: 1, fragment: "invalid number"),
    SyntaxCase(text: "a = 1.", line: 1, fragment: "invalid number"),
    SyntaxCase(text: "a = .5", line: 1, fragment: "invalid number"),
    SyntaxCase(text: "a = +", line: 1, fragment: "invalid number"),
    SyntaxCase(text: "a = _1", line: 1, fragment: "invalid value _1"),
    SyntaxCase(text: "a = 99999999999999999999", line: 1, fragment: "does not fit in 64 bits"),
    SyntaxCase(text: "a = left", line: 1, fragment: "strings must be quoted: \"left\""),
    SyntaxCase(text: "x = 0\na = [1,\n2,\n", line: 4, fragment: "unterminated array: missing the closing ']' of the '[' on line 2, column 5"),
    SyntaxCase(text: "a = [1 2]", line: 1, fragment: "expected ',' or ']'"),
    SyntaxCase(text: "a = [,]", line: 1, fragment: "expected a value in the array, found ','"),
    SyntaxCase(text: "a = \"\\q\"", line: 1, fragment: "invalid escape '\\q'"),
    SyntaxCase(text: "a = \"\\u12\"", line: 1, fragment: "expected 4 hexadecimal digits"),
    SyntaxCase(text: "a = \"\\uD800\"", line: 1, fragment: "not a Unicode scalar value"),
    SyntaxCase(text: "a = \"bell\u{7}\"", line: 1, fragment: "control character U+0007"),
    SyntaxCase(text: "a = 1\rb = 2", line: 1, fragment: "carriage return"),
    SyntaxCase(text: "a = \"x\" \"y\"", line: 1, fragment: "expected the end of the line after the value, found '\"'"),
    SyntaxCase(text: "[t] x = 1", line: 1, fragment: "expected the end of the line after the table header"),
    SyntaxCase(text: "\n[[transition]", line: 2, fragment: "expected ']]' to close the table header, found the end of the file"),
    SyntaxCase(text: "[[transition] ]", line: 1, fragment: "expected ']]' to close the table header, found ' '"),
    SyntaxCase(text: "[a\n", line: 1, fragment: "expected ']' to close the table header"),
    SyntaxCase(text: "[]", line: 1, fragment: "expected a key, found ']'"),
    SyntaxCase(text: "= 1", line: 1, fragment: "expected a key, found '='"),
    SyntaxCase(text: "a =", line: 1, fragment: "expected a value, found the end of the file"),
    SyntaxCase(text: "a = # nothing", line: 1, fragment: "expected a value, found '#'"),
    SyntaxCase(text: "a = 1\nb = 2\na = 3", line: 3, fragment: "duplicate key (first defined on line 1)"),
    SyntaxCase(text: "[t]\n[t]", line: 2, fragment: "the table [t] is already defined on line 1"),
    SyntaxCase(text: "[[t]]\n[t]", line: 2, fragment: "already an array of tables"),
    SyntaxCase(text: "[t]\n[[t]]", line: 2, fragment: "is already a table (line 1)"),
    SyntaxCase(text: "a = 1\n[a.b]", line: 2, fragment: "is already an integer (line 1)"),
    SyntaxCase(text: "a = [1]\n[[a]]", line: 2, fragment: "is already an array (line 1)"),
    SyntaxCase(text: "a = 1979-05-32", line: 1, fragment: "invalid date or time 1979-05-32"),
    SyntaxCase(text: "a = 24:00:00", line: 1, fragment: "invalid date or time 24:00:00"),
    SyntaxCase(text: "a = { x = 1 }\na.y = 2", line: 2, fragment: "a is already an inline table (line 1), complete as written"),
    SyntaxCase(text: "a.b = 1\n[a]", line: 2, fragment: "is already a table made by a dotted key (line 1)"),
    SyntaxCase(text: "a = \"\"\"x\"\"\"\"\"\"", line: 1, fragment: "6 quotes in a row"),
    SyntaxCase(text: "a = 0x8000000000000000", line: 1, fragment: "does not fit in 64 bits"),
    SyntaxCase(text: "a = [" + String(repeating: "[", count: 200), line: 1, fragment: "nest at most 128 deep"),
]

@Test(arguments: syntaxCases)
func syntaxErrorsNameTheirLine(_ testCase: SyntaxCase) {
    do {
        _ = try TOMLReader.read(testCase.text, file: "bad.toml")
        Issue.record("expected an error")
    } catch {
        #expect(error.file == "bad.toml")
        #expect(error.line == testCase.line, "\(error)")
        #expect(error.message.contains(testCase.fragment), "\(error)")
    }
}

@Test func syntaxErrorsNameTheKeyWhenThereIsOne() {
    do {
        _ = try TOMLReader.read("[[transition]]\n[[transition]]\nname = \"abc", file: "f.toml")
        Issue.record("expected an error")
    } catch {
        #expect(error.description == "f.toml:3:12: key 'transition[2].name': unterminated string: missing the closing '\"'\n  name = \"abc\n             ^")
    }
}

@Test func aSyntaxErrorShowsItsLineWithACaretUnderTheColumn() {
    do {
        _ = try TOMLReader.read("a = 1\n\tb = [1,, 2]\n", file: "f.toml")
        Issue.record("expected an error")
    } catch {
        #expect(error.line == 2 && error.column == 9, "\(error)")
        // The tab is kept in the caret's line, so the caret lines up in a terminal.
        #expect(error.caret == "  \tb = [1,, 2]\n  \t       ^", "\(error)")
    }
    do {
        _ = try TOMLReader.read("name = \"é\" x\n", file: "f.toml")
        Issue.record("expected an error")
    } catch {
        #expect(error.column == 12, "columns count characters, not bytes: \(error)")
    }
}

@Test func whatTheReaderRefusedBeforeIsReadNow() throws {
    let root = try TOMLReader.read("""
        title = \"\"\"
        a \\
          b\"\"\"
        path = '''C:\\x'''
        fruit.apple.color = "red"
        fruit.apple.taste = { sweet = true }
        matrix = [[1, 2], ["a"]]
        when = 1979-05-27T07:32:00-08:00
        day = 1979-05-27
        mask = 0o755
        """, file: "f.toml")
    guard case .string(let title)? = root["title"]?.value else { Issue.record("title"); return }
    #expect(title == "a b")
    guard case .string(let path)? = root["path"]?.value else { Issue.record("path"); return }
    #expect(path == "C:\\x")
    guard case .table(let fruit)? = root["fruit"]?.value, case .table(let apple)? = fruit["apple"]?.value,
          case .string("red")? = apple["color"]?.value, case .table(let taste)? = apple["taste"]?.value,
          case .boolean(true)? = taste["sweet"]?.value else { Issue.record("fruit"); return }
    guard case .array(let matrix)? = root["matrix"]?.value, matrix.count == 2 else { Issue.record("matrix"); return }
    guard case .dateTime(let when)? = root["when"]?.value else { Issue.record("when"); return }
    #expect(when.kind == .offsetDateTime && when.text == "1979-05-27T07:32:00-08:00")
    #expect(root["day"]?.column == 7)
    guard case .integer(0o755)? = root["mask"]?.value else { Issue.record("mask"); return }
}

@Test func crlfErrorsCountLinesLikeLf() {
    do {
        _ = try TOMLReader.read("a = 1\r\n\r\nb = \"x\r\n", file: "f.toml")
        Issue.record("expected an error")
    } catch {
        #expect(error.line == 3)
        #expect(error.message.contains("unterminated string"))
    }
}
