// What the live hot path pays per input event for the flight recorder and
// the touch filter, measured side by side: the 1M-event recording
// (bench/make-large-recording.py) through the same steps the device host
// takes for each event — the frame assembler and the engine — then the same
// with the flight recorder's ring append, then with the touch filter's
// feed and decide, in alternating rounds. Prints the medians in ns/event
// and the ratios to the bare path.
//
//     swift run -c release bench-live-path [RECORDING] [ROUNDS]
//       (default bench/out/large-1M.events, made by bench/make-large-recording.py; 9 rounds)

#if canImport(Glibc)
import Glibc
#endif
import Inputs
import Recordings
import TouchFilter
import Engine

let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "bench/out/large-1M.events"
let rounds = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 9) : 9

let recording: Recording
do {
    recording = try RecordingReader.read(path: path)
} catch {
    print("bench-live-path: \(error) (make it with: python3 bench/make-large-recording.py \(path))")
    exit(66)
}
let device = recording.description!
let events = recording.events

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// One pass of the live path; returns seconds and a checksum (so nothing is optimised away).
func pass(recorder: Bool, filter: Bool) -> (Double, Int) {
    var assembler = try! TouchFrameAssembler(device: device)
    var engine = TransitionEngine(configuration: .standard)
    var ring = FlightRecorder(seconds: 30)
    var touchFilter = filter ? try! TouchFilterMachine(device: device) : nil
    var out: [TransitionEvent] = []
    out.reserveCapacity(1024)
    var written: [TouchFilterMachine.Output] = []
    written.reserveCapacity(1024)
    var verdicts: [Int: TouchFilterMachine.Verdict] = [:]
    var checksum = 0
    let start = now()
    // The host takes events in batches (one read of the device); so does the ring.
    for (k, event) in events.enumerated() {
        if recorder && k % 64 == 0 { ring.append(contentsOf: events[k..<min(k + 64, events.count)]) }
        let filterFrame = touchFilter?.feed(event) ?? false
        guard assembler.feed(event) else { continue }
        engine.process(assembler.frame, into: &out)
        if filterFrame, var f = touchFilter {
            touchFilter = nil
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
            checksum &+= written.count
            written.removeAll(keepingCapacity: true)
            touchFilter = f
        }
        checksum &+= out.count
        out.removeAll(keepingCapacity: true)
    }
    return (now() - start, checksum &+ ring.count)
}

let variants: [(String, Bool, Bool)] = [("assembler + engine", false, false),
                                        ("+ flight recorder", true, false),
                                        ("+ touch filter", false, true)]
var times: [[Double]] = Array(repeating: [], count: variants.count)
var sums = Array(repeating: 0, count: variants.count)
_ = pass(recorder: true, filter: true)   // warm up
for _ in 0..<rounds {
    for (k, variant) in variants.enumerated() {
        let (seconds, sum) = pass(recorder: variant.1, filter: variant.2)
        times[k].append(seconds)
        sums[k] = sum
    }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let base = median(times[0])
print("bench-live-path: \(events.count) events of \(path), \(rounds) alternating rounds, medians")
for (k, variant) in variants.enumerated() {
    let m = median(times[k])
    let perEvent = m / Double(events.count) * 1e9
    let ratio = m / base
    let name = variant.0 + String(repeating: " ", count: max(0, 20 - variant.0.count))
    let nanoseconds = (perEvent * 10).rounded() / 10
    let times = (ratio * 1000).rounded() / 1000
    print("  \(name) \(nanoseconds) ns/event  (\(times)×)  [checksum \(sums[k])]")
}
