import EventStream
import WireProtocol
import Engine

/// Turns the engine's explanations into lines for people (`replay
/// --explain`): each touch-down, then every transition that looked at it
/// and why it passed over it or dropped its candidate; each decision with
/// what made it.
///
/// ```
/// 0.000  touch-down at (0.01, 0.50), panel 0
/// 0.000    back: candidate
/// 0.000    forward: passed over: touch-down at x = 0.01, outside the right edge margin 0.05
/// 0.000    close: not considered: it takes 2 fingers; 1 was down
/// 1.305  back: finish by progress 0.66 at or past the threshold 0.5 (released at 0.234/s, peak 0.66)
/// ```
struct ExplanationText {
    let configuration: EngineConfiguration

    /// The name of transition `i` (an earlier config's keeps its name).
    private func name(_ i: Int) -> String {
        i >= 0 && i < configuration.transitions.count ? configuration.transitions[i].name : "transition \(i)"
    }

    /// The line for one explanation: its time, then its text (indented
    /// under its touch-down for what transitions made of it).
    func line(_ explanation: Explanation) -> String {
        let indent: String
        switch explanation {
        case .touchDown, .decided: indent = "  "
        case .candidate, .rejected, .ignored: indent = "    "
        }
        return Self.seconds(Self.time(of: explanation)) + indent + text(explanation)
    }

    /// What happened, without the time.
    func text(_ explanation: Explanation) -> String {
        switch explanation {
        case .touchDown(_, let source, let x, let y):
            return "touch-down at (\(Rejection.roundedText(x)), \(Rejection.roundedText(y))), panel \(source)"
        case .candidate(let i, _):
            return "\(name(i)): candidate"
        case .rejected(let i, _, let why):
            return "\(name(i)): passed over: \(why.text)"
        case .ignored(let i, _, let why):
            return "\(name(i)): not considered: \(why.text)"
        case .decided(let i, _, let decision, let cause, _, let velocity, let peak):
            let released: String
            switch cause {
            case .threshold, .nearestPoint: released = "released at \(Rejection.roundedText(velocity))/s, "
            case .flick, .noRule, .projected: released = ""
            }
            return "\(name(i)): \(decision.rawValue) by \(cause.text) (\(released)peak \(Rejection.roundedText(peak)))"
        }
    }

    /// The same as one NDJSON object: `{"type":"explain","time":…,"transition":…,"text":…}`.
    func json(_ explanation: Explanation, into w: JSONWriter) {
        json(time: Self.time(of: explanation), transition: Self.transition(of: explanation), text: text(explanation), into: w)
    }

    /// A line of the summary at the end (`ExplanationSummary`), at `time`.
    func line(time: Double, transition: Int?, text: String) -> String {
        Self.seconds(time) + (transition == nil ? "  " : "    ") + text
    }

    /// The same as one NDJSON object.
    func json(time: Double, transition: Int?, text: String, into w: JSONWriter) {
        w.raw("{\"type\":\"explain\",\"time\":")
        w.number(time)
        if let i = transition {
            w.raw(",\"transition\":")
            w.string(name(i))
        }
        w.raw(",\"text\":")
        w.string(text)
        w.raw("}\n")
    }

    static func time(of explanation: Explanation) -> Double {
        switch explanation {
        case .touchDown(let time, _, _, _), .candidate(_, let time), .rejected(_, let time, _), .ignored(_, let time, _),
             .decided(_, let time, _, _, _, _, _):
            return time
        }
    }

    static func transition(of explanation: Explanation) -> Int? {
        switch explanation {
        case .touchDown: return nil
        case .candidate(let i, _), .rejected(let i, _, _), .ignored(let i, _, _), .decided(let i, _, _, _, _, _, _): return i
        }
    }

    /// Seconds with 3 decimals ("1.305").
    static func seconds(_ t: Double) -> String {
        guard t.isFinite else { return "\(t)" }
        let ms = Int((t * 1000).rounded())
        let whole = ms / 1000, frac = abs(ms % 1000)
        let pad = frac < 10 ? "00" : frac < 100 ? "0" : ""
        return "\(ms < 0 && whole == 0 ? "-" : "")\(whole).\(pad)\(frac)"
    }
}
