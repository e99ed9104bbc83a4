import StreamClient
import WireProtocol
import SystemSupport

/// The terminal view of `transitiond subscribe` and `transitiond replay`: a
/// log line for every connection, begin, decision and end, above one line
/// per transition (progress bar, velocity, phase) redrawn in place from the
/// client's `StreamMirror`.
struct TerminalView {
    /// Only these transitions are drawn (all when empty).
    private let names: Set<String>
    private var drawn = 0
    private var dirty = false
    private var lastDraw = -Double.infinity
    /// The daemon's last minute of latencies (`state`'s), shown under the bars.
    var latency: LatencyStatus? {
        didSet { dirty = true }
    }

    init(names: [String]) {
        self.names = Set(names)
    }

    /// The text for one message already applied to `mirror`: log lines for
    /// the notable ones, then the bars (at most 30 redraws a second unless
    /// something was logged).
    mutating func show(_ message: StreamMessage, mirror: StreamMirror, path: String) -> String {
        dirty = true
        guard var line = logLine(message, path: path) else { return redraw(mirror, force: false) }
        if Self.columns(line) > Self.width { line = Self.cut(line) }
        return clear() + line + "\n" + redraw(mirror, force: true)
    }

    /// The bars again if something changed since the last draw (or now, if `force`).
    mutating func tick(_ mirror: StreamMirror, force: Bool = false) -> String {
        dirty || force ? redraw(mirror, force: force) : ""
    }

    /// Moves the cursor up over the bars and clears them (before text is
    /// written elsewhere, e.g. to stderr).
    mutating func clear() -> String {
        guard drawn > 0 else { return "" }
        let text = "\u{1B}[\(drawn)A\u{1B}[J"
        drawn = 0
        dirty = true
        return text
    }

    // MARK: Drawing

    private mutating func redraw(_ mirror: StreamMirror, force: Bool) -> String {
        let now = MonotonicClock.seconds
        guard force || now - lastDraw >= 1.0 / 30 else { return "" }
        lastDraw = now
        dirty = false
        let entries = mirror.entries.filter { names.isEmpty || names.contains($0.name) }
        let nameWidth = min(Self.nameLimit, max(8, entries.map(\.name.count).max() ?? 0))
        var text = clear()
        dirty = false
        for entry in entries {
            text += Self.line(entry, nameWidth: nameWidth) + "\n"
        }
        drawn = entries.count
        if let latency, let line = Self.line(latency) {
            text += line + "\n"
            drawn += 1
        }
        return text
    }

    /// The widest a line may be: a redraw moves up one row per line, so a
    /// line that wrapped on an 80-column terminal would leave copies.
    static let width = 79

    /// "touch→frame p50 18.7 p95 40.6 ms (75) · daemon p50 0.4 p95 1.1 ms", the
    /// last minute's; nil with nothing to say.
    static func line(_ latency: LatencyStatus) -> String? {
        func ms(_ s: LatencyStatus.Summary) -> String { "p50 \(fixed(s.p50 * 1000, 1)) p95 \(fixed(s.p95 * 1000, 1)) ms" }
        var parts: [String] = []
        if let t = latency.touchToFrame { parts.append("touch→frame \(ms(t)) (\(t.samples))") }
        if let d = latency.inputToWrite { parts.append("daemon \(ms(d))") }
        guard !parts.isEmpty else { return nil }
        let line = "last minute: " + parts.joined(separator: " · ")
        return line.count > width ? String(line.prefix(width - 1)) + "…" : line
    }
    static let nameLimit = 16

    /// One transition's line, at most `width` columns: name, bar, percent,
    /// velocity, phase (with its decision, or its finished ✓ and cancelled
    /// ✗ counts while idle).
    /// The columns a line takes (escape sequences take none).
    static func columns(_ line: String) -> Int {
        var count = 0
        var escaping = false
        for c in line {
            if escaping {
                if c.isLetter { escaping = false }
            } else if c == "\u{1B}" {
                escaping = true
            } else {
                count += 1
            }
        }
        return count
    }

    /// A log line cut to `width` columns, its colours reset.
    static func cut(_ line: String) -> String {
        var out = ""
        var count = 0
        var escaping = false
        for c in line {
            if escaping {
                out.append(c)
                if c.isLetter { escaping = false }
                continue
            }
            if c == "\u{1B}" {
                escaping = true
                out.append(c)
                continue
            }
            if count == width - 1 { break }
            out.append(c)
            count += 1
        }
        return out + "…\u{1B}[0m"
    }

    static func line(_ entry: StreamMirror.Entry, nameWidth: Int) -> String {
        let barWidth = 20
        let p = min(max(entry.progress, 0), 1)
        let filled = Int((p * Double(barWidth)).rounded())
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        var phase = entry.phase.rawValue
        if entry.phase == .animating, let d = entry.decision { phase += " → \(d.rawValue)" }
        if entry.phase == .idle, entry.finished + entry.cancelled > 0 {
            phase += " \(entry.finished)✓ \(entry.cancelled)✗"
        }
        if entry.phase == .idle, let rest = entry.rest, let points = entry.snapPoints,
           let k = points.firstIndex(of: rest) {
            phase += " rest \(fixed(rest, 2)) (\(k + 1)/\(points.count))"
        }
        var name = entry.name
        if name.count > nameLimit { name = String(name.prefix(nameLimit - 1)) + "…" }
        let velocity = min(max(entry.velocity, -99.99), 99.99)
        var line = "\(pad(name, nameWidth)) [\(bar)] \(pad(percent(entry.progress), 6, left: true))"
            + " v \(pad(signed(velocity), 6, left: true))/s \(phase)"
        if line.count > width { line = String(line.prefix(width - 1)) + "…" }
        return line
    }

    private func logLine(_ message: StreamMessage, path: String) -> String? {
        switch message {
        case .hello(let hello):
            let version = hello.version.map { "transitiond \($0)" } ?? "transitiond"
            let list = hello.transitions.map(\.name).joined(separator: ", ")
            return "connected to \(path) (\(version)): \(list.isEmpty ? "no transitions" : list)"
        case .error(let code, let text, _, _):
            return "\u{1B}[31mdaemon error\u{1B}[0m \(code): \(text)"
        case .event(let e):
            let time = pad(fixed(e.time, 3) + "s", 10, left: true)
            let name = e.transition
            switch e.kind {
            case .began:
                return "\(time)  \(name)  began at \(percent(e.progress))"
            case .ended:
                let decision: String
                switch e.decision {
                case .finish?: decision = "\u{1B}[32mfinish\u{1B}[0m"
                case .cancel?, nil: decision = "\u{1B}[33mcancel\u{1B}[0m"
                case .snap?: decision = "\u{1B}[32msnap\u{1B}[0m to \(e.target.map { fixed($0, 2) } ?? "?")"
                }
                let reason = e.reason.map { " (\($0.rawValue))" } ?? ""
                return "\(time)  \(name)  \(decision)\(reason) at \(percent(e.progress)), velocity \(signed(e.velocity))/s"
            case .finished:
                return "\(time)  \(name)  finished"
            case .cancelled:
                return "\(time)  \(name)  cancelled" + (e.synthetic ? " (connection lost)" : "")
            case .changed, .animating:
                return nil
            }
        case .state, .pong, .clock, .ok, .dump, .unknown:
            return nil
        }
    }
}
