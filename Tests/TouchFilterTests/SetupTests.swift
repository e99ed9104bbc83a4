import Testing
import Engine
@testable import TouchFilter

@Suite("Which devices filter mode takes")
struct SetupTests {
    @Test func aPanelWithoutSlotsIsRefusedWithAClearMessage() {
        let single = DeviceDescription(name: "Old Panel", codes: [Code.EV_ABS: [Code.ABS_X, Code.ABS_Y]],
                                       absInfo: [Code.ABS_X: AbsInfo(minimum: 0, maximum: 4095),
                                                 Code.ABS_Y: AbsInfo(minimum: 0, maximum: 4095)])
        #expect(throws: TouchFilterError("filter mode needs a multitouch protocol B panel (ABS_MT_SLOT): \"Old Panel\" has none")) {
            _ = try TouchFilterMachine(device: single)
        }
        // Protocol A: MT positions without slots.
        var abs = Panels.tenSlots().absInfo
        abs[Code.ABS_MT_SLOT] = nil
        let protocolA = DeviceDescription(name: "A Panel", codes: [Code.EV_ABS: Set(abs.keys)], absInfo: abs)
        #expect(throws: TouchFilterError("filter mode needs a multitouch protocol B panel (ABS_MT_SLOT): \"A Panel\" has none")) {
            _ = try TouchFilterMachine(device: protocolA)
        }
    }

    @Test func slotRangesAndTrackingIDsAreChecked() throws {
        let tooMany = Panels.tenSlots(slots: 300)
        #expect(throws: TouchFilterError("filter mode needs ABS_MT_SLOT to range 0…N with N < 256: \"Test Panel\" has 0…299")) {
            _ = try TouchFilterMachine(device: tooMany)
        }
        var abs = Panels.tenSlots().absInfo
        abs[Code.ABS_MT_TRACKING_ID] = nil
        let noIDs = DeviceDescription(name: "No IDs", codes: [Code.EV_ABS: Set(abs.keys)], absInfo: abs)
        #expect(throws: TouchFilterError.self) { _ = try TouchFilterMachine(device: noIDs) }
        #expect(try TouchFilterMachine(device: Panels.tenSlots(slots: 1)).slotCount == 1)
        #expect(try TouchFilterMachine(device: Panels.tenSlots(slots: 256)).slotCount == 256)
        #expect(try TouchFilterMachine(device: Panels.tenSlots()).slotCount == 10)
    }

    @Test(arguments: [-0.01, Double.nan, Double.infinity])
    func aHoldMustBeAFiniteNumberOfSeconds(_ hold: Double) {
        #expect(throws: TouchFilterError.self) { _ = try TouchFilterMachine(device: Panels.tenSlots(), hold: hold) }
    }

    @Test func theErrorReadsAsItsMessage() {
        let error = TouchFilterError("something")
        #expect("\(error)" == "something")
    }
}
