import Replay
import Testing
import Engine

/// A replay applies the palm rule as the live daemon does: `MT_TOOL_PALM`
/// always, `[filter] palm_mm` when it is given.
@Suite("Replay: palms")
struct PalmReplayTests {
    /// An edge drag on a panel whose ABS_MT_TOUCH_MAJOR has 10 units per mm.
    func input(major: Int32, tool: Int32) -> ReplayInput {
        let device = DeviceDescription(name: "palm panel", absInfo: [
            EventCode.ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: 3),
            EventCode.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1000),
            EventCode.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1000),
            EventCode.ABS_MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
            EventCode.ABS_MT_TOUCH_MAJOR: AbsInfo(minimum: 0, maximum: 1000, resolution: 10),
            EventCode.ABS_MT_TOOL_TYPE: AbsInfo(minimum: 0, maximum: 2),
        ])
        var events: [InputEvent] = []
        func add(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(time: t, type: type, code: code, value: value))
        }
        add(0, 3, EventCode.ABS_MT_TRACKING_ID, 1)
        add(0, 3, EventCode.ABS_MT_POSITION_Y, 500)
        add(0, 3, EventCode.ABS_MT_TOUCH_MAJOR, major)
        add(0, 3, EventCode.ABS_MT_TOOL_TYPE, tool)
        for k in 0...8 {
            add(Int64(k) * 25_000, 3, EventCode.ABS_MT_POSITION_X, 10 + Int32(k) * 100)
            add(Int64(k) * 25_000, 0, EventCode.SYN_REPORT, 0)
        }
        add(250_000, 3, EventCode.ABS_MT_TRACKING_ID, -1)
        add(250_000, 0, EventCode.SYN_REPORT, 0)
        return ReplayInput(path: "palm.evemu", device: device, events: events)
    }

    func began(_ input: ReplayInput, palmMillimetres: Double?) throws -> Bool {
        var session = try ReplaySession(configuration: .standard, inputs: [input], palmMillimetres: palmMillimetres)
        var all: [TransitionEvent] = []
        session.run { all += $0 }
        return all.contains { $0.kind == .began }
    }

    @Test func palmMillimetresFromTheConfigApply() throws {
        #expect(try began(input(major: 300, tool: 0), palmMillimetres: nil))
        #expect(try !began(input(major: 300, tool: 0), palmMillimetres: 20))
        #expect(try began(input(major: 150, tool: 0), palmMillimetres: 20))
    }

    @Test func theToolTypeAlwaysApplies() throws {
        #expect(try !began(input(major: 0, tool: 2), palmMillimetres: nil))
        #expect(try began(input(major: 0, tool: 0), palmMillimetres: nil))
    }
}
