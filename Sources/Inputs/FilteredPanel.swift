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

    /// The UI replaced the regions (`filter_regions`).
    mutating func replaceRegions(_ regions: [FilterRegion]) { filter.replaceRegions(regions) }

    /// The frame just completed as the engine is to see it (`ghost_touches`):
    /// without the touches held as predicted ghost taps (`isGhostSuspect`),
    /// so a quarantined tap is never the engine's either. nil when that is
    /// the assembler's frame as it is (with the rule off, always).
    func engineFrame(_ frames: TouchFrameAssembler) -> TouchFrame? {
        guard filter.watchesGhosts else { return nil }
        let time = frames.frame.time
        var hidden: [Int] = []
        for slot in 0..<filter.slotCount where filter.isGhostSuspect(inSlot: slot, at: time) {
            if let id = frames.contactID(inSlot: slot) { hidden.append(id) }
        }
        guard !hidden.isEmpty else { return nil }
        var frame = frames.frame
        frame.contacts.removeAll { hidden.contains($0.id) }
        return frame
    }

    /// The filter has news of ghost touches or withheld ones (`news`); false on almost every frame.
    var hasNews: Bool { !filter.notices.isEmpty }

    /// What the filter's rules did since the last call: each ghost pattern
    /// confirmed is logged once, with its period and place (`device`: the
    /// panel's path); returns the touches quarantined and those withheld
    /// (`max_contacts`, palms, `block`), for the counts. Each is also a
    /// line of `replay --copy --explain` (`time`: the frame's) when asked.
    mutating func news(device: String, at time: Double, into out: inout LiveInputMachine.Output)
        -> (quarantined: Int, withheld: [TouchFilterMachine.WithheldReason: Int]) {
        var quarantined = 0
        var withheld: [TouchFilterMachine.WithheldReason: Int] = [:]
        for notice in filter.takeNotices() {
            switch notice {
            case .ghostPattern(let pattern):
                let text = "a still tap every \(Self.rounded(pattern.period, 100)) s at (\(Self.rounded(pattern.x, 10)), \(Self.rounded(pattern.y, 10))) mm of the panel, \(pattern.occurrences) so far; quarantined from now on (ghost_touches)"
                out.explain(time, "copy: ghost touches: " + text)
                out.log(.notice, "filter: ghost touches on \(device): " + text)
            case .ghostQuarantined(_, let x, let y):
                quarantined += 1
                out.explain(time, "copy: a ghost tap at (\(Self.rounded(x, 10)), \(Self.rounded(y, 10))) mm quarantined: never written (ghost_touches)")
            case .touchWithheld(let reason):
                withheld[reason, default: 0] += 1
                out.explain(time, "copy: a touch withheld: " + Self.why(reason))
            }
        }
        return (quarantined, withheld)
    }

    /// Why a touch was withheld, for `--explain`.
    static func why(_ reason: TouchFilterMachine.WithheldReason) -> String {
        switch reason {
        case .maxContacts: return "one touch too many for max_contacts"
        case .palm: return "a palm (MT_TOOL_PALM, or wider than palm_mm)"
        case .block: return "a finger of a pinch or swipe that block keeps from the UI"
        }
    }

    /// `value` rounded to 1/`per` (no Foundation for a format).
    static func rounded(_ value: Double, _ per: Double) -> Double { (value * per).rounded() / per }

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
