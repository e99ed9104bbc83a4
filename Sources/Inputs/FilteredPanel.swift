import TouchFilter
import Engine

/// One panel in filter mode: its touch filter and the copy it writes to.
/// The machine feeds it every event the panel sends and, after each frame,
/// what the engine says of each touch; what the UI may have, when it is
/// due, goes into the output's copy events with a `write` action for the
/// executor (no I/O here).
struct FilteredPanel: Sendable {
    private(set) var filter: TouchFilterMachine
    /// The copy it writes to.
    let copy: LiveInputMachine.CopyID
    /// Reused for each frame's verdicts (no allocation per frame).
    private var verdicts: [Int: TouchFilterMachine.Verdict] = [:]

    /// `geometry`: the panel's, as its assembler has it, so that the
    /// filter's rules see the screen the engine sees.
    init(description: DeviceDescription, hold: Double, rules: FilterRules, geometry: ScreenGeometry,
         copy: LiveInputMachine.CopyID) throws(TouchFilterError) {
        filter = try TouchFilterMachine(device: description, hold: hold, rules: rules, geometry: geometry)
        self.copy = copy
    }

    /// Feeds one event; true when it completed a frame (then `decide`).
    @inline(__always)
    mutating func feed(_ event: InputEvent) -> Bool {
        filter.feed(event)
    }

    /// After a frame the engine has processed: each active slot's verdict
    /// (`verdict(slot)`), then the frames due now are written.
    mutating func decide(at time: Double, into out: inout LiveInputMachine.Output,
                         verdict: (Int) -> TouchFilterMachine.Verdict) {
        verdicts.removeAll(keepingCapacity: true)
        for slot in filter.activeSlots { verdicts[slot] = verdict(slot) }
        let start = out.copyEvents.count
        filter.decide(at: time, verdicts: verdicts, into: &out.copyEvents)
        write(from: start, into: &out)
    }

    /// Lets held touches go and writes delayed frames due by `time`.
    mutating func advance(to time: Double, into out: inout LiveInputMachine.Output) {
        let start = out.copyEvents.count
        filter.advance(to: time, into: &out.copyEvents)
        write(from: start, into: &out)
    }

    var nextDeadline: Double? { filter.nextDeadline }

    /// The touches down are stuck: each ends on the copy (`slotStuck`).
    mutating func contactsStuck(at time: Double, into out: inout LiveInputMachine.Output) {
        let start = out.copyEvents.count
        for slot in filter.activeSlots { filter.slotStuck(slot, at: time, into: &out.copyEvents) }
        write(from: start, into: &out)
    }

    /// The panel is gone (or the daemon stops): every forwarded touch ends.
    mutating func sourceLost(at time: Double, into out: inout LiveInputMachine.Output) {
        let start = out.copyEvents.count
        filter.sourceLost(at: time, into: &out.copyEvents)
        write(from: start, into: &out)
    }

    /// What the filter added since `start`, as one write (none when it added nothing).
    private func write(from start: Int, into out: inout LiveInputMachine.Output) {
        guard out.copyEvents.count > start else { return }
        out.actions.append(.write(copy, start..<out.copyEvents.count))
    }
}
