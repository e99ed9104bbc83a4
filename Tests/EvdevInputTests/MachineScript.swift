import Testing
import TouchFilter
import Engine
@testable import EvdevInput
@testable import Inputs

/// Drives a `LiveInputMachine` with a script of inputs and renders the
/// actions as short lines ("log-info attached …", "write 0 ×12",
/// "tick 1.25"), so each test reads as "inputs → what the executor is to
/// do". It plays the executor's part where the machine waits for an answer
/// (a copy is made at once, unless told otherwise) and keeps what was
/// emitted and written. No devices, no loop, no waits: time is what the
/// script says.
struct MachineScript {
    var machine: LiveInputMachine
    var out: LiveInputMachine.Output
    /// Every action so far, rendered; the last input's.
    var log: [String] = []
    var last: [String] = []
    /// Every engine event emitted or handed back, in order.
    var events: [TransitionEvent] = []
    /// What was written to each copy, by its id.
    var written: [Int: [TouchFilterMachine.Output]] = [:]
    /// The timer's deadline, if one is set.
    var tickAt: Double?
    /// The description each copy was asked for with, by its id.
    var created: [Int: DeviceDescription] = [:]
    /// Whether a copy asked for is made (with node `/dev/input/event9N`, N its id).
    var copiesFail = false

    init(_ configuration: EngineConfiguration = .standard, filterHold: Double? = nil, records: Bool = false,
         traces: Bool = false) {
        machine = LiveInputMachine(configuration: configuration, traces: traces)
        out = machine.makeOutput()
        machine.settings.filterHold = filterHold
        machine.settings.records = records
    }

    /// Runs one input and what it asks for; a copy's creation is answered
    /// at once, and the answer's actions follow.
    mutating func run(_ input: (inout LiveInputMachine, inout LiveInputMachine.Output) -> Void) {
        input(&machine, &out)
        out.takeTrace()
        var i = 0
        while i < out.actions.count {
            let action = out.actions[i]
            i += 1
            switch action {
            case .emit:
                events += out.events
                out.events.removeAll()
            case .write(let id, let range):
                written[id, default: []] += out.copyEvents[range]
            case .scheduleTick(let t):
                tickAt = t
            case .cancelTick:
                tickAt = nil
            case .createCopy(let id, let description):
                created[id] = description
                if copiesFail {
                    machine.copyFailed(id, error: "no uinput", into: &out)
                } else {
                    machine.copyCreated(id, node: "/dev/input/event9\(id)", into: &out)
                }
            case .log, .statusChanged, .stopInput, .startRecording, .record, .removeCopy, .keepMisfire:
                break
            }
        }
        last = out.actions.map(Self.render)
        log += last
        out.actions.removeAll()
        out.copyEvents.removeAll()
    }

    // MARK: Inputs

    mutating func attach(_ path: String = "/dev/input/event4", _ description: DeviceDescription = SampleDevices.touchscreen(),
                         grabbed: Bool = false, source: Int = 0, aliases: [String] = [],
                         geometry: ScreenGeometry = .identity) {
        let device = AttachedDevice(path: path, description: description, grabbed: grabbed, source: source, aliases: aliases)
        run { $0.attached(device, geometry: geometry, into: &$1) }
    }

    /// One batch of a panel's events (in reads of `read` events).
    mutating func batch(_ input: [InputEvent], source: Int = 0, read: Int = .max) {
        var rest = input[...]
        var all: [String] = []
        repeat {
            let chunk = Array(rest.prefix(read))
            rest = rest.dropFirst(chunk.count)
            run { $0.events(chunk, source: source, into: &$1) }
            all += last
        } while !rest.isEmpty
        run { $0.batchEnded(into: &$1) }
        last = all + last
    }

    mutating func lose(_ path: String = "/dev/input/event4", source: Int = 0, at now: Double) {
        run { $0.lost(path: path, reason: "the device was removed", source: source, at: now, into: &$1) }
    }

    /// The timer fires on time, until none is set or `until` is passed.
    mutating func settle(until end: Double = .infinity) {
        while let t = tickAt, t <= end {
            run { $0.tick(due: t, now: t, into: &$1) }
        }
    }

    mutating func perform(_ command: TransitionEngine.Command, transition: Int = 0, at now: Double) -> TransitionEngine.CommandOutcome {
        var outcome = TransitionEngine.CommandOutcome.done
        var answer: [TransitionEvent] = []
        run { outcome = $0.perform(command, transition: transition, at: now, events: &answer, into: &$1) }
        events += answer
        return outcome
    }

    // MARK: Rendering

    /// Log lines of the last input (level and text).
    var logged: [String] { last.filter { $0.hasPrefix("log-") } }

    static func render(_ action: LiveInputMachine.Action) -> String {
        switch action {
        case .log(let level, let line): return "log-\(level) \(line)"
        case .statusChanged(let text): return "status \(text)"
        case .emit(let inputTime): return inputTime == nil ? "emit" : "emit input"
        case .scheduleTick(let t): return "tick \(t)"
        case .cancelTick: return "no tick"
        case .stopInput: return "stop-input"
        case .startRecording(let device): return "record-start \(device.source) \(device.path)"
        case .record(let events, let source): return "record \(source) ×\(events.count)"
        case .createCopy(let id, let description): return "create-copy \(id) \(description.name)"
        case .removeCopy(let id): return "remove-copy \(id)"
        case .write(let id, let range): return "write \(id) ×\(range.count)"
        case .keepMisfire(let misfire): return "keep-misfire \(misfire.kind.rawValue) \(misfire.transition) \(misfire.detail)"
        }
    }
}

// MARK: Touches

/// One finger from (x0, y) to (x1, y) over `seconds` at 100 Hz, lifted
/// 10 ms after its last move at `end` (µs).
func drag(x0: Int32, x1: Int32, y: Int32 = 1100, seconds: Double = 0.4, trackingID: Int32 = 7, end: Int64) -> [InputEvent] {
    let n = Int(seconds * 100)
    let start = end - Int64(seconds * 1e6)
    var events: [InputEvent] = []
    func add(_ t: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: t, type: type, code: code, value: value))
    }
    for k in 0...n {
        let t = start + Int64(k) * 10_000
        if k == 0 {
            add(t, 3, EventCode.ABS_MT_SLOT, 0)
            add(t, 3, EventCode.ABS_MT_TRACKING_ID, trackingID)
            add(t, 1, EventCode.BTN_TOUCH, 1)
        }
        add(t, 3, EventCode.ABS_MT_POSITION_X, x0 + Int32(Double(x1 - x0) * Double(k) / Double(n)))
        add(t, 3, EventCode.ABS_MT_POSITION_Y, y)
        add(t, 0, EventCode.SYN_REPORT, 0)
    }
    let t = end + 10_000
    add(t, 3, EventCode.ABS_MT_TRACKING_ID, -1)
    add(t, 1, EventCode.BTN_TOUCH, 0)
    add(t, 0, EventCode.SYN_REPORT, 0)
    return events
}

extension Array where Element == TouchFilterMachine.Output {
    /// Tracking ids begun, and touches ended.
    var begun: [Int32] { filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value >= 0 }.map(\.value) }
    var ended: Int { filter { $0.code == EventCode.ABS_MT_TRACKING_ID && $0.value < 0 }.count }
}

extension MachineScript {
    /// The events as they come live: one batch per frame, and the ticks
    /// due before each frame in between.
    mutating func play(_ input: [InputEvent], source: Int = 0) {
        var frame: [InputEvent] = []
        for event in input {
            frame.append(event)
            guard event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT else { continue }
            settle(until: Double(event.time) / 1e6)
            batch(frame, source: source)
            frame.removeAll()
        }
        if !frame.isEmpty { batch(frame, source: source) }
    }
}
