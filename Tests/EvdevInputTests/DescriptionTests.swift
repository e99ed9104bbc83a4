import CLibevdev
import Recordings
import Testing
import TestSupport
import Engine
@testable import EvdevInput

/// libevdev devices built in memory (`libevdev_new` + enable calls: no
/// kernel) → `DeviceDescription`, and back.
@Suite("libevdev ↔ DeviceDescription")
struct DescriptionTests {
    // MARK: From libevdev

    @Test func describesAnInMemoryDevice() {
        let handle = libevdev_new()!
        defer { libevdev_free(handle) }
        libevdev_set_name(handle, "Panel ü")
        libevdev_set_id_bustype(handle, 0x18)
        libevdev_set_id_vendor(handle, 0x1234)
        libevdev_set_id_product(handle, 0xabcd)
        libevdev_set_id_version(handle, 7)
        libevdev_enable_property(handle, UInt32(EventCode.INPUT_PROP_DIRECT))
        libevdev_enable_event_code(handle, 1, 0x14a, nil)
        var x = input_absinfo(value: 5, minimum: -10, maximum: 1000, fuzz: 1, flat: 2, resolution: 12)
        var y = input_absinfo(value: 0, minimum: 0, maximum: 600, fuzz: 0, flat: 0, resolution: 12)
        libevdev_enable_event_code(handle, 3, 0x35, &x)
        libevdev_enable_event_code(handle, 3, 0x36, &y)

        let d = EvdevDescription.describe(handle)
        #expect(d.name == "Panel ü")
        #expect(d.bus == 0x18 && d.vendor == 0x1234 && d.product == 0xabcd && d.version == 7)
        #expect(d.properties == [EventCode.INPUT_PROP_DIRECT])
        #expect(d.codes[1] == [0x14a])
        #expect(d.codes[3] == [0x35, 0x36])
        // EV_SYN's codes are the supported types, as evemu's `B: 00` line.
        #expect(d.codes[0] == [0, 1, 3])
        #expect(d.absInfo[0x35] == AbsInfo(value: 5, minimum: -10, maximum: 1000, fuzz: 1, flat: 2, resolution: 12))
        #expect(d.absInfo[0x36]?.maximum == 600)
        #expect(d.isTouchscreen)
    }

    @Test func roundTripsThroughLibevdev() {
        for original in [SampleDevices.touchscreen(), SampleDevices.singleTouch, SampleDevices.keyboard] {
            let handle = EvdevDescription.makeDevice(original)
            defer { libevdev_free(handle) }
            #expect(EvdevDescription.describe(handle) == original)
        }
    }

    @Test func nameOverride() {
        let handle = EvdevDescription.makeDevice(SampleDevices.touchscreen(), name: "replayed")
        defer { libevdev_free(handle) }
        #expect(EvdevDescription.describe(handle).name == "replayed")
    }

    /// A recording's header → libevdev (what uinput-replay creates) → the
    /// same description, so a recording of the uinput device has the same header.
    @Test(arguments: ProjectRecordings.all)
    func recordingHeadersRoundTrip(path: String) throws {
        let description = try #require(try RecordingReader.read(path: path).description)
        let handle = EvdevDescription.makeDevice(description)
        defer { libevdev_free(handle) }
        #expect(EvdevDescription.describe(handle) == description)
    }

    // MARK: Touchscreen detection

    @Test func touchscreenDetection() {
        let mt = TouchscreenCheck(SampleDevices.touchscreen())
        #expect(mt.isTouchscreen && mt.slots == 10)
        #expect(mt.reason == "direct touch, multitouch (10 slots)")

        let pad = TouchscreenCheck(SampleDevices.touchscreen(properties: [0]))   // INPUT_PROP_POINTER
        #expect(!pad.isTouchscreen)
        #expect(pad.reason.hasPrefix("not direct-touch (no INPUT_PROP_DIRECT)"))

        let single = TouchscreenCheck(SampleDevices.singleTouch)
        #expect(single.isTouchscreen && single.slots == nil)
        #expect(single.reason == "direct touch, single touch (ABS_X/ABS_Y)")

        let keyboard = TouchscreenCheck(SampleDevices.keyboard)
        #expect(!keyboard.isTouchscreen)
        #expect(keyboard.reason.hasPrefix("no position axes"))

        var protocolA = SampleDevices.touchscreen()
        protocolA.absInfo[0x2f] = nil
        protocolA.codes[3]?.remove(0x2f)
        #expect(TouchscreenCheck(protocolA).reason == "direct touch, multitouch (protocol A)")
    }

    @Test func engineRejectsDegenerateAxes() {
        var broken = SampleDevices.touchscreen()
        broken.absInfo[0x35] = AbsInfo(minimum: 0, maximum: 0)
        #expect(broken.isTouchscreen)
        #expect(engineRejection(of: broken)?.contains("ABS_MT_POSITION_X") == true)
        #expect(engineRejection(of: SampleDevices.touchscreen()) == nil)
    }
}

/// The udev database entry of a device, read without libudev: the
/// calibration matrix a udev rule gives a panel.
@Suite struct UdevPropertiesTests {
    @Test func theCalibrationMatrixIsReadFromTheDatabaseEntry() throws {
        let entry = try temporaryFile("c13:67", "I:123456\nE:ID_INPUT=1\nE:ID_INPUT_TOUCHSCREEN=1\nE:LIBINPUT_CALIBRATION_MATRIX=0 -1 1 1 0 0\nG:seat\n")
        #expect(UdevProperties.value("LIBINPUT_CALIBRATION_MATRIX", inEntry: entry) == "0 -1 1 1 0 0")
        #expect(UdevProperties.value("ID_INPUT_TOUCHSCREEN", inEntry: entry) == "1")
        #expect(UdevProperties.value("ID_INPUT_TOUCH", inEntry: entry) == nil, "a prefix of another key is not it")
        #expect(UdevProperties.value("X", inEntry: entry + ".missing") == nil)
        #expect(UdevProperties.calibration(forDeviceAt: "/nonexistent") == nil)
        #expect(UdevProperties.calibration(forDeviceAt: entry) == nil, "not a character device")
    }
}
