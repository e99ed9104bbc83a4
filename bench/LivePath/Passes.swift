#if canImport(Glibc)
import Glibc
#endif
import Inputs
import Replay
import TouchFilter
import Engine

/// One way through the live path, measured side by side with the others
/// (`variants` in main.swift lists them).
struct Variant {
    enum Path {
        /// The device host's steps for each event, inline: the frame
        /// assembler and the engine, with the flight recorder's ring and/or
        /// filter mode's touch filter with these rules (nil: no filter).
        case inline(recorder: Bool, filter: FilterRules?)
        /// The live input machine itself (`LiveInputMachine`, as `replay
        /// --copy` drives it: a frame per batch, timers on time), for what
        /// it does per batch rather than per event (`stuck_after`'s
        /// deadline). Its figures carry that driver's own work (it keeps
        /// every event of the copy), so only its ratios mean something.
        case machine(FilterRules)
    }

    let name: String
    let path: Path
    var device: DeviceDescription
    /// The panel's geometry (`[input] rotation`…): the assembler's and the filter's.
    var geometry: ScreenGeometry = .identity
    /// The variant (by name) its cost is put against; nil: the bare path only.
    var against: String? = nil
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// One pass of `variant` over `events`; returns seconds and a checksum (so nothing is optimised away).
func pass(_ variant: Variant, _ events: [InputEvent]) -> (Double, Int) {
    switch variant.path {
    case .inline(let recorder, let rules):
        return inlinePass(variant, events, recorder: recorder, rules: rules)
    case .machine(let rules):
        let input = ReplayInput(path: "bench", device: variant.device, events: events)
        let start = now()
        let copy = try! ReplayCopy.make(of: input, configuration: .standard, hold: 0.08, rules: rules,
                                        geometry: variant.geometry)
        return (now() - start, copy.events.count)
    }
}

/// The host's steps, as `LiveInputMachine.events` takes them for a frame:
/// the filter hides a predicted ghost tap from the engine, the engine takes
/// the frame, the filter hears its verdicts and writes, its notices are taken.
private func inlinePass(_ variant: Variant, _ events: [InputEvent], recorder: Bool, rules: FilterRules?) -> (Double, Int) {
    var assembler = try! TouchFrameAssembler(device: variant.device, geometry: variant.geometry,
                                             palmMillimetres: rules?.palmMillimetres)
    var engine = TransitionEngine(configuration: .standard)
    var ring = FlightRecorder(seconds: 30)
    var touchFilter = try! rules.map { try TouchFilterMachine(device: variant.device, rules: $0, geometry: variant.geometry) }
    var out: [TransitionEvent] = []
    out.reserveCapacity(1024)
    var written: [TouchFilterMachine.Output] = []
    written.reserveCapacity(1024)
    var verdicts: [Int: TouchFilterMachine.Verdict] = [:]
    var hidden: [Int] = []
    var checksum = 0
    let start = now()
    // The host takes events in batches (one read of the device); so does the ring.
    for (k, event) in events.enumerated() {
        if recorder && k % 64 == 0 { ring.append(contentsOf: events[k..<min(k + 64, events.count)]) }
        let filterFrame = touchFilter?.feed(event) ?? false
        guard assembler.feed(event) else { continue }
        guard filterFrame, var f = touchFilter else {
            engine.process(assembler.frame, into: &out)
            checksum &+= out.count
            out.removeAll(keepingCapacity: true)
            continue
        }
        touchFilter = nil
        hidden.removeAll(keepingCapacity: true)
        if f.watchesGhosts {
            for slot in 0..<f.slotCount where f.isGhostSuspect(inSlot: slot, at: assembler.frame.time) {
                if let id = assembler.contactID(inSlot: slot) { hidden.append(id) }
            }
        }
        if hidden.isEmpty {
            engine.process(assembler.frame, into: &out)
        } else {
            var seen = assembler.frame
            seen.contacts.removeAll { hidden.contains($0.id) }
            engine.process(seen, into: &out)
        }
        verdicts.removeAll(keepingCapacity: true)
        for slot in f.activeSlots {
            guard let id = assembler.contactID(inSlot: slot) else { continue }
            if engine.isClaimed(source: 0, id: id) {
                verdicts[slot] = .claimed
            } else if let c = assembler.frame.contacts.first(where: { $0.id == id }),
                      engine.mayStartGesture(source: 0, x: c.downX, y: c.downY) {
                verdicts[slot] = .startArea
            }
        }
        f.decide(at: assembler.frame.time, verdicts: verdicts, into: &written)
        f.advance(to: assembler.frame.time, into: &written)
        if !f.notices.isEmpty { checksum &+= f.takeNotices().count }
        checksum &+= written.count &+ out.count
        written.removeAll(keepingCapacity: true)
        out.removeAll(keepingCapacity: true)
        touchFilter = f
    }
    return (now() - start, checksum &+ ring.count)
}
