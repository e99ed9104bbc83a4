@testable import Recordings
import Testing

/// The YAML reader on what `libinput record` writes (block mappings and
/// sequences, sequences at their key's indentation, flow collections over
/// several lines, quoted names, comments), and on what it refuses, at the
/// line it names.
struct YAMLReaderTests {
    func read(_ text: String) throws(YAMLReader.Failure) -> YAMLNode? {
        try YAMLReader.read(Array(text.utf8))
    }

    func failure(_ text: String) -> YAMLReader.Failure? {
        do {
            _ = try read(text)
            return nil
        } catch {
            return error
        }
    }

    /// The node as nested Swift values, to compare whole trees.
    func plain(_ node: YAMLNode?) -> String {
        guard let node else { return "nil" }
        switch node.content {
        case let .scalar(text, plain: isPlain):
            return isPlain ? text : "'\(text)'"
        case let .sequence(items):
            return "[" + items.map(plain).joined(separator: ", ") + "]"
        case let .mapping(pairs):
            return "{" + pairs.map { "\($0.key): \(plain($0.value))" }.joined(separator: ", ") + "}"
        }
    }

    @Test func whatLibinputRecordWrites() throws {
        let text = """
        # libinput record
        version: 1
        system:
          dmi: "dmi:bvnSeaBIOS:bvr1.16.2:pnStandardPC(i440FX+PIIX,1996):"
        devices:
        - node: /dev/input/event1
          evdev:
            # Name: Tiny
            name: "Tiny \\"Touch\\""
            codes:
              3: [0, 1, 47] # EV_ABS
          hid: [
            0x05, 0x0d,
            0x09, 0x04
          ]
          udev:
            properties:
            - ID_INPUT=1
            - LIBINPUT_DEVICE_GROUP=3/0/0:i2c
          quirks:
          events:
          - evdev:
            - [  0,      0,   3,  57,       0] # EV_ABS / ABS_MT_TRACKING_ID        0
                                               # Touch device in neutral state
          - libinput:
            - {time: 0.000000, type: TOUCH_DOWN, slot: 0, point: [ 12.50, 3.00]}
          - hid:
              time: [  0,      5]
              hidraw0: [
                0x01
              ]

        """
        let root = try #require(try read(text))
        #expect(plain(root) == "{version: 1, system: {dmi: 'dmi:bvnSeaBIOS:bvr1.16.2:pnStandardPC(i440FX+PIIX,1996):'}, "
                + "devices: [{node: /dev/input/event1, evdev: {name: 'Tiny \"Touch\"', codes: {3: [0, 1, 47]}}, "
                + "hid: [0x05, 0x0d, 0x09, 0x04], udev: {properties: [ID_INPUT=1, LIBINPUT_DEVICE_GROUP=3/0/0:i2c]}, "
                + "quirks: , events: [{evdev: [[0, 0, 3, 57, 0]]}, "
                + "{libinput: [{time: 0.000000, type: TOUCH_DOWN, slot: 0, point: [12.50, 3.00]}]}, "
                + "{hid: {time: [0, 5], hidraw0: [0x01]}}]}]}")
        #expect(root["devices"]?.sequence?.first?["events"]?.line == 22)
        #expect(root["devices"]?.sequence?.first?["quirks"]?.isNull == true)
    }

    @Test(arguments: [
        ("a: 1\r\nb: [2,\r\n 3]\r\n", "{a: 1, b: [2, 3]}"),
        ("\u{FEFF}a: 1\n", "{a: 1}"),
        ("---\na: 1\n", "{a: 1}"),
        ("# only a comment\n--- # start\na: 1\n", "{a: 1}"),
        ("a: 'it''s'\nb: \"\\x41\\u00e9\\t\"\n", "{a: 'it's', b: 'A\u{e9}\t'}"),
        ("a: \"one\n  two\"\n", "{a: 'one two'}"),
        ("- - 1\n  - 2\n- 3\n", "[[1, 2], 3]"),
        ("a:\n- 1\n-\n- 3\n", "{a: [1, , 3]}"),
        ("a: {}\nb: []\nc: [1, 2,]\n", "{a: {}, b: [], c: [1, 2]}"),
        ("a: b#not a comment\nc: d # a comment\n", "{a: b#not a comment, c: d}"),
        ("url: http://x:80/y\n", "{url: http://x:80/y}"),
        ("a: null\nb: ~\nc: \"null\"\n", "{a: null, b: ~, c: 'null'}"),
        ("", "nil"),
        ("# nothing\n\n", "nil"),
    ])
    func readsTheShapesItMeets(text: String, expected: String) throws {
        #expect(plain(try read(text)) == expected)
    }

    @Test(arguments: [
        ("a: 1\nb: &x [1]\n", 2, "anchors and aliases"),
        ("a: *x\n", 1, "anchors and aliases"),
        ("a: !!int 1\n", 1, "tags"),
        ("a: |\n  text\n", 1, "block scalars"),
        ("? a\n: 1\n", 1, "complex keys"),
        ("a: 1\n---\nb: 2\n", 2, "a second YAML document"),
        ("a: [1,\n 2\n", 3, "the '[' opened on line 1 is not closed"),
        ("a: {b: 1\n", 2, "the '{' opened on line 1 is not closed"),
        ("a: [1 [2]]\n", 1, "expected ',' or ']'"),
        ("a: [1 2]\nb\n", 2, "expected 'key:'"),
        ("a: \"open\n", 1, "the string opened on line 1 is not closed"),
        ("a: \"\\q\"\n", 1, "unknown escape '\\q'"),
        ("a: \"\\uD800\"\n", 1, "not a character"),
        ("a:\n\t- 1\n", 2, "a tab in the indentation"),
        ("a: 1\n  b: 2\n", 2, "unexpected indentation"),
        ("a: b: c\n", 1, "a key and ':' after a value"),
        ("a: - 1\n", 1, "a list cannot start on its key's line"),
        ("a: 1\n- 2\n", 2, "a list item where a key"),
        ("a: 1\na: 2\n", 2, "the key 'a' more than once (first on line 1)"),
        ("a: {b: 1, b: 2}\n", 1, "the key 'b' more than once"),
        ("a:\n  b: 1\n c: 2\n", 3, "unexpected indentation after the value of 'a'"),
        ("  a: 1\nb: 2\n", 2, "less indented than the document's first line"),
        ("a: [b: 1]\n", 1, "inside [ ] is not read"),
        ("a: 1\nb: \u{1}\n", 2, "U+0001 is not allowed"),
        ("a: 1\n\nb: x\u{7F}\n", 3, "U+007F is not allowed"),
    ])
    func refusesByNameAtItsLine(text: String, line: Int, message: String) {
        let found = failure(text)
        #expect(found?.line == line, "\(String(describing: found))")
        #expect(found?.message.contains(message) == true, "\(String(describing: found))")
    }

    @Test func invalidUTF8IsRefusedAtItsLine() {
        do {
            _ = try YAMLReader.read(Array("a: 1\nb: ".utf8) + [0xC3, 0x28] + Array("\n".utf8))
            Issue.record("invalid UTF-8 was read")
        } catch {
            #expect(error == YAMLReader.Failure(line: 2, message: "the file is not UTF-8"))
        }
    }

    /// Nesting is bounded in every form, so no input can exhaust the stack.
    @Test(arguments: [
        String(repeating: "[", count: 100_000),
        String(repeating: "{a: ", count: 100_000),
        String(repeating: "- ", count: 100_000) + "x\n",
        (0..<200).map { String(repeating: " ", count: $0) + "k\($0):\n" }.joined(),
    ])
    func deepNestingIsRefused(text: String) {
        let found = failure(text)
        #expect(found?.message.contains("nest more than \(YAMLReader.maximumDepth) deep") == true,
                "\(String(describing: found))")
    }
}
