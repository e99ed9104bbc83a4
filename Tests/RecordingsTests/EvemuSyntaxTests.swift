@testable import Recordings
import Testing
import Engine

/// The shapes of valid evemu files: versions, line endings, comments,
/// names, numbers and times.
struct EvemuSyntaxTests {
    let events = """
    E: 0.000001 0003 0039 0021\t# EV_ABS / ABS_MT_TRACKING_ID   21
    E: 0.000001 0003 0035 0415 # a comment after a space
    E: 0.000001 0000 0000 0000
    E: 0.027718 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1
    E: 0.027718 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +27ms

    """

    let expectedEvents = [
        InputEvent(time: 1, type: 3, code: 0x39, value: 21),
        InputEvent(time: 1, type: 3, code: 0x35, value: 415),
        InputEvent(time: 1, type: 0, code: 0, value: 0),
        InputEvent(time: 27_718, type: 3, code: 0x39, value: -1),
        InputEvent(time: 27_718, type: 0, code: 0, value: 0),
    ]

    @Test func sampleDescriptionAndEvents() throws {
        let parsed = try parseEvemu(sampleDescription + events)
        let description = try #require(parsed.description)
        #expect(description.name == "Sample Touch")
        #expect(description.bus == 0x18 && description.vendor == 0x04f3)
        #expect(description.product == 0x0001 && description.version == 0x0100)
        #expect(description.properties == [1])
        #expect(description.codes[EventCode.EV_KEY] == [EventCode.BTN_TOUCH])
        #expect(description.codes[EventCode.EV_ABS] == [0, 1, 0x2f, 0x35, 0x36, 0x39])
        #expect(description.absInfo[EventCode.ABS_X] == AbsInfo(minimum: 0, maximum: 1279, resolution: 12))
        #expect(parsed.events == expectedEvents)
    }

    @Test func crlfLineEndingsReadTheSame() throws {
        let unix = try parseEvemu(sampleDescription + events)
        let windows = try parseEvemu((sampleDescription + events).replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(windows.description == unix.description)
        #expect(windows.events == unix.events)
        // And a CRLF file's errors count lines the same way.
        let error = evemuError("# EVEMU 1.3\r\n\r\nN: x\r\nI: 1 2 3\r\n")
        #expect(error?.line == 4)
    }

    @Test func missingFinalNewline() throws {
        let parsed = try parseEvemu("E: 0.000001 0003 0039 0021\nE: 0.000002 0000 0000 0000")
        #expect(parsed.events.last == InputEvent(time: 2, type: 0, code: 0, value: 0))
        let withComment = try parseEvemu("E: 0.000001 0003 0039 0021\t# no newline after me")
        #expect(withComment.events.count == 1)
    }

    @Test func commentsAndBlankLinesAnywhere() throws {
        let text = """
        # EVEMU 1.3
        # Kernel: 6.1.0

        N: Commented
        # between N: and I:
        I: 0003 0001 0002 0003

          \t
        A: 00 0 100 0 0 0   # a comment after an axis
        ################################
        #      Waiting for events      #
        ################################
          E: 0.5 0003 0000 7
        # in between events

        E: 1.000000 0000 0000 0
        """
        let parsed = try parseEvemu(text)
        #expect(parsed.description?.name == "Commented")
        #expect(parsed.description?.absInfo[0] == AbsInfo(minimum: 0, maximum: 100))
        #expect(parsed.events == [InputEvent(time: 500_000, type: 3, code: 0, value: 7),
                                  InputEvent(time: 1_000_000, type: 0, code: 0, value: 0)])
    }

    @Test func nonASCIIAndInvalidUTF8Names() throws {
        let parsed = try parseEvemu("N: Écran tactile ✋\nI: 0003 0000 0000 0000\n")
        #expect(parsed.description?.name == "Écran tactile ✋")

        var bytes = Array("N: bad ".utf8) + [0xff, 0xfe, 0xc3] + Array(" end\r\nI: 0 0 0 0\n".utf8)
        var name = try EvemuParser.parse(bytes: bytes, path: "x").description?.name
        #expect(name?.hasPrefix("bad \u{FFFD}") == true)
        #expect(name?.hasSuffix(" end") == true)

        // Tabs, '#' and NUL are part of a name.
        bytes = Array("N:\tTab # not a comment\0x\nI: 0 0 0 0\n".utf8)
        name = try EvemuParser.parse(bytes: bytes, path: "x").description?.name
        #expect(name == "Tab # not a comment\0x")
    }

    @Test func relativeAndAbsoluteTimes() throws {
        let parsed = try parseEvemu("""
        E: 0.000001 0000 0000 0
        E: 1330495970.996848 0000 0000 0
        E: 0.5 0000 0000 0
        E: 2.25 0000 0000 0
        E: 3.1234567 0000 0000 0
        E: 0000000000000000000004.000001 0000 0000 0
        E: 9223372036853.999999 0000 0000 0
        """)
        #expect(parsed.events.map(\.time) == [
            1, 1_330_495_970_996_848, 500_000, 2_250_000, 3_123_456, 4_000_001, 9_223_372_036_853_999_999,
        ])
    }

    @Test func numbersInEvents() throws {
        let parsed = try parseEvemu("""
        E: 0.000001 0003 0039 -001
        E: 0.000001 3 39 +5
        E: 0.000001 00003 0000ABCD 2147483647
        E: 0.000001 ffff FFFF -2147483648
        E:0.000001\t0003\t0035\t0415\t\t# tabs everywhere
        """)
        #expect(parsed.events == [
            InputEvent(time: 1, type: 3, code: 0x39, value: -1),
            InputEvent(time: 1, type: 3, code: 0x39, value: 5),
            InputEvent(time: 1, type: 3, code: 0xabcd, value: .max),
            InputEvent(time: 1, type: 0xffff, code: 0xffff, value: .min),
            InputEvent(time: 1, type: 3, code: 0x35, value: 415),
        ])
    }

    @Test func versionOneZeroHasFiveFieldAxes() throws {
        let text = "N: Old\nI: 0003 1b96 0001 0000\nA: 00 0 9600 0 0\nA: 35 -5 9600 3 2\n"
        let description = try #require(try parseEvemu(text).description)
        #expect(description.absInfo[0] == AbsInfo(minimum: 0, maximum: 9600))
        #expect(description.absInfo[0x35] == AbsInfo(minimum: -5, maximum: 9600, fuzz: 3, flat: 2, resolution: 0))
        // Explicit 1.0 and 1.1 are the same.
        #expect(try parseEvemu("# EVEMU 1.1\n" + text).description == description)
        #expect(try parseEvemu("# EVEMU 1.0\n" + text).description == description)
    }

    @Test func versionOneTwoHasResolution() throws {
        let text = "# EVEMU 1.2\nN: New\nI: 0003 0000 0000 0000\nA: 00 0 2776 4 0 11\n"
        let description = try #require(try parseEvemu(text).description)
        #expect(description.absInfo[0] == AbsInfo(minimum: 0, maximum: 2776, fuzz: 4, resolution: 11))
    }

    @Test func maskLinesContinuePerType() throws {
        // BTN_TOUCH (0x14a) is on the 6th B: 01 line; a later P: line continues the properties.
        let text = """
        N: Masks
        I: 0 0 0 0
        P: 00 00 00 00 00 00 00 00
        P: 01 00 00 00 00 00 00 80
        B: 00 0b 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 00 00 00 00 00 00 00
        B: 01 00 04 00 00 00 00 00 00
        B: 03 03 00 00 00 00 00 00 00
        B: 01 01 00 00 00 00 00 00 00
        B: 15 00 00 00 00 00 00 00 00
        """
        let description = try #require(try parseEvemu(text).description)
        #expect(description.properties == [64, 127])
        #expect(description.codes[EventCode.EV_KEY] == [EventCode.BTN_TOUCH, 0x180])
        #expect(description.codes[EventCode.EV_ABS] == [0, 1])
        #expect(description.codes[EventCode.EV_SYN] == [0, 1, 3])
        #expect(description.codes[0x15] == nil)  // no bits set: no entry
    }

    @Test func oldLedAndSwitchLinesAreIgnored() throws {
        let parsed = try parseEvemu("N: Old\nI: 0 0 0 0\nL: 00 1\nS: 01 0\nE: 0.000001 0000 0000 0\n")
        #expect(parsed.description?.codes.isEmpty == true)
        #expect(parsed.events.count == 1)
    }

    @Test func emptyAndCommentOnlyFiles() throws {
        #expect(try parseEvemu("").events.isEmpty)
        #expect(try parseEvemu("").description == nil)
        #expect(try parseEvemu("# just a comment\n\n\n").description == nil)
    }

    /// The fast path and the checked path read every line the fast path
    /// accepts the same way.
    @Test(arguments: [
        "E: 0.000001 0003 0039 0021\t# c", "E: 12.345678 3 35 -1", "E:0.000000 a B -0",
        "E: 999999999999.999999 ffff ffff 2147483647", "E: 1.000000 0000 0000 0000\r",
        "E: 1.000000 0000 0000 -2147483648   ", "E: 1.000000  0001  014a  1  # x",
        // Type and code of four decimal digits each (read as words), then with a letter or a tab.
        "E: 1.000000 0003 0035 0415", "E: 1.000000 0003 002f 1", "E: 1.000000 0003 0035\t1",
        "E: 1.000000 0003\t0035 1", "E: 1.000000 9999 0999 7",
    ])
    func fastPathAgreesWithCheckedPath(line: String) throws {
        let bytes = Array(line.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            var fast = InputEvent(time: -1, type: 0, code: 0, value: 0)
            let next = EvemuEventLine.fast(buffer.baseAddress!, 0, buffer.count, &fast)
            #expect(next == buffer.count)
            let checked = try EvemuEventLine.checked(buffer, from: 0, to: buffer.count) {
                RecordingError(file: "x", line: 1, message: $0)
            }
            #expect(fast == checked)
        }
    }
}
