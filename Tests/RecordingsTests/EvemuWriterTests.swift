@testable import Recordings
import Testing
import Engine

/// The evemu writer: evemu's layout, and write → read gives back the same
/// description and the events with times relative to the first.
struct EvemuWriterTests {
    func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    func rebased(_ events: [InputEvent]) -> [InputEvent] {
        guard let first = events.first?.time else { return [] }
        return events.map { InputEvent(time: $0.time - first, type: $0.type, code: $0.code, value: $0.value) }
    }

    @Test func layoutIsEvemus() throws {
        let description = try #require(try parseEvemu(sampleDescription).description)
        let events = [
            InputEvent(time: 1_330_495_970_996_848, type: 3, code: 0x39, value: -1),
            InputEvent(time: 1_330_495_970_996_848, type: 3, code: 0x35, value: 12345),
            InputEvent(time: 1_330_495_971_010_000, type: 0, code: 2, value: 0),
            InputEvent(time: 1_330_495_971_010_000, type: 0, code: 0, value: 0),
        ]
        let lines = text(EvemuWriter.write(description: description, events: events))
            .split(separator: "\n").map(String.init)
        #expect(lines.first == "# EVEMU 1.3")
        #expect(lines.contains("# Input device name: \"Sample Touch\""))
        #expect(lines.contains("# Input device ID: bus 0x18 vendor 0x4f3 product 0x01 version 0x100"))
        #expect(lines.contains("# Size in mm: 106x63"))
        #expect(lines.contains("#   Event type 3 (EV_ABS)"))
        #expect(lines.contains("#     Event code 53 (ABS_MT_POSITION_X)"))
        #expect(lines.contains("#       Max       1279"))
        #expect(lines.contains("#       Resolution  12"))
        #expect(lines.contains("#   Property  type 1 (INPUT_PROP_DIRECT)"))
        #expect(lines.contains("N: Sample Touch"))
        #expect(lines.contains("I: 0018 04f3 0001 0100"))
        #expect(lines.contains("P: 02 00 00 00 00 00 00 00"))
        #expect(lines.filter { $0.hasPrefix("B: 01 ") }.count == 12)
        #expect(lines.filter { $0.hasPrefix("B: 15 ") }.count == 2)
        #expect(lines.contains("B: 01 00 04 00 00 00 00 00 00"))
        #expect(lines.contains("A: 35 0 1279 0 0 12"))
        let eventLines = lines.filter { $0.hasPrefix("E: ") }
        #expect(eventLines == [
            "E: 0.000000 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1",
            "E: 0.000000 0003 0035 12345\t# EV_ABS / ABS_MT_POSITION_X    12345",
            "E: 0.013152 0000 0002 0000\t# ++++++++++++ SYN_MT_REPORT (0) ++++++++++",
            "E: 0.013152 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +13ms",
        ])
    }

    /// evemu-record's own files: the written description lines (N: to A:)
    /// are the same as the original's, byte for byte.
    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason),
          arguments: ["Atmel maXTouch Touchscreen.desc", "EP0430M09.desc", "Wacom ISDv4 E6 Finger.desc"])
    func descriptionLinesMatchEvemuRecord(name: String) throws {
        let original = try Fixtures.bytes(Fixtures.evemu(name))
        let description = try #require(try EvemuParser.parse(bytes: original, path: name).description)
        func descriptionLines(_ bytes: [UInt8]) -> [String] {
            text(bytes).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        }
        #expect(descriptionLines(EvemuWriter.write(description: description, events: [])) == descriptionLines(original))
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason),
          arguments: [
              ("Wacom ISDv4 E6 Finger.double-top-swipe.events", "Wacom ISDv4 E6 Finger.desc"),
              ("N-Trig MultiTouch.2-fingers-touch-release.events", "N-Trig MultiTouch.desc"),
              ("QUANTA OpticalTouchScreen.touch-hover.events", "QUANTA OpticalTouchScreen.desc"),
              ("Atmel maXTouch Touchscreen.4-finger-drag-down.events", "Atmel maXTouch Touchscreen.desc"),
              ("EP0430M09.1-finger-drag-up-down.events", "EP0430M09.desc"),
          ])
    func realRecordingsRoundTrip(events: String, description: String) throws {
        let recording = try RecordingReader.read(path: Fixtures.evemu(events), descriptionPath: Fixtures.evemu(description))
        let deviceDescription = try #require(recording.description)
        let written = EvemuWriter.write(description: deviceDescription, events: recording.events)
        let reread = try EvemuParser.parse(bytes: written, path: "written.events")
        #expect(reread.description == deviceDescription)
        #expect(reread.events == rebased(recording.events))
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason))
    func libinputRecordRoundTrips() throws {
        let recording = try RecordingReader.read(path: Fixtures.libinput("EP0430M09.1-finger-drag-up-down.yml"))
        let description = try #require(recording.description)
        let reread = try EvemuParser.parse(bytes: EvemuWriter.write(description: description, events: recording.events),
                                           path: "written.events")
        #expect(reread.description == description)
        #expect(reread.events == rebased(recording.events))
    }

    @Test func unusualDescriptionsRoundTrip() throws {
        let description = DeviceDescription(
            name: "Écran tactile ✋ # with a hash", bus: 0xffff, vendor: 0, product: 0x1234, version: 1,
            codes: [0: [0, 2, 63], 1: [0x14a, 0x2ff], 3: [0, 0x3f], 0x16: [5], 0x17: [1, 200], 0x1f: [0xffff]],
            properties: [0, 1, 63, 64, 200],
            absInfo: [0: AbsInfo(minimum: -100, maximum: -1, fuzz: 7, flat: 8, resolution: 9),
                      0x3f: AbsInfo(minimum: Int32.min, maximum: Int32.max)])
        let events = [InputEvent(time: -50, type: 0xffff, code: 0xabcd, value: Int32.min),
                      InputEvent(time: 1_000_000_000, type: 3, code: 0, value: Int32.max)]
        let reread = try EvemuParser.parse(bytes: EvemuWriter.write(description: description, events: events), path: "x")
        #expect(reread.description == description)
        #expect(reread.events == rebased(events))
    }

    @Test func namesTheFormatCannotCarry() throws {
        let description = DeviceDescription(name: "two\nlines")
        let reread = try EvemuParser.parse(bytes: EvemuWriter.write(description: description, events: []), path: "x")
        #expect(reread.description?.name == "two lines")
        let unnamed = try EvemuParser.parse(bytes: EvemuWriter.write(description: DeviceDescription(name: ""), events: []),
                                            path: "x")
        #expect(unnamed.description?.name == "unnamed")
    }

    @Test func eventsEarlierThanTheFirstAreWrittenAtZero() throws {
        var bytes: [UInt8] = []
        var writer = EvemuEventWriter()
        writer.write(InputEvent(time: 5_000_000, type: 0, code: 0, value: 0), into: &bytes)
        writer.write(InputEvent(time: 4_000_000, type: 0, code: 0, value: 0), into: &bytes)
        writer.write(InputEvent(time: 7_500_001, type: 0, code: 0, value: 0), into: &bytes)
        let events = try EvemuParser.parse(bytes: bytes, path: "x").events
        #expect(events.map(\.time) == [0, 0, 2_500_001])
    }

    /// With an origin, times keep their place on that clock: the first
    /// event written is not moved to 0 (`replay --copy`'s held touches).
    @Test func anOriginKeepsTheTimesWhereTheyAre() throws {
        let events = [InputEvent(time: 80_001, type: 0, code: 0, value: 0),
                      InputEvent(time: 2_500_000, type: 0, code: 0, value: 0)]
        let description = DeviceDescription(name: "panel")
        let kept = try EvemuParser.parse(bytes: EvemuWriter.write(description: description, events: events, origin: 0),
                                         path: "x")
        #expect(kept.events.map(\.time) == [80_001, 2_500_000])
        let moved = try EvemuParser.parse(bytes: EvemuWriter.write(description: description, events: events), path: "x")
        #expect(moved.events.map(\.time) == [0, 2_419_999])
        let later = try EvemuParser.parse(bytes: EvemuWriter.write(description: description, events: events,
                                                                   origin: 100_000), path: "x")
        #expect(later.events.map(\.time) == [0, 2_400_000])
    }
}
