@testable import Recordings
import Testing
import Engine

/// Each malformed input gives a RecordingError on the right line, saying
/// what is wrong.
struct MalformedInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var text: String
        var line: Int
        var message: String
        var testDescription: String { message }
    }

    static let header = "N: Pad\nI: 0003 0000 0000 0000\n"  // lines 1 and 2

    static let cases: [Case] = [
        // E: lines
        Case(text: "E: 0.000001 0003 0039\n", line: 1,
             message: "expected 4 fields after 'E:' (time type code value), found 3"),
        Case(text: "E: 0.000001 0003 0039 1 2\n", line: 1,
             message: "expected 4 fields after 'E:' (time type code value), found 5"),
        Case(text: "E:\n", line: 1, message: "expected 4 fields after 'E:' (time type code value), found 0"),
        Case(text: "E: 0.000001 0003 0039 0000\nE: abc 0003 0039 1\n", line: 2,
             message: "the time 'abc' is not SECONDS.MICROSECONDS (like 0.000001)"),
        Case(text: "E: 1 0003 0039 1\n", line: 1, message: "the time '1' is not SECONDS.MICROSECONDS"),
        Case(text: "E: 1. 0003 0039 1\n", line: 1, message: "the time '1.' is not SECONDS.MICROSECONDS"),
        Case(text: "E: -1.000000 0003 0039 1\n", line: 1, message: "the time '-1.000000' is not"),
        Case(text: "E: 99999999999999999999.000001 0003 0039 1\n", line: 1, message: "is too large"),
        Case(text: "E: 0.000001 10000 0039 1\n", line: 1, message: "the event type '10000' is larger than ffff"),
        Case(text: "E: 0.000001 00g3 0039 1\n", line: 1, message: "the event type '00g3' is not a hexadecimal number"),
        Case(text: "E: 0.000001 0003 fffff 1\n", line: 1, message: "the event code 'fffff' is larger than ffff"),
        Case(text: "E: 0.000001 0003 0039 2147483648\n", line: 1,
             message: "the event value '2147483648' does not fit in 32 bits"),
        Case(text: "E: 0.000001 0003 0039 -2147483649\n", line: 1, message: "does not fit in 32 bits"),
        Case(text: "E: 0.000001 0003 0039 0x10\n", line: 1, message: "the event value '0x10' is not a decimal number"),
        Case(text: "E: 0.000001 0003 0039 12#comment\n", line: 1, message: "'12#comment' is not a decimal number"),
        // Unknown lines
        Case(text: "X: what\n", line: 1, message: "unknown line 'X: what'"),
        Case(text: "# fine\n\nhello\n", line: 3, message: "unknown line 'hello'"),
        Case(text: "E\n", line: 1, message: "unknown line 'E'"),
        // Description lines
        Case(text: "N:\n", line: 1, message: "the device name after 'N:' is empty"),
        Case(text: "N: Pad\n", line: 1, message: "the device name is not followed by an 'I:' line"),
        Case(text: "N: Pad\nI: 0003 0000\n", line: 2,
             message: "expected 4 hexadecimal fields after 'I:' (bus vendor product version), found 2"),
        Case(text: "N: Pad\nI: 0003 0000 10000 0\n", line: 2, message: "the product id '10000' is larger than ffff"),
        Case(text: "N: Pad\nI: 0003 xyz 0 0\n", line: 2, message: "the vendor id 'xyz' is not a hexadecimal number"),
        Case(text: header + "P: 00 00 00\n", line: 3, message: "expected 8 hexadecimal bytes after 'P:', found 3"),
        Case(text: header + "P: 00 zz 00 00 00 00 00 00\n", line: 3,
             message: "the property byte 'zz' is not a hexadecimal byte (00 to ff)"),
        Case(text: header + "P: 00 100 00 00 00 00 00 00\n", line: 3, message: "the property byte '100'"),
        Case(text: header + "B: 01 00 00\n", line: 3,
             message: "expected 9 fields after 'B:' (event type, then 8 hexadecimal bytes), found 3"),
        Case(text: header + "B: 20 00 00 00 00 00 00 00 00\n", line: 3,
             message: "the event type '20' is out of range (the largest is 1f, EV_MAX)"),
        Case(text: header + "B: 03 00 00 00 00 00 00 00 0g\n", line: 3, message: "the mask byte '0g'"),
        Case(text: "# EVEMU 1.3\n" + header + "A: 00 0 100 0 0\n", line: 4,
             message: "expected 6 fields after 'A:' (code min max fuzz flat resolution) in an EVEMU 1.3 file, found 5"),
        Case(text: header + "A: 00 0 100 0 0 0\n", line: 3,
             message: "expected 5 fields after 'A:' (code min max fuzz flat) in a file without a '# EVEMU' version "
                 + "line (format 1.0), found 6; a resolution field needs '# EVEMU 1.2' or later as the first line"),
        Case(text: "# EVEMU 1.1\n" + header + "A: 00 0 100 0 0 0\n", line: 4,
             message: "in an EVEMU 1.1 file, found 6"),
        Case(text: header + "A: 00 0 1o0 0 0\n", line: 3, message: "the maximum '1o0' is not a decimal number"),
        Case(text: header + "A: 00 0 100 0 99999999999\n", line: 3, message: "the flat '99999999999' does not fit in 32 bits"),
        // Found by the evemu fuzz target (docs/fuzzing.md): a number of 20 digits
        // or more overflowed 64 bits while read (a trap), before it was found too large.
        Case(text: header + "A: 35 0 799 22222222222222222222222222222222222220 0\n", line: 3,
             message: "the fuzz '22222222222222222222222222222222222220' does not fit in 32 bits"),
        Case(text: header + "A: 00 0 18446744073709551616 0 0\n", line: 3,
             message: "the maximum '18446744073709551616' does not fit in 32 bits"),
        Case(text: header + "A: 1ffff 0 100 0 0\n", line: 3, message: "the axis code '1ffff' is larger than ffff"),
        Case(text: header + "L: 00\n", line: 3, message: "expected 2 fields after 'L:' (code state), found 1"),
        Case(text: header + "S: 00 on\n", line: 3, message: "the switch state 'on' is not a 32-bit decimal number"),
        // Structure
        Case(text: "A: 00 0 100 0 0\n", line: 1,
             message: "'A:' before the device name: a description starts with 'N:' then 'I:'"),
        Case(text: "I: 0 0 0 0\n", line: 1, message: "'I:' before the device name"),
        Case(text: "N: Pad\nP: 00 00 00 00 00 00 00 00\n", line: 2,
             message: "expected 'I:' (bus vendor product version) after the device name on line 1, found 'P:'"),
        Case(text: "N: Pad\n# comment\nE: 0.000001 0000 0000 0\n", line: 3,
             message: "expected 'I:' (bus vendor product version) after the device name on line 1, found 'E:'"),
        Case(text: header + "I: 0 0 0 0\n", line: 3, message: "a second 'I:' line (the first is on line 2)"),
        Case(text: header + "N: Other\n", line: 3,
             message: "a second device description starts here (the first 'N:' is on line 1)"),
        Case(text: header + "E: 0.000001 0000 0000 0\n\nA: 00 0 1 0 0\n", line: 5,
             message: "'A:' after the events started on line 3: the description must come before the events"),
        Case(text: "E: 0.000001 0000 0000 0\nN: Late\n", line: 2, message: "'N:' after the events started on line 1"),
    ]

    @Test(arguments: cases)
    func malformedLineIsReportedOnItsLine(_ testCase: Case) {
        let error = evemuError(testCase.text, path: "bad.events")
        #expect(error?.file == "bad.events")
        #expect(error?.line == testCase.line)
        #expect(error?.message.contains(testCase.message) == true, "\(String(describing: error))")
    }

    @Test func lineNumbersStayRightAfterManyFastEvents() {
        var text = Self.header
        for index in 0..<1000 {
            text += "E: 0.\(String(100_000 + index)) 0003 0035 \(index)\t# fine\n"
        }
        text += "E: 0.200000 0003 0035 nope\n"
        let error = evemuError(text)
        #expect(error?.line == 1003)
        #expect(error?.description == "test.events:1003: the event value 'nope' is not a decimal number")
    }

    @Test func controlBytesAreShownReadably() {
        let error = evemuError("E: 0.000001 0003 00\u{1}9 1\n")
        #expect(error?.message == "the event code '00?9' is not a hexadecimal number")
    }

    @Test func errorDescriptionFormats() {
        #expect(RecordingError(file: "a.events", line: 7, message: "bad").description == "a.events:7: bad")
        #expect(RecordingError(file: "a.events", message: "bad").description == "a.events: bad")
    }
}
