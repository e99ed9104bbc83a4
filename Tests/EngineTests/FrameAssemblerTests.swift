import Testing
@testable import Engine

private func ev(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> InputEvent {
    InputEvent(time: t, type: type, code: code, value: value)
}
private let SYN = EventCode.EV_SYN, ABS = EventCode.EV_ABS, KEY = EventCode.EV_KEY

private func mtDevice(slots: Int32 = 4) -> DeviceDescription {
    DeviceDescription(name: "test", absInfo: [
        EventCode.ABS_X: AbsInfo(minimum: 0, maximum: 1000),
        EventCode.ABS_Y: AbsInfo(minimum: 0, maximum: 500),
        EventCode.ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: slots - 1),
        EventCode.ABS_MT_POSITION_X: AbsInfo(minimum: 100, maximum: 1100),
        EventCode.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 500),
        EventCode.ABS_MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
    ])
}

/// Feeds events and returns every completed frame.
private func frames(_ device: DeviceDescription, _ events: [InputEvent]) throws -> [TouchFrame] {
    var a = try TouchFrameAssembler(device: device)
    var out: [TouchFrame] = []
    for e in events where a.feed(e) { out.append(a.frame) }
    return out
}

@Suite("Frames from evdev")
struct FrameAssemblerTests {
    @Test func protocolBNormalisesWithTheMTAxis() throws {
        let f = try frames(mtDevice(), [
            ev(1000, ABS, EventCode.ABS_MT_SLOT, 0),
            ev(1000, ABS, EventCode.ABS_MT_TRACKING_ID, 7),
            ev(1000, ABS, EventCode.ABS_MT_POSITION_X, 350),
            ev(1000, ABS, EventCode.ABS_MT_POSITION_Y, 100),
            ev(1000, SYN, EventCode.SYN_REPORT, 0),
        ])
        #expect(f.count == 1)
        #expect(f[0].time == 0.001)
        #expect(f[0].contacts.count == 1)
        #expect(near(f[0].contacts[0].x, 0.25))   // (350 − 100) ÷ 1000
        #expect(near(f[0].contacts[0].y, 0.2))
    }

    @Test func aSlotKeepsItsXAcrossANewTrackingID() throws {
        let f = try frames(mtDevice(), [
            ev(0, ABS, EventCode.ABS_MT_TRACKING_ID, 1),
            ev(0, ABS, EventCode.ABS_MT_POSITION_X, 600),
            ev(0, ABS, EventCode.ABS_MT_POSITION_Y, 100),
            ev(0, SYN, EventCode.SYN_REPORT, 0),
            ev(10, ABS, EventCode.ABS_MT_TRACKING_ID, -1),
            ev(10, SYN, EventCode.SYN_REPORT, 0),
            // A new touch reports only Y: X is the slot's last one.
            ev(20, ABS, EventCode.ABS_MT_TRACKING_ID, 2),
            ev(20, ABS, EventCode.ABS_MT_POSITION_Y, 400),
            ev(20, SYN, EventCode.SYN_REPORT, 0),
        ])
        #expect(f.map(\.contacts.count) == [1, 0, 1])
        #expect(near(f[2].contacts[0].x, 0.5))
        #expect(near(f[2].contacts[0].y, 0.8))
        #expect(f[2].contacts[0].id != f[0].contacts[0].id)
        #expect(near(f[2].contacts[0].downY, 0.8))
    }

    @Test func touchDownPositionIsTheFirstFrames() throws {
        let f = try frames(mtDevice(), [
            ev(0, ABS, EventCode.ABS_MT_TRACKING_ID, 1),
            ev(0, ABS, EventCode.ABS_MT_POSITION_X, 110),
            ev(0, SYN, EventCode.SYN_REPORT, 0),
            ev(10, ABS, EventCode.ABS_MT_POSITION_X, 700),
            ev(10, ABS, EventCode.ABS_MT_SLOT, 1),
            ev(10, ABS, EventCode.ABS_MT_TRACKING_ID, 2),
            ev(10, ABS, EventCode.ABS_MT_POSITION_X, 1100),
            ev(10, SYN, EventCode.SYN_REPORT, 0),
        ])
        #expect(f[1].contacts.count == 2)
        #expect(near(f[1].contacts[0].downX, 0.01))
        #expect(near(f[1].contacts[0].x, 0.6))
        #expect(near(f[1].contacts[1].downX, 1.0))
    }

    @Test func protocolAPackets() throws {
        let device = DeviceDescription(name: "A", absInfo: [
            EventCode.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 100),
            EventCode.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 100),
        ])
        let f = try frames(device, [
            ev(0, ABS, EventCode.ABS_MT_POSITION_X, 10), ev(0, ABS, EventCode.ABS_MT_POSITION_Y, 20),
            ev(0, SYN, EventCode.SYN_MT_REPORT, 0),
            ev(0, ABS, EventCode.ABS_MT_POSITION_X, 30), ev(0, ABS, EventCode.ABS_MT_POSITION_Y, 40),
            ev(0, SYN, EventCode.SYN_MT_REPORT, 0),
            ev(0, SYN, EventCode.SYN_REPORT, 0),
            ev(5, ABS, EventCode.ABS_MT_POSITION_X, 50), ev(5, ABS, EventCode.ABS_MT_POSITION_Y, 20),
            ev(5, SYN, EventCode.SYN_MT_REPORT, 0),
            ev(5, SYN, EventCode.SYN_REPORT, 0),
            ev(9, SYN, EventCode.SYN_MT_REPORT, 0),
            ev(9, SYN, EventCode.SYN_REPORT, 0),
        ])
        #expect(f.map(\.contacts.count) == [2, 1, 0])
        #expect(near(f[0].contacts[1].x, 0.3))
        // The first packet continues the first contact.
        #expect(f[1].contacts[0].id == f[0].contacts[0].id)
        #expect(near(f[1].contacts[0].downX, 0.1))
    }

    @Test func singleTouch() throws {
        let device = DeviceDescription(name: "ST", absInfo: [
            EventCode.ABS_X: AbsInfo(minimum: 0, maximum: 200),
            EventCode.ABS_Y: AbsInfo(minimum: 0, maximum: 100),
        ])
        let f = try frames(device, [
            ev(0, KEY, EventCode.BTN_TOUCH, 1), ev(0, ABS, EventCode.ABS_X, 50), ev(0, ABS, EventCode.ABS_Y, 50),
            ev(0, SYN, EventCode.SYN_REPORT, 0),
            ev(8, ABS, EventCode.ABS_X, 100), ev(8, SYN, EventCode.SYN_REPORT, 0),
            ev(16, KEY, EventCode.BTN_TOUCH, 0), ev(16, SYN, EventCode.SYN_REPORT, 0),
        ])
        #expect(f.map(\.contacts.count) == [1, 1, 0])
        #expect(near(f[1].contacts[0].x, 0.5))
        #expect(near(f[1].contacts[0].downX, 0.25))
    }

    @Test func synDroppedDiscardsUntilTheNextReport() throws {
        let f = try frames(mtDevice(), [
            ev(0, ABS, EventCode.ABS_MT_TRACKING_ID, 1), ev(0, ABS, EventCode.ABS_MT_POSITION_X, 600),
            ev(0, SYN, EventCode.SYN_REPORT, 0),
            ev(5, SYN, EventCode.SYN_DROPPED, 0),
            ev(5, ABS, EventCode.ABS_MT_POSITION_X, 1100),
            ev(5, SYN, EventCode.SYN_REPORT, 0),
            ev(9, SYN, EventCode.SYN_REPORT, 0),
        ])
        #expect(f.count == 2)
        #expect(near(f[1].contacts[0].x, 0.5))
    }

    @Test func degenerateAbsinfoIsAnError() {
        var d = mtDevice()
        d.absInfo[EventCode.ABS_MT_POSITION_X] = AbsInfo(minimum: 100, maximum: 100)
        #expect(throws: DeviceSetupError.self) { try TouchFrameAssembler(device: d) }
        let none = DeviceDescription(name: "keys")
        #expect(throws: DeviceSetupError.self) { try TouchFrameAssembler(device: none) }
    }
}
