#if canImport(Glibc)
import Glibc
#endif
import Engine

/// The engine's invariants, checked on every event it emits (design "Engine
/// rules", "Events"; docs/protocol.md):
/// - `seq` rises by one per event; times are finite (and, when the input's
///   times never go back, never go back either);
/// - a transition's life is `began` → `changed`* → `ended` → `animating`* →
///   `finished` | `cancelled`, a `began` may catch an animation, and shutdown
///   ends an animation with `ended` (reason `shutdown`) then `cancelled`
///   (`finished` with snap points);
/// - with snap points: every `ended` is a `snap` to one of the points (its
///   `target` and `index` agree), a release by their rule from s₀ when the
///   events tell s₀ (the point it rests at, when it began from rest), an end
///   with no rule back to s₀; it settles with `finished` exactly on its
///   target, and rests there; a gesture's progress stays within a page of
///   s₀ (and within the distance's damping past the ends with a rubber band);
/// - progress is finite: 0…1 while a gesture or a command drives it; an
///   animation stays between where it started and its target (a spring may
///   overshoot, by no more than its energy at release allows); `finished` is
///   exactly 1 and `cancelled` exactly 0; velocities are finite;
/// - a release follows the decision rule; a loss, a lost client and shutdown
///   cancel;
/// - after each step the engine's machines are in the phase their events
///   say, and a machine that goes away (an earlier config's) is idle.
public struct EngineInvariants {
    /// Where the events say a transition is.
    enum Phase: Equatable {
        case idle
        case interacting
        /// Animating to `target`, its progress within `low...high`.
        case animating(target: Double, low: Double, high: Double)
        /// Ended by shutdown: `cancelled` comes next.
        case abandoning
    }

    private var phases: [Phase] = []
    /// Per transition with snap points: the index it rests at, while the
    /// events tell it (nil after a reload, until it settles again).
    private var rests: [Int?] = []
    /// s₀ of the gesture under way, when the events tell it.
    private var starts: [Int?] = []
    private var lastSeq: UInt64 = 0
    private var lastTime = -Double.infinity
    /// Whether event times must never go back (the input's never do).
    private let timesRise: Bool

    /// Prints every event (`FUZZ_VERBOSE` set), to follow an input replayed by hand.
    private let verbose = getenv("FUZZ_VERBOSE") != nil

    public init(timesRise: Bool) {
        self.timesRise = timesRise
    }

    // MARK: Steps

    /// Checks the events of one engine step. `specs` are the engine's
    /// transitions before the step (an index keeps its transition through a
    /// step), `machines` its machines after it.
    public mutating func check(_ events: [TransitionEvent], specs: [TransitionSpec],
                               machines: [TransitionMachine]) {
        for event in events {
            if verbose { print(event); fflush(nil) }
            check(event, specs: specs)
        }
        if verbose { print("after:", machines.map(\.state)); fflush(nil) }
        if phases.count > machines.count {
            for i in machines.count..<phases.count {
                fuzzCheck(phases[i] == .idle, "transition \(i) was dropped while \(phases[i])")
            }
            phases.removeSubrange(machines.count...)
        }
        for (i, machine) in machines.enumerated() {
            let phase = i < phases.count ? phases[i] : .idle
            switch (machine.state, phase) {
            case (.idle, .idle), (.interacting, .interacting), (.animating, .animating):
                continue
            case (.idle, _), (.interacting, _), (.animating, _):
                fuzzCheck(false, "transition \(i) is \(machine.state.name) but its events say \(phase)")
            }
        }
    }

    /// Follows a reload: `moved[i]` is the new index of old transition `i`
    /// (nil: it was idle and is replaced); `liveCount` transitions of the
    /// new config come first, all idle.
    public mutating func reloaded(moved: [Int?], liveCount: Int) {
        var next = [Phase](repeating: .idle, count: liveCount)
        for (old, new) in moved.enumerated() {
            let phase = old < phases.count ? phases[old] : .idle
            guard let new else {
                fuzzCheck(phase == .idle, "transition \(old) was replaced by a reload while \(phase)")
                continue
            }
            fuzzCheck(new == next.count, "a reload moved transition \(old) to \(new), expected \(next.count)")
            next.append(phase)
        }
        phases = next
        // Where each rests is the engine's to keep (a transition whose points stay rests where it did).
        rests = [Int?](repeating: nil, count: next.count)
        starts = [Int?](repeating: nil, count: next.count)
        reloaded = true
    }

    /// Whether a reload came: until then every transition rests at its first point.
    private var reloaded = false

    /// After the input ended and every animation ran out: nothing half-way.
    public func checkSettled(_ engine: TransitionEngine) {
        for (i, phase) in phases.enumerated() {
            fuzzCheck(phase == .idle, "transition \(i) is left \(phase) after the input ended")
        }
        fuzzCheck(engine.isIdle, "the engine is not idle after the input ended")
        fuzzCheck(engine.nextDeadline == nil, "an animation frame is due after the engine settled")
        fuzzCheck(engine.activeSnapshot().isEmpty, "the snapshot lists transitions in flight after the engine settled")
    }

    /// The engine's snapshot agrees with the events: one entry per
    /// transition in flight, in its phase, at a finite progress.
    public func checkSnapshot(_ engine: TransitionEngine) {
        let snapshot = engine.activeSnapshot()
        fuzzCheck(snapshot.count == phases.filter { $0 != .idle }.count,
                  "the snapshot has \(snapshot.count) transitions in flight, the events say otherwise")
        for entry in snapshot {
            fuzzCheck(entry.progress.isFinite, "snapshot progress \(entry.progress)")
            let phase = entry.transition < phases.count ? phases[entry.transition] : .idle
            switch entry.phase {
            case .interacting:
                fuzzCheck(phase == .interacting, "snapshot says \(entry.transition) interacts, its events say \(phase)")
            case .animating:
                guard case .animating(let target, _, _) = phase else {
                    fuzzCheck(false, "snapshot says \(entry.transition) animates, its events say \(phase)")
                    return
                }
                fuzzCheck(entry.target == target, "snapshot target \(String(describing: entry.target)), events \(target)")
            }
        }
    }

    // MARK: Events

    private mutating func check(_ e: TransitionEvent, specs: [TransitionSpec]) {
        fuzzCheck(e.seq == lastSeq + 1, "seq \(e.seq) after \(lastSeq)")
        lastSeq = e.seq
        fuzzCheck(e.time.isFinite, "\(e.kind) at time \(e.time)")
        if timesRise {
            fuzzCheck(e.time >= lastTime, "\(e.kind) at \(e.time), after an event at \(lastTime)")
        }
        lastTime = e.time
        fuzzCheck(e.progress.isFinite && e.velocity.isFinite, "\(e.kind): progress \(e.progress), velocity \(e.velocity)")
        fuzzCheck(specs.indices.contains(e.transition), "\(e.kind) of transition \(e.transition) of \(specs.count)")
        while phases.count <= e.transition { phases.append(.idle) }
        while rests.count <= e.transition { rests.append(reloaded ? nil : 0) }
        while starts.count <= e.transition { starts.append(nil) }
        let phase = phases[e.transition]
        let snap = specs[e.transition].snap
        // Only a failure's message spells it out.
        var name: String { "\(e.kind) of \(specs[e.transition].name) (#\(e.seq))" }
        switch e.kind {
        case .began:
            switch phase {
            case .idle, .animating: break
            case .interacting, .abandoning: fuzzCheck(false, "\(name) while \(phase)")
            }
            fuzzCheck(Self.driven(e.progress, snap: snap, start: nil), "\(name) at progress \(e.progress)")
            // s₀ is where it rests when it begins from rest (a catch's is the
            // point nearest where the animation was, which the events do not tell).
            starts[e.transition] = phase == .idle ? rests[e.transition] : nil
            phases[e.transition] = .interacting
        case .changed:
            fuzzCheck(phase == .interacting, "\(name) while \(phase)")
            fuzzCheck(Self.driven(e.progress, snap: snap, start: starts[e.transition]), "\(name) at progress \(e.progress)")
        case .ended:
            guard let decision = e.decision, let reason = e.reason else {
                fuzzCheck(false, "\(name) without a decision and a reason")
                return
            }
            if let snap {
                phases[e.transition] = snapped(e, decision: decision, reason: reason, phase: phase, snap: snap,
                                               start: starts[e.transition], spec: specs[e.transition], name: name)
            } else {
                phases[e.transition] = ended(e, decision: decision, reason: reason, phase: phase,
                                             spec: specs[e.transition], name: name)
            }
        case .animating:
            guard case .animating(let target, let low, let high) = phase else {
                fuzzCheck(false, "\(name) while \(phase)")
                return
            }
            fuzzCheck(e.target == target, "\(name) with target \(String(describing: e.target)), decided \(target)")
            fuzzCheck(low...high ~= e.progress, "\(name) at progress \(e.progress), outside \(low)...\(high)")
        case .finished, .cancelled where snap != nil:
            fuzzCheck(e.kind == .finished, "\(name): with snap points every end is finished")
            switch phase {
            case .animating(let decided, _, _):
                fuzzCheck(e.progress == decided, "\(name) at \(e.progress), decided \(decided)")
            case .abandoning:
                break
            case .idle, .interacting:
                fuzzCheck(false, "\(name) while \(phase)")
            }
            if let points = snap?.points.points {
                rests[e.transition] = points.firstIndex(of: e.progress)
                fuzzCheck(rests[e.transition] != nil, "\(name) at \(e.progress), not a snap point")
            }
            phases[e.transition] = .idle
        case .finished, .cancelled:
            let target: Double = e.kind == .finished ? 1 : 0
            switch phase {
            case .animating(let decided, _, _):
                fuzzCheck(decided == target, "\(name) of an animation to \(decided)")
            case .abandoning:
                fuzzCheck(e.kind == .cancelled, "\(name) after a shutdown")
            case .idle, .interacting:
                fuzzCheck(false, "\(name) while \(phase)")
            }
            fuzzCheck(e.progress == target, "\(name) at progress \(e.progress)")
            phases[e.transition] = .idle
        }
    }

    /// Checks an `ended` and returns the phase it leads to.
    private func ended(_ e: TransitionEvent, decision: Decision, reason: EndReason, phase: Phase,
                       spec: TransitionSpec, name: @autoclosure () -> String) -> Phase {
        switch phase {
        case .interacting:
            fuzzCheck(0...1 ~= e.progress, "\(name()) at progress \(e.progress)")
        case .animating(_, let low, let high):
            // Only shutdown ends an animation, where it is.
            fuzzCheck(reason == .shutdown, "\(name()) (\(reason.rawValue)) while animating")
            fuzzCheck(low...high ~= e.progress, "\(name()) at progress \(e.progress), outside \(low)...\(high)")
        case .idle, .abandoning:
            fuzzCheck(false, "\(name()) while \(phase)")
        }
        switch reason {
        case .released:
            let rule = Decision.decide(progress: e.progress, velocity: e.velocity,
                                       flickVelocity: spec.flickVelocity, finishThreshold: spec.finishThreshold)
            fuzzCheck(decision == rule, "\(name()): \(decision) at p \(e.progress), v \(e.velocity); the rule says \(rule)")
        case .deviceLost, .clientLost, .shutdown, .reload, .palm, .stuck:
            fuzzCheck(decision == .cancel, "\(name()) (\(reason.rawValue)) decided \(decision)")
        case .command:
            break   // `cancel` cancels, `run` goes either way
        }
        if reason == .shutdown { return .abandoning }
        fuzzCheck(decision != .snap && e.target == nil && e.index == nil,
                  "\(name()): \(decision), target \(String(describing: e.target)) without snap points")
        return Self.animation(from: e.progress, velocity: e.velocity, to: Ending.of(decision).target, spec: spec)
    }

    /// Whether a gesture's progress may be `p`: 0…1 without snap points (or
    /// driven by commands); with them, within a page of s₀ (any point with
    /// long swipes), damped by less than the distance past the ends.
    static func driven(_ p: Double, snap: SnapSettings?, start: Int?) -> Bool {
        if 0...1 ~= p { return true }
        guard let snap, snap.overshoot == .rubberBand else { return false }
        let points = snap.points.points
        return (points[0] - 1)...(points[points.count - 1] + 1) ~= p
    }

    /// Checks a snap point's `ended` and returns the phase it leads to.
    private func snapped(_ e: TransitionEvent, decision: Decision, reason: EndReason, phase: Phase, snap: SnapSettings,
                         start: Int?, spec: TransitionSpec, name: @autoclosure () -> String) -> Phase {
        let points = snap.points.points
        fuzzCheck(decision == .snap, "\(name()): \(decision) with snap points")
        guard let index = e.index, points.indices.contains(index), e.target == points[index] else {
            fuzzCheck(false, "\(name()): target \(String(describing: e.target)), index \(String(describing: e.index)) of \(points)")
            return .idle
        }
        switch phase {
        case .interacting:
            fuzzCheck(Self.driven(e.progress, snap: snap, start: start), "\(name()) at progress \(e.progress)")
            if let start {
                switch reason {
                case .released:
                    let bounds = snap.points.bounds(from: start, longSwipes: snap.longSwipes)
                    fuzzCheck(bounds ~= index, "\(name()): point \(index), a gesture from \(start) reaches \(bounds)")
                    let rule = snap.points.target(progress: e.progress, velocity: e.velocity, start: start,
                                                  flickVelocity: spec.flickVelocity, decelerationRate: snap.decelerationRate,
                                                  longSwipes: snap.longSwipes)
                    fuzzCheck(rule.index == index, "\(name()): point \(index) at p \(e.progress), v \(e.velocity) from \(start); the rule says \(rule.index)")
                case .deviceLost, .clientLost, .reload, .palm, .stuck:
                    fuzzCheck(index == start, "\(name()) (\(reason.rawValue)) to \(index), not back to s₀ \(start)")
                case .shutdown, .command:
                    break   // `cancel` goes back, `run` anywhere
                }
            }
        case .animating(_, let low, let high):
            fuzzCheck(reason == .shutdown, "\(name()) (\(reason.rawValue)) while animating")
            fuzzCheck(low...high ~= e.progress, "\(name()) at progress \(e.progress), outside \(low)...\(high)")
        case .idle, .abandoning:
            fuzzCheck(false, "\(name()) while \(phase)")
        }
        if reason == .shutdown { return .abandoning }
        return Self.animation(from: e.progress, velocity: e.velocity, to: points[index], spec: spec)
    }

    /// Where an animation from `p0` may go: between `p0` and the target
    /// along a timing curve; a spring (mass 1, stiffness k, any damping)
    /// never has more energy than at release, so its distance from the target
    /// stays within √(x0² + (v0/ω)²), with ω = √k and v0 the release
    /// velocity in spring time (÷ completion speed).
    static func animation(from p0: Double, velocity: Double, to target: Double, spec: TransitionSpec) -> Phase {
        switch spec.completionCurve {
        case .timing:
            let slack = 1e-9
            return .animating(target: target, low: min(p0, target) - slack, high: max(p0, target) + slack)
        case .spring(_, let stiffness):
            let x0 = p0 - target
            let v0 = velocity / spec.completionSpeed / stiffness.squareRoot()
            let reach = (x0 * x0 + v0 * v0).squareRoot() * (1 + 1e-9) + 1e-9
            return .animating(target: target, low: target - reach, high: target + reach)
        }
    }
}
