// What the live hot path pays per input event for the flight recorder, the
// touch filter and each of the filter's `[filter]` rules, measured side by
// side: the 1M-event recording (bench/make-large-recording.py) through the
// same steps the device host takes for each event — the frame assembler and
// the engine — then with the flight recorder's ring append, with the touch
// filter's feed and decide, and with the filter under each rule; and the
// live input machine itself with and without `stuck_after` (a deadline it
// keeps per batch, not the filter's). In alternating rounds (Passes.swift);
// prints the medians in ns/event and the ratios to the bare path and to
// each variant's own baseline.
//
//     swift run -c release bench-live-path [RECORDING] [ROUNDS]
//       (default bench/out/large-1M.events, made by bench/make-large-recording.py; 9 rounds)

#if canImport(Glibc)
import Glibc
#endif
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

// The rules' variants run on the recording's panel declared with
// ABS_MT_TOUCH_MAJOR (16 units/mm), so that `palm_mm` has an axis to read;
// the recording never reports one, so no touch is a palm: what is measured
// is the check. Their baseline, "filter: no rules", has the same panel.
var palmAxes = device
palmAxes.codes[EventCode.EV_ABS, default: []].insert(EventCode.ABS_MT_TOUCH_MAJOR)
palmAxes.absInfo[EventCode.ABS_MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: 4095, resolution: 16)
// `transform` does nothing on a panel whose geometry is the identity; with
// a rotation the engine sees another screen too, hence a rotated baseline.
let rotated = ScreenGeometry(rotation: .quarter)
let allRules = FilterRules(maxContacts: 1, block: Set(BlockedGesture.allCases), ghostTouches: .quarantine,
                           palmMillimetres: 30, transform: true)

/// What is measured, in this order in every round. A rule's variant names
/// the variant it is put against; a new one is one more line.
let variants: [Variant] = [
    Variant(name: "assembler + engine", path: .inline(recorder: false, filter: nil), device: device),
    Variant(name: "+ flight recorder", path: .inline(recorder: true, filter: nil), device: device),
    Variant(name: "+ touch filter", path: .inline(recorder: false, filter: FilterRules.none), device: device),
    Variant(name: "filter: no rules", path: .inline(recorder: false, filter: FilterRules.none), device: palmAxes),
    Variant(name: "filter: max_contacts = 1", path: .inline(recorder: false, filter: FilterRules(maxContacts: 1)),
            device: palmAxes, against: "filter: no rules"),
    Variant(name: "filter: palm_mm = 30", path: .inline(recorder: false, filter: FilterRules(palmMillimetres: 30)),
            device: palmAxes, against: "filter: no rules"),
    Variant(name: "filter: ghost_touches", path: .inline(recorder: false, filter: FilterRules(ghostTouches: .quarantine)),
            device: palmAxes, against: "filter: no rules"),
    // The recording's 3-finger swipes are what it recognises.
    Variant(name: "filter: block all gestures", path: .inline(recorder: false, filter: FilterRules(block: Set(BlockedGesture.allCases))),
            device: palmAxes, against: "filter: no rules"),
    Variant(name: "filter: no rules, rotation 90", path: .inline(recorder: false, filter: FilterRules.none),
            device: palmAxes, geometry: rotated, against: "filter: no rules"),
    Variant(name: "filter: transform, rotation 90", path: .inline(recorder: false, filter: FilterRules(transform: true)),
            device: palmAxes, geometry: rotated, against: "filter: no rules, rotation 90"),
    Variant(name: "filter: all 5, rotation 90", path: .inline(recorder: false, filter: allRules),
            device: palmAxes, geometry: rotated, against: "filter: no rules, rotation 90"),
    Variant(name: "machine: no rules", path: .machine(FilterRules.none), device: palmAxes),
    Variant(name: "machine: stuck_after = 600", path: .machine(FilterRules(stuckAfter: 600)),
            device: palmAxes, against: "machine: no rules"),
]

var times: [[Double]] = Array(repeating: [], count: variants.count)
var sums = Array(repeating: 0, count: variants.count)
for variant in variants { _ = pass(variant, events) }   // warm up
for _ in 0..<rounds {
    for (k, variant) in variants.enumerated() {
        let (seconds, sum) = pass(variant, events)
        times[k].append(seconds)
        sums[k] = sum
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func rounded(_ value: Double, _ per: Double) -> Double { (value * per).rounded() / per }
let medians = times.map(median)
let width = variants.map(\.name.count).max() ?? 0
print("bench-live-path: \(events.count) events of \(path), \(rounds) alternating rounds, medians")
for (k, variant) in variants.enumerated() {
    let perEvent = rounded(medians[k] / Double(events.count) * 1e9, 10)
    let name = variant.name + String(repeating: " ", count: width - variant.name.count)
    var line = "  \(name)  \(perEvent) ns/event  (\(rounded(medians[k] / medians[0], 1000))× bare"
    if let against = variant.against, let base = variants.firstIndex(where: { $0.name == against }) {
        line += ", \(rounded(medians[k] / medians[base], 1000))× \(against)"
    }
    print(line + ")  [checksum \(sums[k])]")
}
