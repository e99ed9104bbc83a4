/// The whole engine: every configured transition's state machine, the
/// contacts each one has claimed, and the event sequence number. Frames and
/// times go in, `TransitionEvent`s come out (appended to the caller's
/// buffer, so the hot path allocates nothing per frame). Pure: no I/O, no
/// clock; the caller says what time it is.
public struct TransitionEngine: Sendable {
    /// Every transition the engine runs, by index: the current config's
    /// (`0..<liveCount`), then, after a `reload`, those of an earlier config
    /// still in flight ("retiring": they finish under the config they began
    /// with, take no new touches, and are dropped once all are idle).
    public private(set) var configuration: EngineConfiguration
    public private(set) var machines: [TransitionMachine] {
        didSet { nextDeadline = Self.earliestFrame(of: machines) }
    }
    /// How many of `machines` belong to the current config.
    public private(set) var liveCount: Int
    /// The seq of the last event emitted (0 before the first).
    public private(set) var seq: UInt64 = 0
    /// Contacts owned by a transition; they stay claimed until lifted, even
    /// after the transition released (a touch claimed by one transition is
    /// not given to another).
    private var claimed: [ClaimedTouch] = []
    private var free: [Contact] = []
    /// Free contacts per source at its last frame (fingers that may not
    /// start a gesture turned on or driven while they are down).
    private var fingersDown: [Int] = []
    /// The names each source is known by (its paths and device name), for
    /// transitions bound to a `device`.
    private var sourceNames: [Int: Set<String>] = [:]

    /// A contact a transition owns, on its touchscreen.
    private struct ClaimedTouch: Equatable {
        var source: Int
        var id: Int
    }
    /// The last time the engine was told about.
    public private(set) var now: Double = -Double.infinity
    /// Per transition with `report_position`: its fingers' centroid at the
    /// frame being processed (nil when none or not asked for), and where it
    /// was last (for `ended`, whose frame has no fingers).
    private var position: ScreenPoint?
    private var lastPosition: [Int: ScreenPoint] = [:]

    /// Called with a line for every state change worth tracing (debug level).
    public var trace: (@Sendable (String) -> Void)?

    /// Why it did what it did (touch-downs, candidates, rejections,
    /// decisions), appended here while not nil; the caller takes them.
    public var explanations: [Explanation]?
    /// Interactions begun and ended and candidates rejected, since the
    /// engine was made (for metrics).
    public private(set) var tally = EngineTally()
    /// Contacts seen in each source's last frame, to tell touch-downs
    /// (kept only while explaining).
    private var seen: [Int: [Int]] = [:]

    public init(configuration: EngineConfiguration) {
        self.configuration = configuration
        self.machines = configuration.transitions.map {
            TransitionMachine(spec: $0, frameRate: configuration.frameRate)
        }
        self.liveCount = configuration.transitions.count
        free.reserveCapacity(16)
        claimed.reserveCapacity(16)
    }

    // MARK: Inputs

    /// One touch frame. Animation frames due up to its time come first.
    /// A frame is one touchscreen's state (`frame.source`): only that
    /// source's claims, candidates and interactions see it.
    public mutating func process(_ frame: borrowing TouchFrame, into events: inout [TransitionEvent]) {
        guard frame.source >= 0 && frame.source < TouchFrame.maximumSources else {
            trace?("BUG: frame of source \(frame.source), beyond \(TouchFrame.maximumSources); ignored")
            return
        }
        advance(to: frame.time, into: &events)
        if !staleLengths.isEmpty { refreshStaleLengths() }
        now = max(now, frame.time)
        let source = frame.source
        if explanations != nil { noteTouchDowns(frame) }
        if !frame.withdrawn.isEmpty { cancelWithdrawn(frame, into: &events) }
        // Forget claims on lifted contacts (looked for first: most frames lift none).
        if claimed.contains(where: { Self.isLifted($0, in: frame) }) {
            claimed.removeAll { Self.isLifted($0, in: frame) }
        }
        // Interactions first: they own their contacts.
        for i in machines.indices where machines[i].isInteracting {
            let action = machines[i].handleFrame(frame, free: [])
            position = locate(i, action, in: frame)
            perform(action, transition: i, time: frame.time, into: &events)
        }
        free.clearKeepingCapacity()
        for c in frame.contacts where !claimed.contains(ClaimedTouch(source: source, id: c.id)) { free.append(c) }
        for i in machines.indices where !machines[i].isInteracting {
            if machines.count > liveCount && !takesNewTouches(i) { continue }
            if i < liveCount && !configuration.transitions[i].enabled {
                if touchedDown { explanations?.append(.rejected(transition: i, time: frame.time, why: .disabled)) }
                continue
            }
            if machines[i].ignoresFrame(of: source, freeCount: free.count) {
                if touchedDown { noteIgnored(i, frame) }
                continue
            }
            if let bound = configuration.transitions[i].device, !(sourceNames[source]?.contains(bound) ?? false) {
                if touchedDown { explanations?.append(.ignored(transition: i, time: frame.time, why: .otherDevice(bound))) }
                continue
            }
            let action = machines[i].handleFrame(frame, free: free, excluded: exclusions)
            if case .none = action {
                if touchedDown { noteIgnored(i, frame) }
                continue
            }
            if case .began(_, let ids) = action {
                for id in ids { claimed.append(ClaimedTouch(source: source, id: id)) }
                free.removeAll { ids.contains($0.id) }
            }
            position = locate(i, action, in: frame)
            perform(action, transition: i, time: frame.time, into: &events)
        }
        position = nil
        while fingersDown.count <= source { fingersDown.append(0) }
        if fingersDown[source] != free.count { fingersDown[source] = free.count }
        dropRetiredIfIdle()
    }

    /// Contacts that left without lifting (a palm, a stuck contact): an
    /// interaction one of them drives ends with a cancel for its reason and
    /// animates back, before the frame is looked at (there, its contacts'
    /// absence would read as a release, which may finish it). Their claims
    /// go as for lifted contacts.
    private mutating func cancelWithdrawn(_ frame: borrowing TouchFrame, into events: inout [TransitionEvent]) {
        for i in machines.indices where machines[i].isInteracting && machines[i].ownedSource == frame.source {
            let owned = machines[i].ownedContacts
            guard let gone = frame.withdrawn.first(where: { owned.contains($0.id) }) else { continue }
            let action = machines[i].handleCancel(at: frame.time, reason: gone.reason)
            perform(action, transition: i, time: frame.time, into: &events)
        }
    }

    /// Whether a claimed contact is gone from its touchscreen's frame.
    private static func isLifted(_ touch: ClaimedTouch, in frame: borrowing TouchFrame) -> Bool {
        touch.source == frame.source && !frame.contacts.contains { $0.id == touch.id }
    }

    /// Whether the frame being processed has a touch-down (while explaining).
    private var touchedDown = false

    /// Notes the frame's new contacts as touch-downs.
    private mutating func noteTouchDowns(_ frame: TouchFrame) {
        let before = seen[frame.source] ?? []
        touchedDown = false
        for c in frame.contacts where !before.contains(c.id) {
            explanations?.append(.touchDown(time: frame.time, source: frame.source, x: c.downX, y: c.downY))
            touchedDown = true
        }
        seen[frame.source] = frame.contacts.map(\.id)
    }

    /// Says why transition `i` did not look at the frame's touch-down (while
    /// explaining): its recogniser waits for more free contacts, or for fewer
    /// (it already took or passed over those down). Otherwise a transition
    /// whose finger count never matches would go unmentioned.
    private mutating func noteIgnored(_ i: Int, _ frame: borrowing TouchFrame) {
        // Nothing to work out unless explaining (a replay's --explain).
        guard explanations != nil else { return }
        let fingers = configuration.transitions[i].gesture.fingers
        let why: Disregard = free.count < fingers
            ? .tooFewContacts(free: free.count, down: frame.contacts.count, fingers: fingers)
            : .waitingForLift(down: free.count, fingers: fingers)
        explanations?.append(.ignored(transition: i, time: frame.time, why: why))
    }

    /// A time for traces: seconds with microseconds ("8.253768").
    static func seconds(_ t: Double) -> String {
        guard t.isFinite else { return "\(t)" }
        let us = Int64((abs(t) * 1e6).rounded())
        let fraction = String(us % 1_000_000)
        return (t < 0 && us != 0 ? "-" : "") + "\(us / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    // MARK: Sources

    /// Names touchscreen `source` (its paths, links and device name) for
    /// transitions bound to a `device`; nil forgets it (the panel is gone).
    public mutating func nameSource(_ source: Int, _ names: Set<String>?) {
        sourceNames[source] = names
    }

    /// The exclusion regions in force (the UI's, `exclude`): no gesture
    /// starts from a contact that touches down inside one (a candidate is
    /// refused with `Rejection.excluded`); gestures already under way, and
    /// candidates already started, are not affected.
    public private(set) var exclusions: [ScreenRect] = []

    /// Replaces the exclusion regions in force (an empty list: none).
    public mutating func setExclusions(_ rects: [ScreenRect]) {
        guard rects != exclusions else { return }
        exclusions = rects
        trace?("exclusion regions: \(rects.isEmpty ? "none" : rects.map { "[\($0.x0), \($0.y0), \($0.x1), \($0.y1)]" }.joined(separator: ", "))")
    }

    /// Whether a touch-down at (x, y) on `source` is where some enabled
    /// transition's gesture may start (an edge zone, a segment; anywhere
    /// for gestures without a start area), outside every exclusion region:
    /// the touches the filter holds.
    public func mayStartGesture(source: Int, x: Double, y: Double) -> Bool {
        if !exclusions.isEmpty && exclusions.contains(where: { $0.contains(x: x, y: y) }) { return false }
        for i in 0..<liveCount where configuration.transitions[i].enabled && takesNewTouches(i) {
            let spec = configuration.transitions[i]
            if let bound = spec.device, !(sourceNames[source]?.contains(bound) ?? false) { continue }
            if machines[i].acceptsTouchDown(x: x, y: y) { return true }
        }
        return false
    }

    /// Whether a transition owns contact `id` of `source`.
    public func isClaimed(source: Int, id: Int) -> Bool {
        claimed.contains(ClaimedTouch(source: source, id: id))
    }

    /// Where transition `i`'s fingers are in `frame`, if it reports its
    /// position: their centroid while they are all there (noted on every
    /// frame, also one that changes no progress), else where they were last.
    @inline(__always)
    private mutating func locate(_ i: Int, _ action: TransitionMachine.Action, in frame: TouchFrame) -> ScreenPoint? {
        guard configuration.transitions[i].reportPosition else { return nil }
        let ids = machines[i].ownedContacts
        if !ids.isEmpty && machines[i].ownedSource == frame.source {
            var x = 0.0, y = 0.0, n = 0
            for c in frame.contacts where ids.contains(c.id) {
                x += c.x
                y += c.y
                n += 1
            }
            if n == ids.count { lastPosition[i] = ScreenPoint(x: x / Double(n), y: y / Double(n)) }
        }
        switch action {
        case .began, .changed, .ended: return lastPosition[i]
        case .none, .considered, .passedOver, .animating, .ran, .abandoned, .refused, .bug: return nil
        }
    }

    /// The first frame after a touchscreen's state was rebuilt (a resync after
    /// `SYN_DROPPED`): a gesture whose contacts did not all survive is lost,
    /// not released — it ends with a cancel (reason `device-lost`) and
    /// animates back. Then the frame is processed as usual. Only gestures of
    /// the frame's touchscreen: an empty frame of a source is how the loss
    /// of that one panel is told, and gestures on the others go on.
    public mutating func processResync(_ frame: TouchFrame, into events: inout [TransitionEvent]) {
        advance(to: frame.time, into: &events)
        now = max(now, frame.time)
        for i in machines.indices where machines[i].isInteracting {
            let owned = machines[i].ownedContacts
            guard !owned.isEmpty else { continue }   // driven by commands
            guard machines[i].ownedSource == frame.source else { continue }   // another touchscreen's
            let survived = owned.allSatisfy { id in frame.contacts.contains { $0.id == id } }
            if !survived {
                let action = machines[i].handleCancel(at: frame.time, reason: .deviceLost)
                perform(action, transition: i, time: frame.time, into: &events)
            }
        }
        process(frame, into: &events)
    }

    /// The time of the next animation frame of any transition.
    /// Kept up to date as `machines` change: a stored value, which a caller
    /// in another module reads without a call (the replay asks on every step).
    public private(set) var nextDeadline: Double?

    private static func earliestFrame(of machines: [TransitionMachine]) -> Double? {
        var best: Double? = nil
        for i in machines.indices {
            if let t = machines[i].nextFrameTime, best == nil || t < best! { best = t }
        }
        return best
    }

    /// Emits every animation frame due at or before `time`, in time order
    /// (ties in configuration order).
    public mutating func advance(to time: Double, into events: inout [TransitionEvent]) {
        // Most frames come with no animation due.
        guard let first = nextDeadline, first <= time else { return dropRetiredIfIdle() }
        while true {
            var pick = -1
            var pickTime = time
            for i in machines.indices {
                if let t = machines[i].nextFrameTime, t <= pickTime, pick < 0 || t < pickTime {
                    pick = i
                    pickTime = t
                }
            }
            if pick < 0 { break }
            now = max(now, pickTime)
            let action = machines[pick].handleAnimationTick()
            perform(action, transition: pick, time: pickTime, into: &events)
        }
        dropRetiredIfIdle()
    }

    /// Ends every interaction with a cancel for `reason` (device lost, end of
    /// a recording, a command, shutdown); they animate back to 0.
    public mutating func cancelInteractions(at time: Double, reason: EndReason, into events: inout [TransitionEvent]) {
        advance(to: time, into: &events)
        now = max(now, time)
        for i in machines.indices {
            let action = machines[i].handleCancel(at: time, reason: reason)
            perform(action, transition: i, time: time, into: &events)
        }
        claimed.removeAll()
    }

    // MARK: Commands

    /// What a command did.
    public enum CommandOutcome: Sendable, Equatable {
        case done
        case refused(code: CommandRefusal, message: String)
    }

    /// A command for one transition (design "Socket": `run`, `drive`,
    /// `release`, `cancel`), at `time` on the engine's clock.
    public enum Command: Sendable, Equatable {
        case run(TransitionMachine.RunGoal)
        case drive(progress: Double)
        case release(velocity: Double?)
        case cancel
        /// Turns recognising its gesture on or off (`enable`); changes no
        /// transition in flight.
        case setEnabled(Bool)
        /// The client whose `drive` commands drive it went away: a driven
        /// interaction ends with a cancel (reason `client-lost`) and animates
        /// back; anything else (a finger drives it, or it is no longer
        /// interacting) is left alone and refused with `not-active`.
        case driverLost
        /// A reload left this transition of the earlier config in flight
        /// with no transition of its name in the new one (dropped or
        /// renamed): no command can reach it by name and no subscriber's
        /// name follows it, so an interaction (a finger's or a command's)
        /// ends with a cancel (reason `reload`) and animates back, as a
        /// `cancel` does. An animation already under way runs to its end;
        /// it and a current transition are refused with `not-active`.
        case orphaned
    }

    /// Carries out a command; the events it causes are appended to `events`.
    public mutating func perform(_ command: Command, transition i: Int, at time: Double,
                                 into events: inout [TransitionEvent]) -> CommandOutcome {
        guard machines.indices.contains(i) else {
            return .refused(code: .unknownTransition, message: "no transition number \(i)")
        }
        advance(to: time, into: &events)
        // The animation frames due may have ended the last transitions of an
        // earlier config in flight, and so dropped them, `i` among them.
        guard machines.indices.contains(i) else {
            return .refused(code: .unknownTransition, message: "no transition number \(i) (its earlier config's animation ended)")
        }
        if case .setEnabled(let enabled) = command {
            setEnabled(enabled, transition: i)
            return .done
        }
        // A command for a transition goes to its earlier config's one while
        // that is still in flight (a drive begun before a reload is released
        // by the same name).
        let i = retiring(sameNameAs: i) ?? i
        let t = max(time, now)
        now = t
        let action: TransitionMachine.Action
        switch command {
        case .run(let goal): action = machines[i].handleRun(to: goal, at: t)
        case .drive(let progress): action = machines[i].handleDrive(progress: progress, at: t, fingersDown: fingersDown)
        case .release(let velocity): action = machines[i].handleRelease(velocity: velocity, at: t)
        case .cancel:
            // A finger-driven transition's fingers stay claimed until they lift.
            action = machines[i].handleCancelCommand(at: t)
        case .driverLost:
            action = machines[i].handleDriverLost(at: t)
        case .orphaned:
            guard i >= liveCount, streamIndex(of: i) == i else {
                return .refused(code: .notActive, message: "\(machines[i].spec.name) is in the config in use")
            }
            // Fingers that drove it stay claimed until they lift, as after `cancel`.
            action = machines[i].handleOrphaned(at: t)
        case .setEnabled:
            return .done   // handled above, before the redirection to an earlier config
        }
        if case .refused(let code, let message) = action { return .refused(code: code, message: message) }
        perform(action, transition: i, time: t, into: &events)
        dropRetiredIfIdle()
        return .done
    }

    /// The same transitions with other lengths (a panel's millimetres
    /// resolved at attach): idle ones take them now, one in flight when it
    /// is idle again; nothing moves (unlike `reload`), and what the UI
    /// enabled stays so.
    public mutating func applyLengths(from resolved: EngineConfiguration) {
        guard resolved.transitions.count == liveCount else { return }
        for i in 0..<liveCount where configuration.transitions[i].name == resolved.transitions[i].name {
            var spec = resolved.transitions[i]
            spec.enabled = configuration.transitions[i].enabled
            configuration.transitions[i] = spec
            if machines[i].isIdle {
                machines[i].takeLengths(of: spec, frameRate: configuration.frameRate)
            } else {
                staleLengths.insert(i)
            }
        }
    }

    /// Transitions that were in flight when their lengths changed: they
    /// take the new ones once idle.
    private var staleLengths: Set<Int> = []

    private mutating func refreshStaleLengths() {
        for i in staleLengths where i < liveCount && machines[i].isIdle {
            machines[i].takeLengths(of: configuration.transitions[i], frameRate: configuration.frameRate)
            staleLengths.remove(i)
        }
    }

    /// Turns transition `i`'s recognition on or off. An idle one starts
    /// afresh (no candidate left from before); one in flight is left alone.
    private mutating func setEnabled(_ enabled: Bool, transition i: Int) {
        guard i < liveCount, configuration.transitions[i].enabled != enabled else { return }
        configuration.transitions[i].enabled = enabled
        if machines[i].isIdle {
            machines[i] = TransitionMachine(spec: configuration.transitions[i], frameRate: configuration.frameRate,
                                            resting: machines[i].rest)
            if enabled { machines[i].ignoreFingersDown(fingersDown) }
        }
        trace?("\(configuration.transitions[i].name): \(enabled ? "enabled" : "disabled")")
    }

    // MARK: Reload

    /// Replaces the config for new gestures: the current transitions that
    /// are idle are replaced by `configuration`'s; those in flight keep
    /// running under the config they began with (appended after the new
    /// ones, see `configuration`) and a new transition of the same name
    /// waits for them to end (one whose name the new config lacks is an
    /// orphan: the caller ends it with `Command.orphaned`, at its time).
    /// Touches already claimed stay claimed. Returns,
    /// for each old index, its new index (a transition in flight), or nil
    /// (idle: replaced).
    @discardableResult
    public mutating func reload(_ newConfiguration: EngineConfiguration) -> [Int?] {
        var specs = newConfiguration.transitions
        // A transition whose snap points stay the same rests where it did.
        var kept = newConfiguration.transitions.map { spec in
            let old = machines[..<liveCount].first { $0.spec.name == spec.name && $0.spec.snap?.points == spec.snap?.points }
            return TransitionMachine(spec: spec, frameRate: newConfiguration.frameRate, resting: old?.rest ?? 0)
        }
        var moved: [Int?] = []
        for (i, machine) in machines.enumerated() {
            if case .idle = machine.state {
                moved.append(nil)
            } else {
                moved.append(kept.count)
                kept.append(machine)
                specs.append(configuration.transitions[i])
            }
        }
        machines = kept
        liveCount = newConfiguration.transitions.count
        configuration = EngineConfiguration(frameRate: newConfiguration.frameRate, transitions: specs)
        // Positions and pending lengths follow their transitions' new places.
        var positions: [Int: ScreenPoint] = [:]
        for (old, point) in lastPosition { if let new = moved[old] { positions[new] = point } }
        lastPosition = positions
        staleLengths = []
        trace?("reloaded: \(liveCount) transitions, \(machines.count - liveCount) of the earlier config still in flight")
        return moved
    }

    /// The index a transition's events are known by to clients that chose
    /// transitions by name: for one of an earlier config still in flight,
    /// the current transition of the same name (if there is one).
    public func streamIndex(of i: Int) -> Int {
        guard i >= liveCount, i < machines.count else { return i }
        let name = machines[i].spec.name
        return machines[..<liveCount].firstIndex { $0.spec.name == name } ?? i
    }

    /// The earlier config's transition in flight with the same name as the
    /// current transition `i`.
    private func retiring(sameNameAs i: Int) -> Int? {
        guard machines.count > liveCount, i < liveCount else { return nil }
        let name = machines[i].spec.name
        return (liveCount..<machines.count).first { machines[$0].spec.name == name && !machines[$0].isIdle }
    }

    /// Whether transition `i` may begin (or catch) a gesture: a current one
    /// whose earlier namesake is not still in flight.
    private func takesNewTouches(_ i: Int) -> Bool {
        i < liveCount && retiring(sameNameAs: i) == nil
    }

    /// Once every transition of earlier configs is idle, they are dropped.
    @inline(__always)
    private mutating func dropRetiredIfIdle() {
        guard machines.count > liveCount,
              machines[liveCount...].allSatisfy({ $0.isIdle }) else { return }
        machines.removeSubrange(liveCount...)
        configuration.transitions.removeSubrange(liveCount...)
    }

    /// Shutdown: every transition in flight ends with a cancel (reason
    /// `shutdown`) and is cancelled at once.
    public mutating func shutdown(at time: Double, into events: inout [TransitionEvent]) {
        let t = max(time, now)
        now = t
        for i in machines.indices {
            let action = machines[i].handleShutdown(at: t)
            perform(action, transition: i, time: t, into: &events)
        }
        claimed.removeAll()
    }

    /// Runs every animation to its end; returns the time of the last frame
    /// (or `now` if nothing was animating).
    @discardableResult
    public mutating func settle(into events: inout [TransitionEvent]) -> Double {
        while let t = nextDeadline {
            advance(to: t, into: &events)
        }
        return now
    }

    /// True when no transition is interacting or animating.
    public var isIdle: Bool {
        machines.indices.allSatisfy { machines[$0].isIdle }
    }

    // MARK: Snapshot

    /// What a late client needs to render every transition in flight.
    public struct Snapshot: Sendable, Equatable {
        /// Where a transition in flight is.
        public enum Phase: String, Sendable, Equatable {
            case interacting
            case animating
        }

        public var transition: Int
        public var phase: Phase
        public var progress: Double
        public var target: Double?

        public init(transition: Int, phase: Phase, progress: Double, target: Double?) {
            self.transition = transition
            self.phase = phase
            self.progress = progress
            self.target = target
        }
    }

    /// Where each current transition with snap points rests (nil for one
    /// without), by index.
    public var rests: [Double?] {
        (0..<liveCount).map { machines[$0].spec.snap == nil ? nil : machines[$0].restProgress }
    }

    /// Every transition in flight, at the engine's current time.
    public func activeSnapshot() -> [Snapshot] {
        var result: [Snapshot] = []
        for (i, m) in machines.enumerated() {
            switch m.state {
            case .idle:
                continue
            case .interacting(let interaction):
                result.append(Snapshot(transition: i, phase: .interacting, progress: interaction.progress, target: nil))
            case .animating(let animation, _):
                result.append(Snapshot(transition: i, phase: .animating,
                                       progress: animation.sample(at: now).progress, target: animation.target))
            }
        }
        return result
    }

    // MARK: Performing actions

    private mutating func emit(_ kind: TransitionEvent.Kind, _ transition: Int, _ time: Double,
                               _ progress: Double, _ velocity: Double, decision: Decision? = nil,
                               reason: EndReason? = nil, target: Double? = nil, index: Int? = nil,
                               into events: inout [TransitionEvent]) {
        seq += 1
        var at: ScreenPoint? = nil
        switch kind {
        case .began:
            at = position
            tally.began[configuration.transitions[transition].name, default: 0] += 1
        case .changed:
            at = position
        case .ended:
            if let decision, let reason {
                tally.ended[EngineTally.Outcome(transition: configuration.transitions[transition].name,
                                                decision: decision, reason: reason), default: 0] += 1
            }
            // Also when a command, a lost device or shutdown ends it: where
            // the fingers were last (nothing for a command-driven one).
            at = position ?? lastPosition[transition]
            lastPosition[transition] = nil
        case .animating, .finished, .cancelled:
            at = nil
        }
        events.append(TransitionEvent(kind: kind, transition: transition, seq: seq, time: time,
                                      progress: progress, velocity: velocity, decision: decision,
                                      reason: reason, target: target, position: at, index: index))
    }

    /// `ended` (with its target and index for snap points), then `finished`
    /// or `cancelled` at once if there is nothing to animate.
    private mutating func emitEnded(_ i: Int, _ time: Double, _ p: Double, _ v: Double, _ ending: Ending,
                                    reason: EndReason, completesNow: Bool, into events: inout [TransitionEvent]) {
        let snapped = ending.index != nil
        emit(.ended, i, time, p, v, decision: ending.decision, reason: reason,
             target: snapped ? ending.target : nil, index: ending.index, into: &events)
        if completesNow {
            emit(ending.finishes ? .finished : .cancelled, i, time, ending.target, 0, into: &events)
            carryRest(from: i)
        }
    }

    /// A transition of an earlier config settled (it was in flight at a
    /// reload): its namesake in the config in use rests where it did, if
    /// their snap points are the same.
    private mutating func carryRest(from i: Int) {
        guard i >= liveCount, machines[i].spec.snap != nil else { return }
        let name = machines[i].spec.name
        guard let j = machines[..<liveCount].firstIndex(where: { $0.spec.name == name }) else { return }
        machines[j].takeRest(of: machines[i])
    }

    private mutating func perform(_ action: TransitionMachine.Action, transition i: Int, time: Double,
                                  into events: inout [TransitionEvent]) {
        switch action {
        case .none:
            return
        case .considered:
            trace?("\(configuration.transitions[i].name): candidate started at \(Self.seconds(time))")
            explanations?.append(.candidate(transition: i, time: time))
        case .passedOver(let why):
            trace?("\(configuration.transitions[i].name): passed over at \(Self.seconds(time)): \(why.text)")
            explanations?.append(.rejected(transition: i, time: time, why: why))
            tally.rejected[EngineTally.Rejected(transition: configuration.transitions[i].name, reason: why.kind), default: 0] += 1
        case .began(let p, _):
            trace?("\(configuration.transitions[i].name): began at \(Self.seconds(time)), progress \(Rejection.roundedText(p))")
            emit(.began, i, time, p, 0, into: &events)
        case .changed(let p, let v):
            emit(.changed, i, time, p, v, into: &events)
        case .ended(let p, let v, let ending, let reason, let completesNow, let peak):
            if explanations != nil {
                let cause = DecisionCause.of(progress: p, velocity: v, reason: reason, ending: ending,
                                             spec: configuration.transitions[i])
                explanations?.append(.decided(transition: i, time: time, decision: ending.decision, cause: cause,
                                              progress: p, velocity: v, peak: peak))
            }
            trace?("\(configuration.transitions[i].name): ended at \(Self.seconds(time)), \(ending.decision)\(ending.index == nil ? "" : " to \(Rejection.roundedText(ending.target))") (\(reason.rawValue)), p \(Rejection.roundedText(p)), v \(Rejection.roundedText(v))")
            emitEnded(i, time, p, v, ending, reason: reason, completesNow: completesNow, into: &events)
        case .animating(let p, let v, let target, let completes):
            emit(.animating, i, time, p, v, target: target, into: &events)
            if let ending = completes {
                emit(ending.finishes ? .finished : .cancelled, i, time, target, 0, into: &events)
                carryRest(from: i)
            }
        case .ran(let p, let ending, let completesNow):
            trace?("\(configuration.transitions[i].name): run to \(ending.index.map { "point \($0)" } ?? ending.decision.rawValue) at \(Self.seconds(time))")
            emit(.began, i, time, p, 0, into: &events)
            emitEnded(i, time, p, 0, ending, reason: .command, completesNow: completesNow, into: &events)
        case .abandoned(let p, let ending):
            emitEnded(i, time, p, 0, ending, reason: .shutdown, completesNow: true, into: &events)
        case .refused(let code, let message):
            trace?("\(configuration.transitions[i].name): refused (\(code)): \(message)")
        case .bug(let what):
            trace?("BUG: \(configuration.transitions[i].name): \(what)")
        }
    }
}
