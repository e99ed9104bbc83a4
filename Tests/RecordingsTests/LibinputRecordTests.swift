@testable import Recordings
import Testing
import Engine

/// `libinput record` YAML: a minimal valid file, format detection, and
/// errors with the YAML line.
struct LibinputRecordTests {
    static let valid = """
    # libinput record
    version: 1
    ndevices: 1
    libinput:
      version: "1.22.1"
    devices:
    - node: /dev/input/event1
      evdev:
        # Name: Tiny
        name: "Tiny Touch"
        id: [24, 1, 2, 3]
        codes:
          0: [0, 1, 2, 3] # EV_SYN
          1: [330] # EV_KEY
          3: [0, 1, 47, 53, 54, 57] # EV_ABS
        absinfo:
          0: [0, 1279, 0, 0, 0]
          1: [-5, 767, 1, 2, 12]
        properties: [1]
      udev:
        properties:
      events:
      # Current time is 07:08:18
      - evdev:
        - [  0,      0,   3,  57,       0] # EV_ABS / ABS_MT_TRACKING_ID        0
        - [  0,      0,   0,   0,       0] # ------------ SYN_REPORT (0) ---------- +0ms
      - libinput:
        - {time: 0.0, type: TOUCH_DOWN}
      - evdev:
        - [  1, 683127,   3,  57,      -1]
        - [  1, 683127,   0,   0,       0]

    """

    func parse(_ text: String, path: String = "test.yml") throws(RecordingError)
        -> (description: DeviceDescription, events: [InputEvent]) {
        try LibinputRecordReader.parse(bytes: Array(text.utf8), path: path)
    }

    func error(_ text: String) -> RecordingError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsDescriptionAndEvdevFrames() throws {
        let parsed = try parse(Self.valid)
        #expect(parsed.description.name == "Tiny Touch")
        #expect(parsed.description.bus == 24 && parsed.description.vendor == 1)
        #expect(parsed.description.product == 2 && parsed.description.version == 3)
        #expect(parsed.description.codes[EventCode.EV_KEY] == [EventCode.BTN_TOUCH])
        #expect(parsed.description.absInfo[1] == AbsInfo(minimum: -5, maximum: 767, fuzz: 1, flat: 2, resolution: 12))
        #expect(parsed.description.properties == [EventCode.INPUT_PROP_DIRECT])
        #expect(parsed.events == [
            InputEvent(time: 0, type: 3, code: 57, value: 0),
            InputEvent(time: 0, type: 0, code: 0, value: 0),
            InputEvent(time: 1_683_127, type: 3, code: 57, value: -1),
            InputEvent(time: 1_683_127, type: 0, code: 0, value: 0),
        ])
    }

    @Test func formatDetection() {
        let yaml = Array(Self.valid.utf8)
        #expect(RecordingReader.detectFormat(bytes: yaml, path: "x.events") == .libinputRecord)
        #expect(RecordingReader.detectFormat(bytes: Array("\n\nversion: 1\n".utf8), path: "x") == .libinputRecord)
        #expect(RecordingReader.detectFormat(bytes: Array("# a\ndevices:\n".utf8), path: "x") == .libinputRecord)
        #expect(RecordingReader.detectFormat(bytes: [], path: "x.YAML") == .libinputRecord)
        #expect(RecordingReader.detectFormat(bytes: Array(sampleDescription.utf8), path: "x.desc") == .evemu)
        #expect(RecordingReader.detectFormat(bytes: Array("# EVEMU 1.3\n# version: 1\n".utf8), path: "x") == .evemu)
        #expect(RecordingReader.detectFormat(bytes: [], path: "x.events") == .evemu)
    }

    @Test(arguments: [
        ("version: 2\ndevices: []\n", 1, "unsupported libinput record version 2: this reads version 1"),
        ("ndevices: 1\ndevices: []\n", 1, "missing 'version:'"),
        ("version: 1\n", 1, "missing 'devices:'"),
        ("version: 1\ndevices: []\n", 2, "'devices' is empty"),
        ("version: 1\ndevices: 3\n", 2, "'devices' should be a list of devices"),
        ("version: 1\ndevices:\n- node: x\n", 3, "the device has no 'evdev:' description"),
        ("version: one\ndevices: []\n", 1, "the version 'one' is not an integer"),
        ("- 1\n- 2\n", 1, "expected a libinput record"),
        ("version: 1\ndevices: [\n", 3, "not valid YAML"),
        ("version: 1\nversion: 1\n", 2, "a mapping has the key 'version' more than once (first on line 1)"),
    ])
    func documentErrors(text: String, line: Int, message: String) {
        let found = error(text)
        #expect(found?.line == line)
        #expect(found?.message.contains(message) == true, "\(String(describing: found))")
    }

    @Test(arguments: [
        ("[  0,      0,   3,  57]", "expected an event [sec, usec, type, code, value], found 4 numbers"),
        ("[  0,      0,   3,  57, x]", "the event value 'x' is not an integer"),
        ("[  0, 1000000,  3,  57, 0]", "the microseconds 1000000 is out of range (0 to 999999)"),
        ("[  0,      0, 65536, 57, 0]", "the event type 65536 is out of range"),
        ("[  0,      0,   3,  57, 2147483648]", "the event value 2147483648 is out of range"),
        ("7", "expected an event [sec, usec, type, code, value], found no list"),
    ])
    func rowErrorsNameTheRowLine(row: String, message: String) throws {
        var lines = Self.valid.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try #require(lines.firstIndex { $0.contains("[  1, 683127,   3,  57,      -1]") })
        lines[index] = lines[index].replacingOccurrences(of: "[  1, 683127,   3,  57,      -1]", with: row)
        let found = error(lines.joined(separator: "\n"))
        #expect(found?.line == index + 1)
        #expect(found?.message.contains(message) == true, "\(String(describing: found))")
    }

    @Test func descriptionErrorsNameTheirLine() throws {
        let text = Self.valid.replacingOccurrences(of: "1: [-5, 767, 1, 2, 12]", with: "1: [-5, 767, 1, 2]")
        let shortRange = error(text)
        #expect(shortRange?.line == 18)
        #expect(shortRange?.message.contains("should be a list of 5 numbers, found 4") == true)
        let badId = error(Self.valid.replacingOccurrences(of: "id: [24, 1, 2, 3]", with: "id: [24, 1, 2, 70000]"))
        #expect(badId?.line == 11)
    }

    @Test func invalidBytesAreAnErrorNotACrash() {
        var bytes = Array("version: 1\ndevices:\n- evdev: {name: \"".utf8)
        bytes += [0x00, 0xff, 0x01]
        bytes += Array("\"}\n".utf8)
        #expect(throws: RecordingError.self) {
            try LibinputRecordReader.parse(bytes: bytes, path: "x.yml")
        }
    }
}

extension LibinputRecordTests {
    /// Aliases could repeat one list of events without end (a few lines of
    /// YAML, billions of events), and libinput never writes them: an anchor
    /// is refused at its line, before anything is repeated.
    @Test func anchorsAndAliasesAreRefusedAtTheirLine() {
        var text = """
        version: 1
        devices:
        - evdev: {name: x, id: [1, 2, 3, 4]}
          rows: &rows [
        """
        text += Array(repeating: "[0, 0, 3, 0, 1]", count: 300).joined(separator: ", ") + "]\n  events:\n"
        text += String(repeating: "  - evdev: *rows\n", count: 300)
        let found = error(text)
        #expect(found?.line == 4)
        #expect(found?.message.contains("YAML anchors and aliases") == true, "\(String(describing: found))")
    }
}
