import Engine
import TestSupport
@testable import TouchFilter

// MARK: Codes

/// The tests' own table of evdev codes (TestSupport's, written out there
/// so that the tests do not just repeat the module's).
typealias Code = EvdevTestCode

// MARK: Devices

enum Panels {
    /// A 10-slot protocol B touchscreen: POSITION_X/Y 0…4095, TRACKING_ID
    /// 0…65535, PRESSURE 0…255, ABS_X/ABS_Y, BTN_TOUCH, BTN_TOOL_FINGER…QUINTTAP,
    /// INPUT_PROP_DIRECT.
    static func tenSlots(slots: Int32 = 10, extraAbs: [UInt16: AbsInfo] = [:],
                         keys: Set<UInt16>? = nil) -> DeviceDescription {
        var abs: [UInt16: AbsInfo] = [
            Code.ABS_X: AbsInfo(minimum: 0, maximum: 4095),
            Code.ABS_Y: AbsInfo(minimum: 0, maximum: 4095),
            Code.ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: slots - 1),
            Code.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 4095),
            Code.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 4095),
            Code.ABS_MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
            Code.ABS_MT_PRESSURE: AbsInfo(minimum: 0, maximum: 255),
        ]
        for (code, info) in extraAbs { abs[code] = info }
        let keyCodes = keys ?? Set([Code.BTN_TOUCH] + Code.toolKeys)
        return DeviceDescription(
            name: "Test Panel", bus: 0x18, vendor: 0x1234, product: 0x5678,
            codes: [Code.EV_SYN: [0, 3], Code.EV_KEY: keyCodes, Code.EV_ABS: Set(abs.keys)],
            properties: [EventCode.INPUT_PROP_DIRECT], absInfo: abs)
    }
}

// MARK: Events in and out

/// An event without its time: what the tests write for input and expect as output.
struct Ev: Equatable, CustomStringConvertible {
    var type: UInt16
    var code: UInt16
    var value: Int32

    static func slot(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_MT_SLOT, value: v) }
    static func id(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_MT_TRACKING_ID, value: v) }
    static func x(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_MT_POSITION_X, value: v) }
    static func y(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_MT_POSITION_Y, value: v) }
    static func pressure(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_MT_PRESSURE, value: v) }
    static func major(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_MT_TOUCH_MAJOR, value: v) }
    static func tool(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_MT_TOOL_TYPE, value: v) }
    static func absX(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_X, value: v) }
    static func absY(_ v: Int32) -> Ev { Ev(type: Code.EV_ABS, code: Code.ABS_Y, value: v) }
    static func key(_ code: UInt16, _ on: Bool) -> Ev { Ev(type: Code.EV_KEY, code: code, value: on ? 1 : 0) }
    static let report = Ev(type: Code.EV_SYN, code: Code.SYN_REPORT, value: 0)
    static let dropped = Ev(type: Code.EV_SYN, code: Code.SYN_DROPPED, value: 0)

    /// A touch going down in `slot`: the source's form.
    static func down(slot: Int32, id: Int32, x: Int32, y: Int32, pressure p: Int32 = 50) -> [Ev] {
        [.slot(slot), .id(id), .x(x), .y(y), .pressure(p)]
    }

    var description: String { "(\(type), 0x\(String(code, radix: 16)), \(value))" }
}

/// The output frame of a touch beginning: the clone's form.
func cloneDown(slot: Int32, id: Int32, x: Int32, y: Int32, pressure p: Int32 = 50) -> [Ev] {
    [.slot(slot), .id(id), .x(x), .y(y), .pressure(p)]
}

/// A filter fed frame by frame, with everything it wrote.
struct FilterHarness {
    var filter: TouchFilterMachine
    var written: [TouchFilterMachine.Output] = []

    init(device: DeviceDescription = Panels.tenSlots(), hold: Double = 0.08, rules: FilterRules = .none,
         geometry: ScreenGeometry = .identity) {
        filter = try! TouchFilterMachine(device: device, hold: hold, rules: rules, geometry: geometry)
    }

    /// Feeds `events` and a SYN_REPORT at `t`, decides with `verdicts`;
    /// returns what this frame wrote.
    @discardableResult
    mutating func frame(_ t: Double, _ events: [Ev], _ verdicts: [Int: TouchFilterMachine.Verdict] = [:]) -> [TouchFilterMachine.Output] {
        let micros = Int64((t * 1e6).rounded())
        var completed = false
        for e in events + [.report] {
            completed = filter.feed(InputEvent(time: micros, type: e.type, code: e.code, value: e.value)) || completed
        }
        precondition(completed)
        var out: [TouchFilterMachine.Output] = []
        filter.decide(at: t, verdicts: verdicts, into: &out)
        written += out
        return out
    }

    @discardableResult
    mutating func advance(_ t: Double) -> [TouchFilterMachine.Output] {
        var out: [TouchFilterMachine.Output] = []
        filter.advance(to: t, into: &out)
        written += out
        return out
    }

    /// Advances to each deadline up to `t`, then to `t`.
    @discardableResult
    mutating func run(until t: Double) -> [TouchFilterMachine.Output] {
        var out: [TouchFilterMachine.Output] = []
        while let next = filter.nextDeadline, next <= t {
            out += advance(next)
        }
        out += advance(t)
        return out
    }

    @discardableResult
    mutating func lost(_ t: Double) -> [TouchFilterMachine.Output] {
        var out: [TouchFilterMachine.Output] = []
        filter.sourceLost(at: t, into: &out)
        written += out
        return out
    }
}

/// Outputs from frames: each frame is its events plus SYN_REPORT, all due at `due`.
func frames(_ list: (due: Double, events: [Ev])...) -> [TouchFilterMachine.Output] {
    list.flatMap { f in
        (f.events + [.report]).map { TouchFilterMachine.Output(due: f.due, type: $0.type, code: $0.code, value: $0.value) }
    }
}

extension Array where Element == TouchFilterMachine.Output {
    /// The events without their due times.
    var events: [Ev] { map { Ev(type: $0.type, code: $0.code, value: $0.value) } }
    /// The due time of each frame.
    var frameDues: [Double] { filter { $0.type == Code.EV_SYN && $0.code == Code.SYN_REPORT }.map(\.due) }
}
