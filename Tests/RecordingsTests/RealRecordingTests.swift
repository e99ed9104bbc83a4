@testable import Recordings
import Testing
import Engine

/// The third-party recordings in ../shared/recordings: every file parses,
/// and concrete facts about them come out right.
@Suite(.enabled(if: Fixtures.available, Fixtures.skipReason))
struct RealRecordingTests {
    @Test func everyFileParses() throws {
        let evemuFiles = Fixtures.files(in: "evemu-devices", extensions: [".desc", ".events"])
        let libinputFiles = Fixtures.files(in: "libinput-record", extensions: [".yml"])
        #expect(evemuFiles.count == 11)
        #expect(libinputFiles.count == 2)
        for path in evemuFiles + libinputFiles {
            let parsed = try RecordingReader.parse(bytes: Fixtures.bytes(path), path: path)
            if path.hasSuffix(".desc") {
                #expect(parsed.description != nil, "\(path)")
                #expect(parsed.events.isEmpty, "\(path)")
            } else {
                #expect(!parsed.events.isEmpty, "\(path)")
            }
        }
    }

    @Test(arguments: [
        ("Wacom ISDv4 E6 Finger.double-top-swipe.events", "Wacom ISDv4 E6 Finger.desc"),
        ("N-Trig MultiTouch.2-fingers-touch-release.events", "N-Trig MultiTouch.desc"),
        ("QUANTA OpticalTouchScreen.touch-hover.events", "QUANTA OpticalTouchScreen.desc"),
    ])
    func eventsOnlyFilesReadWithTheirDescription(events: String, description: String) throws {
        let recording = try RecordingReader.read(path: Fixtures.evemu(events),
                                                 descriptionPath: Fixtures.evemu(description))
        let separate = try RecordingReader.read(path: Fixtures.evemu(description))
        #expect(recording.description == separate.description)
        #expect(recording.path == Fixtures.evemu(events))
    }

    @Test func wacomDescription() throws {
        let description = try #require(try RecordingReader.read(path: Fixtures.evemu("Wacom ISDv4 E6 Finger.desc")).description)
        #expect(description.name == "Wacom ISDv4 E6 Finger")
        #expect(description.bus == 0x03 && description.vendor == 0x56a)
        #expect(description.product == 0xe6 && description.version == 0x139)
        #expect(description.absInfo[EventCode.ABS_MT_POSITION_X]?.maximum == 2776)
        #expect(description.absInfo[EventCode.ABS_MT_POSITION_Y]?.maximum == 1569)
        #expect(description.absInfo[EventCode.ABS_X] == AbsInfo(minimum: 0, maximum: 2776, fuzz: 4))
        #expect(description.absInfo[EventCode.ABS_MT_SLOT]?.maximum == 1)  // 2 slots
        #expect(description.properties == [EventCode.INPUT_PROP_DIRECT])
        #expect(description.codes[EventCode.EV_KEY] == [EventCode.BTN_TOUCH])
        #expect(description.codes[EventCode.EV_ABS] == [0x00, 0x01, 0x2f, 0x35, 0x36, 0x37, 0x39])
        #expect(description.codes[EventCode.EV_SYN] == [0, 1, 3])
        #expect(description.absInfo.count == 7)
    }

    @Test func wacomEvents() throws {
        let recording = try RecordingReader.read(
            path: Fixtures.evemu("Wacom ISDv4 E6 Finger.double-top-swipe.events"),
            descriptionPath: Fixtures.evemu("Wacom ISDv4 E6 Finger.desc"))
        #expect(recording.events.count == 1144)
        #expect(recording.events.first == InputEvent(time: 1_330_495_970_996_848, type: 3, code: 0x39, value: 4))
        #expect(recording.events.last == InputEvent(time: 1_330_495_972_908_845, type: 0, code: 0, value: 0))
        #expect(frames(recording.events).count == 145)
    }

    @Test func nTrigIsFormatOneZeroProtocolA() throws {
        let description = try #require(try RecordingReader.read(path: Fixtures.evemu("N-Trig MultiTouch.desc")).description)
        #expect(description.properties.isEmpty)
        #expect(description.absInfo[EventCode.ABS_MT_SLOT] == nil)
        #expect(!description.hasAxis(EventCode.ABS_MT_SLOT))
        #expect(!description.hasAxis(EventCode.ABS_MT_TRACKING_ID))
        // 5-field A: lines: resolution is 0.
        #expect(description.absInfo[EventCode.ABS_X] == AbsInfo(minimum: 0, maximum: 9600))
        #expect(description.absInfo[0x28] == AbsInfo(minimum: 0, maximum: 255))
        #expect(description.absInfo.count == 8)
        #expect(description.codes[0x04] == [0x04])  // MSC_SCAN
        #expect(description.bus == 0x03 && description.vendor == 0x1b96 && description.product == 0x0001)

        let events = try RecordingReader.read(path: Fixtures.evemu("N-Trig MultiTouch.2-fingers-touch-release.events"),
                                              descriptionPath: Fixtures.evemu("N-Trig MultiTouch.desc")).events
        #expect(events.count == 2203)
        #expect(events.filter { $0.type == EventCode.EV_SYN && $0.code == EventCode.SYN_MT_REPORT }.count == 267)
        #expect(events.first?.time == 1_357_751_031_716_015)
        #expect(events.last?.time == 1_357_751_034_709_837)
    }

    @Test func quantaIsFormatOneZeroWithSlots() throws {
        let description = try #require(try RecordingReader.read(path: Fixtures.evemu("QUANTA OpticalTouchScreen.desc")).description)
        #expect(description.absInfo[EventCode.ABS_X]?.maximum == 1920)
        #expect(description.absInfo[EventCode.ABS_Y]?.maximum == 1080)
        #expect(description.absInfo[EventCode.ABS_MT_SLOT]?.maximum == 9)
        #expect(description.properties == [EventCode.INPUT_PROP_DIRECT])
    }

    @Test func atmelSelfContainedRecording() throws {
        let recording = try RecordingReader.read(path: Fixtures.evemu("Atmel maXTouch Touchscreen.4-finger-drag-down.events"))
        let description = try #require(recording.description)
        #expect(description.name == "Atmel maXTouch Touchscreen")
        #expect(description.absInfo[EventCode.ABS_MT_SLOT]?.maximum == 9)  // 10 slots
        #expect(description.absInfo[EventCode.ABS_X]?.maximum == 799)
        #expect(description.absInfo[EventCode.ABS_Y]?.maximum == 479)
        #expect(recording.events.count == 309)
        #expect(recording.events.first == InputEvent(time: 1, type: 3, code: 0x2f, value: 0))
        #expect(recording.events.last == InputEvent(time: 566_590, type: 0, code: 0, value: 0))
        // `-001` is -1: four fingers lift.
        let lifts = recording.events.filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value == -1 }
        #expect(lifts.count == 4)
        #expect(frames(recording.events).count == 31)
        // The self-contained description equals the separate one.
        let separate = try RecordingReader.read(path: Fixtures.evemu("Atmel maXTouch Touchscreen.desc")).description
        #expect(separate == description)
    }

    @Test func atmelFastTaps() throws {
        let recording = try RecordingReader.read(path: Fixtures.evemu("Atmel maXTouch Touchscreen.1-finger-fast-taps.events"))
        #expect(recording.events.count == 84)
        #expect(recording.events.last?.time == 1_934_008)
        #expect(recording.events.filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value == -1 }.count == 9)
    }

    // MARK: libinput record

    @Test func ep0430LibinputRecord() throws {
        let recording = try RecordingReader.read(path: Fixtures.libinput("EP0430M09.1-finger-drag-up-down.yml"))
        let description = try #require(recording.description)
        #expect(description.name == "EP0430M09")
        #expect(description.bus == 24)
        #expect(description.properties == [EventCode.INPUT_PROP_DIRECT])
        #expect(description.codes[EventCode.EV_ABS] == [0, 1, 47, 53, 54, 57])
        #expect(recording.events.count == 735)
        let reports = recording.events.filter { $0.type == EventCode.EV_SYN && $0.code == EventCode.SYN_REPORT }
        #expect(reports.count == 183)
        #expect(recording.events.last == InputEvent(time: 1_683_127, type: 0, code: 0, value: 0))

        let evemu = try RecordingReader.read(path: Fixtures.evemu("EP0430M09.desc"))
        #expect(evemu.description?.absInfo == description.absInfo)
    }

    @Test func atmelLibinputRecord() throws {
        let recording = try RecordingReader.read(path: Fixtures.libinput("Atmel maXTouch Touchscreen.4-finger-drag-down.yml"))
        #expect(frames(recording.events).count == 31)
        let evemu = try RecordingReader.read(path: Fixtures.evemu("Atmel maXTouch Touchscreen.desc"))
        #expect(evemu.description?.absInfo == recording.description?.absInfo)
    }

    /// The same gesture recorded by evemu and, replayed, by libinput record:
    /// the frames carry the same (type, code, value)s, except what the
    /// kernel drops as unchanged (the first ABS_MT_SLOT 0).
    @Test(arguments: ["EP0430M09.1-finger-drag-up-down", "Atmel maXTouch Touchscreen.4-finger-drag-down"])
    func evemuAndLibinputRecordAgree(name: String) throws {
        let evemu = try RecordingReader.read(path: Fixtures.evemu(name + ".events"))
        let libinput = try RecordingReader.read(path: Fixtures.libinput(name + ".yml"))
        func withoutInitialSlotZero(_ frames: [[InputEvent]]) -> [[InputEvent]] {
            guard var first = frames.first else { return frames }
            if first.first?.code == EventCode.ABS_MT_SLOT && first.first?.value == 0 { first.removeFirst() }
            return [first] + frames.dropFirst()
        }
        let evemuFrames = withoutInitialSlotZero(frames(evemu.events))
        let libinputFrames = frames(libinput.events)
        #expect(evemuFrames.count == libinputFrames.count)
        #expect(Array(evemuFrames.prefix(10)) == Array(libinputFrames.prefix(10)))
        #expect(evemuFrames == libinputFrames)
    }
}
