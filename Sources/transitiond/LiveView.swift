import TransitionEngine
import EventStream
import Replay

/// The terminal view of a replay: one line per transition with a progress
/// bar, the velocity and the phase, redrawn in place; a log line above it
/// for every begin, decision and end.
struct LiveView {
    private var mirror: TransitionMirror
    private let names: [String]
    private let nameWidth: Int
    private var drawn = 0
    private var lastDraw = -Double.infinity
    private let clock = MonotonicClock()

    init(configuration: EngineConfiguration) {
        names = configuration.transitions.map(\.name)
        nameWidth = max(8, names.map(\.count).max() ?? 0)
        mirror = TransitionMirror(names: names)
    }

    /// Applies events; prints log lines for the notable ones and redraws the
    /// bars (at most 30 times a second unless `force` or something was logged).
    mutating func show(_ events: [TransitionEvent], force: Bool = false, to out: inout StandardOutput) {
        var text = ""
        var logged = false
        for e in events {
            mirror.apply(e)
            if let line = logLine(e) {
                if !logged { text += clearBlock(); logged = true }
                text += line + "\n"
            }
        }
        let now = clock.now()
        if logged || force || now - lastDraw >= 1.0 / 30 {
            if !logged { text += clearBlock() }
            text += bars()
            lastDraw = now
        }
        out.write(text)
    }

    private func logLine(_ e: TransitionEvent) -> String? {
        let name = pad(names[e.transition], nameWidth)
        let time = pad(fixed(e.time, 3) + "s", 10, left: true)
        switch e.kind {
        case .began:
            return "\(time)  \(name)  began at \(percent(e.progress))"
        case .ended:
            let decision = e.decision == .finish ? "\u{1B}[32mfinish\u{1B}[0m" : "\u{1B}[33mcancel\u{1B}[0m"
            return "\(time)  \(name)  \(decision) (\(e.reason?.rawValue ?? "")) at \(percent(e.progress)), velocity \(signed(e.velocity))/s"
        case .finished:
            return "\(time)  \(name)  finished"
        case .cancelled:
            return "\(time)  \(name)  cancelled"
        case .changed, .animating:
            return nil
        }
    }

    private mutating func clearBlock() -> String {
        guard drawn > 0 else { return "" }
        let text = "\u{1B}[\(drawn)A\u{1B}[J"
        drawn = 0
        return text
    }

    private mutating func bars() -> String {
        var text = ""
        for entry in mirror.entries {
            let width = 24
            let p = min(max(entry.progress, 0), 1)
            let filled = Int((p * Double(width)).rounded())
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            var phase = entry.phase.rawValue
            if entry.phase == .animating, let d = entry.decision { phase += " → \(d.rawValue)" }
            if entry.phase == .idle, entry.finished + entry.cancelled > 0 {
                phase += " (finished \(entry.finished), cancelled \(entry.cancelled))"
            }
            text += "\(pad(entry.name, nameWidth))  [\(bar)] \(pad(percent(entry.progress), 7, left: true))  v \(pad(signed(entry.velocity), 7, left: true))/s  \(phase)\n"
        }
        drawn = mirror.entries.count
        return text
    }
}

// MARK: - Formatting without Foundation

/// `x` with `decimals` digits after the point.
func fixed(_ x: Double, _ decimals: Int) -> String {
    guard x.isFinite else { return "\(x)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(x) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(scaled - Double(whole) * scale)
    var digits = String(fraction)
    while digits.count < decimals { digits = "0" + digits }
    let sign = x < 0 && scaled != 0 ? "-" : ""
    return decimals > 0 ? "\(sign)\(whole).\(digits)" : "\(sign)\(whole)"
}

func percent(_ p: Double) -> String { fixed(p * 100, 1) + "%" }

func signed(_ v: Double) -> String { (v >= 0 ? "+" : "") + fixed(v, 2) }

func pad(_ s: String, _ width: Int, left: Bool = false) -> String {
    let gap = max(0, width - s.count)
    let spaces = String(repeating: " ", count: gap)
    return left ? spaces + s : s + spaces
}
