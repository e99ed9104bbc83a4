import StreamClient
import Clocks

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

    init(names: [String]) {
        self.names = Set(names)
    }

    /// The text for one message already applied to `mirror`: log lines for
    /// the notable ones, then the bars (at most 30 redraws a second unless
    /// something was logged).
    mutating func show(_ message: StreamMessage, mirror: StreamMirror, path: String) -> String {
        dirty = true
        guard let line = logLine(message, path: path) else { return redraw(mirror, force: false) }
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
        let nameWidth = max(8, entries.map(\.name.count).max() ?? 0)
        var text = clear()
        dirty = false
        for entry in entries {
            let width = 24
            let p = min(max(entry.progress, 0), 1)
            let filled = Int((p * Double(width)).rounded())
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            var phase = entry.phase.rawValue
            if entry.phase == .animating, let d = entry.decision { phase += " → \(d.rawValue)" }
            if entry.phase == .idle, entry.finished + entry.cancelled > 0 {
                phase += " (finished \(entry.finished), cancelled \(entry.cancelled))"
            }
            text += "\(pad(entry.name, nameWidth))  [\(bar)] \(pad(percent(entry.progress), 7, left: true))"
                + "  v \(pad(signed(entry.velocity), 7, left: true))/s  \(phase)\n"
        }
        drawn = entries.count
        return text
    }

    private func logLine(_ message: StreamMessage, path: String) -> String? {
        switch message {
        case .hello(let hello):
            let version = hello.version.map { "transitiond \($0)" } ?? "transitiond"
            let list = hello.transitions.map(\.name).joined(separator: ", ")
            return "connected to \(path) (\(version)): \(list.isEmpty ? "no transitions" : list)"
        case .error(let code, let text, _):
            return "\u{1B}[31mdaemon error\u{1B}[0m \(code): \(text)"
        case .event(let e):
            let time = pad(fixed(e.time, 3) + "s", 10, left: true)
            let name = e.transition
            switch e.kind {
            case .began:
                return "\(time)  \(name)  began at \(percent(e.progress))"
            case .ended:
                let decision = e.decision == .finish ? "\u{1B}[32mfinish\u{1B}[0m" : "\u{1B}[33mcancel\u{1B}[0m"
                let reason = e.reason.map { " (\($0.rawValue))" } ?? ""
                return "\(time)  \(name)  \(decision)\(reason) at \(percent(e.progress)), velocity \(signed(e.velocity))/s"
            case .finished:
                return "\(time)  \(name)  finished"
            case .cancelled:
                return "\(time)  \(name)  cancelled" + (e.synthetic ? " (connection lost)" : "")
            case .changed, .animating:
                return nil
            }
        case .state, .pong, .ok, .unknown:
            return nil
        }
    }
}
