/// The life of one configured transition: idle → interacting (a gesture
/// drives its progress) → animating (the rest runs to finish or cancel) →
/// idle. A value-type state machine: each input is a `mutating func` that
/// returns an `Action` for the caller (the engine) to turn into events; it
/// does no I/O and has no clock — time arrives with the inputs.
public struct TransitionMachine: Sendable {
    // MARK: State

    /// A gesture (or a catch of an animation) in progress.
    public struct Interaction: Sendable, Equatable {
        public var ids: [Int]
        public var reference: GestureReference
        /// Added to the gesture's progress: non-zero when the gesture caught
        /// an animation at some progress (design "interruptible").
        public var offset: Double
        public var progress: Double
        public var estimator: VelocityEstimator
        /// Driven by `drive` commands rather than by contacts.
        public var driven: Bool = false
        /// The highest progress reached.
        public var peak: Double = 0
        /// The touchscreen whose contacts drive it.
        public var source: Int = 0
        /// The snap point the gesture started from, s₀ (0 without snap points).
        public var start: Int = 0
        /// The progress its travel may show (0…1 without snap points).
        public var limits: ProgressLimits = .unit

        /// What the machine holds when nothing interacts.
        static let none = Interaction(ids: [], reference: GestureReference(centroidX: 0, centroidY: 0, spread: 0),
                                      offset: 0, progress: 0, estimator: VelocityEstimator())
    }

    public enum State: Sendable, Equatable {
        case idle
        case interacting(Interaction)
        case animating(CompletionAnimation, Decision)
    }

    // MARK: Actions

    public enum Action: Sendable, Equatable {
        case none
        /// A candidate started.
        case considered
        /// A touch-down passed over, or a candidate dropped, and why.
        case passedOver(Rejection)
        /// The transition begins (or an animation was caught) at `progress`;
        /// `ids` are the contacts it now owns.
        case began(progress: Double, ids: [Int])
        case changed(progress: Double, velocity: Double)
        /// The interaction ended with a decision. If `completesNow`, there is
        /// nothing to animate and `finished`/`cancelled` follows at once.
        case ended(progress: Double, velocity: Double, ending: Ending, reason: EndReason, completesNow: Bool,
                   peak: Double)
        /// One animation frame; `completes` is set on the last one.
        case animating(progress: Double, velocity: Double, target: Double, completes: Ending?)
        /// A `run` command started a non-interactive transition from
        /// `progress` (0, or the snap point it rests at): it began and ended
        /// at once with `ending`.
        case ran(progress: Double, ending: Ending, completesNow: Bool)
        /// Shutdown cut the transition short at `progress`: it ends (a
        /// cancel, or a snap back to where it rests) and settles at once,
        /// without an animation.
        case abandoned(progress: Double, ending: Ending)
        /// A command that the current state refuses (`busy`, `not-active`).
        case refused(code: CommandRefusal, message: String)
        /// An input that makes no sense in the current state: a bug, logged.
        case bug(String)
    }

    public private(set) var spec: TransitionSpec
    public let frameRate: Double
    /// Which state the machine is in. The data of that state is held beside
    /// it (`interaction`, `animation`) rather than in an enum payload, so
    /// that a frame updates it in place: taking a payload out and putting it
    /// back retained and released its arrays on every frame (docs/benchmarks.md,
    /// "Replay throughput"). `state` puts the three together for readers.
    public private(set) var phase: Phase = .idle
    /// The interaction while `phase == .interacting` (`Interaction.none`
    /// otherwise: not an optional, whose every check copied it).
    private var interaction: Interaction = .none
    /// The animation and its decision while `phase == .animating`.
    private var animation: CompletionAnimation? = nil
    private var animationEnding: Ending = .of(.cancel)
    /// The snap point it rests at (0 without snap points): the one it last
    /// settled on. A gesture continues from there.
    public internal(set) var rest: Int = 0

    /// The state without its data, for cheap checks on every frame.
    public enum Phase: Sendable, Equatable {
        case idle
        case interacting
        case animating
    }

    /// The state with its data.
    public var state: State {
        switch phase {
        case .idle:
            return .idle
        case .interacting:
            return .interacting(interaction)
        case .animating:
            guard let animation else { return .idle }
            return .animating(animation, animationEnding.decision)
        }
    }

    // MARK: Entering states

    private mutating func becomeIdle() {
        phase = .idle
        interaction = .none
        animation = nil
    }

    private mutating func startInteracting(_ new: Interaction) {
        phase = .interacting
        interaction = new
        animation = nil
    }

    private mutating func startAnimating(_ new: CompletionAnimation, _ ending: Ending) {
        phase = .animating
        animation = new
        animationEnding = ending
        interaction = .none
    }

    /// One recogniser per touchscreen (index = source), made when a
    /// source's first frame arrives: fingers on two panels never combine.
    public internal(set) var recognizers: [GestureRecognizer] = []

    /// `resting`: the snap point it rests at (kept across a reload that
    /// keeps its points, and new lengths).
    public init(spec: TransitionSpec, frameRate: Double, resting: Int = 0) {
        self.spec = spec
        self.frameRate = frameRate
        if let points = spec.snap?.points.points, points.indices.contains(resting) { rest = resting }
    }

    /// The recogniser of `source` (source 0's before any frame).
    public func recognizer(of source: Int = 0) -> GestureRecognizer {
        source < recognizers.count ? recognizers[source] : freshRecognizer()
    }

    private func freshRecognizer() -> GestureRecognizer {
        var recognizer = GestureRecognizer(kind: spec.gesture, activation: spec.activation, distance: spec.distance)
        recognizer.eitherWay = spec.snap?.bidirectional ?? false
        recognizer.anywhere = startsAnywhere
        return recognizer
    }

    /// Makes sure `source` has a recogniser.
    private mutating func ensureRecognizer(_ source: Int) {
        while recognizers.count <= source { recognizers.append(freshRecognizer()) }
    }

    /// Blocks the recognisers of sources with fingers down (they wait for
    /// them to lift) and starts the others afresh.
    private mutating func blockOrReset(fingersDown: [Int]) {
        for (source, count) in fingersDown.enumerated() where count > 0 { ensureRecognizer(source) }
        for source in recognizers.indices {
            if source < fingersDown.count && fingersDown[source] > 0 {
                recognizers[source].block()
            } else {
                recognizers[source].reset()
            }
        }
    }

    /// The time of the next animation frame, if animating.
    public var nextFrameTime: Double? {
        phase == .animating ? animation?.nextFrameTime : nil
    }

    /// True when neither interacting nor animating.
    public var isIdle: Bool { phase == .idle }

    /// True while a gesture drives the transition.
    public var isInteracting: Bool { phase == .interacting }

    /// The contacts the interaction owns (empty unless interacting).
    /// Takes other lengths (a panel's millimetres resolved) while idle: an
    /// idle machine has nothing begun under the old ones.
    mutating func takeLengths(of newSpec: TransitionSpec, frameRate: Double) {
        guard isIdle else { return }
        self = TransitionMachine(spec: newSpec, frameRate: frameRate, resting: rest)
    }

    /// Fingers already down when it is turned on do not start it: it waits
    /// for them to lift (per touchscreen: `fingersDown[source]`).
    mutating func ignoreFingersDown(_ fingersDown: [Int]) {
        blockOrReset(fingersDown: fingersDown)
    }

    public var ownedContacts: [Int] {
        phase == .interacting ? interaction.ids : []
    }

    /// The touchscreen whose contacts drive it (nil unless a finger drives it).
    public var ownedSource: Int? {
        guard phase == .interacting, !interaction.driven else { return nil }
        return interaction.source
    }

    // MARK: Inputs

    /// A touch frame. `free` are the contacts no transition has claimed;
    /// an interacting transition looks at its own contacts in `frame`.
    /// Animation frames up to `frame.time` must have been taken first.
    /// No gesture starts from a contact that touched down inside one of the
    /// `excluded` rectangles; an interaction under way is not affected.
    @inline(__always)
    public mutating func handleFrame(_ frame: TouchFrame, free: [Contact], excluded: [ScreenRect] = []) -> Action {
        switch phase {
        case .idle:
            return recognize(frame, free: free, excluded: excluded, catching: nil)
        case .animating:
            return recognize(frame, free: free, excluded: excluded, catching: spec.interruptible ? animation : nil)
        case .interacting:
            guard let action = Self.follow(&interaction, frame, gesture: spec.gesture, distance: spec.distance) else {
                return release(at: frame.time, reason: .released)
            }
            return action
        }
    }

    /// One frame for an interaction driven by its contacts, updated in
    /// place (its arrays stay uniquely referenced, nothing is copied): its
    /// progress, or nil when its contacts lifted.
    @inline(__always)
    private static func follow(_ interaction: inout Interaction, _ frame: TouchFrame,
                               gesture: GestureKind, distance: Double) -> Action? {
        if interaction.driven || interaction.source != frame.source { return Action.none }
        guard let current = owned(interaction.ids, in: frame.contacts) else { return nil }
        let travel = GestureTravel.measure(gesture, from: interaction.reference, to: current, distance: distance)
        let p = interaction.limits.apply(travel.progress + interaction.offset)
        let previous = interaction.progress
        interaction.estimator.add(time: frame.time, progress: p)
        interaction.progress = p
        interaction.peak = max(interaction.peak, p)
        if p == previous { return Action.none }
        return .changed(progress: p, velocity: interaction.estimator.releaseVelocity(at: frame.time))
    }

    /// Takes the next animation frame (the caller checks `nextFrameTime`).
    public mutating func handleAnimationTick() -> Action {
        switch phase {
        case .idle, .interacting:
            return .bug("animation tick while \(phase.name)")
        case .animating:
            guard animation != nil else { return lostData() }
            let frame = animation!.takeFrame()
            let target = animation!.target
            if frame.isLast {
                let ending = animationEnding
                becomeIdle()
                settle(ending)
                return .animating(progress: frame.progress, velocity: 0, target: target, completes: ending)
            }
            return .animating(progress: frame.progress, velocity: frame.velocity, target: target, completes: nil)
        }
    }

    /// The input is gone (device removed, recording ended), a command
    /// cancelled, or the daemon shuts down: an interaction ends with a
    /// cancel and no decision rule, and animates back.
    public mutating func handleCancel(at time: Double, reason: EndReason) -> Action {
        switch phase {
        case .idle, .animating:
            return .none
        case .interacting:
            return end(interaction, at: time, velocity: 0, ending: backToStart(interaction), reason: reason)
        }
    }

    // MARK: Commands

    /// `drive`: sets the progress like a finger would. The first drive
    /// begins the transition (catching its animation if it runs); later ones
    /// change it. A transition a finger drives is `busy`. `fingersDown`: the
    /// free contacts on the screen now, which may not start a gesture of this
    /// transition until they lift (a finger that touches down later may).
    public mutating func handleDrive(progress: Double, at time: Double, fingersDown: [Int] = []) -> Action {
        switch phase {
        case .idle, .animating:
            // Held within the snap points next to s₀, as a finger is (no rubber band: a drive says where it is).
            let start = startPoint(caught: phase == .animating ? animation : nil, at: time)
            var limits = spec.snap.map { ProgressLimits($0, start: start) } ?? .unit
            (limits.rubberLow, limits.rubberHigh) = (false, false)
            let p = limits.apply(clamp01(progress))
            var estimator = VelocityEstimator()
            estimator.add(time: time, progress: p)
            startInteracting(Interaction(ids: [], reference: GestureReference(centroidX: 0, centroidY: 0, spread: 0),
                                         offset: 0, progress: p, estimator: estimator, driven: true,
                                         start: start, limits: limits))
            blockOrReset(fingersDown: fingersDown)
            return .began(progress: p, ids: [])
        case .interacting:
            guard interaction.driven else {
                return .refused(code: .busy, message: "a gesture is driving \(spec.name)")
            }
            let p = interaction.limits.apply(clamp01(progress))
            let previous = interaction.progress
            interaction.estimator.add(time: time, progress: p)
            interaction.progress = p
            interaction.peak = max(interaction.peak, p)
            let velocity = interaction.estimator.releaseVelocity(at: time)
            return p == previous ? .none : .changed(progress: p, velocity: velocity)
        }
    }

    /// `release`: ends a driven transition by the decision rule, with the
    /// given velocity or, without one, the velocity estimated from the drives.
    public mutating func handleRelease(velocity: Double?, at time: Double) -> Action {
        switch phase {
        case .idle, .animating:
            return .refused(code: .notActive, message: "no command is driving \(spec.name)")
        case .interacting:
            guard interaction.driven else {
                return .refused(code: .busy, message: "a gesture is driving \(spec.name)")
            }
            let v = velocity ?? interaction.estimator.releaseVelocity(at: time)
            return end(interaction, at: time, velocity: v, ending: decide(interaction, velocity: v), reason: .released)
        }
    }

    /// Where a `run` goes: finish or cancel (for a transition with snap
    /// points, its last or its first point), or a snap point by index.
    public enum RunGoal: Sendable, Equatable {
        case decision(Decision)
        /// A snap point by its index.
        case point(Int)
        /// A snap point by its progress.
        case progress(Double)

        public static let finish = RunGoal.decision(.finish)
        public static let cancel = RunGoal.decision(.cancel)
    }

    /// `run`: a non-interactive transition from 0 (or the snap point it
    /// rests at) to the goal.
    public mutating func handleRun(to goal: RunGoal, at time: Double) -> Action {
        switch phase {
        case .idle:
            let ending: Ending
            switch (goal, spec.snap) {
            case (.decision(let decision), nil):
                ending = .of(decision)
            case (.point, nil), (.progress, nil):
                return .refused(code: .noSuchPoint, message: "\(spec.name) has no snap points (run it to finish or cancel)")
            case (_, let snap?):
                guard let index = point(of: goal, in: snap) else {
                    // As the wire writes them (six decimals), which `to` may give.
                    let points = snap.points.points.map { point -> String in
                        let text = "\((point * 1e6).rounded() / 1e6)"
                        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
                    }.joined(separator: ", ")
                    return .refused(code: .noSuchPoint, message: "\(spec.name) has no such snap point (its points: \(points), indices from 0)")
                }
                ending = .snap(to: index, of: snap.points, start: rest)
            }
            let from = restProgress
            let animation = CompletionAnimation(from: from, to: ending.target, at: time, velocity: 0,
                                                spec: spec, frameRate: frameRate)
            let completesNow = animation.isEmpty
            if completesNow {
                becomeIdle()
                settle(ending)
            } else {
                startAnimating(animation, ending)
            }
            return .ran(progress: from, ending: ending, completesNow: completesNow)
        case .interacting, .animating:
            return .refused(code: .busy, message: "\(spec.name) is already \(phase.name)")
        }
    }

    /// `cancel` command: ends an interaction (driven or by a finger) with a
    /// cancel and animates it back.
    public mutating func handleCancelCommand(at time: Double) -> Action {
        switch phase {
        case .idle, .animating:
            return .refused(code: .notActive, message: "\(spec.name) is not interactive now (\(phase.name))")
        case .interacting:
            return end(interaction, at: time, velocity: 0, ending: backToStart(interaction), reason: .command)
        }
    }

    /// The client driving the transition by commands went away: a driven
    /// interaction ends with a cancel (reason `client-lost`) and animates
    /// back. A finger's interaction, an animation or idle is not its to end.
    public mutating func handleDriverLost(at time: Double) -> Action {
        switch phase {
        case .idle, .animating:
            return .refused(code: .notActive, message: "no command is driving \(spec.name)")
        case .interacting:
            guard interaction.driven else {
                return .refused(code: .notActive, message: "a gesture, not a command, is driving \(spec.name)")
            }
            return end(interaction, at: time, velocity: 0, ending: backToStart(interaction), reason: .clientLost)
        }
    }

    /// A reload dropped or renamed this transition while it was in flight
    /// (`TransitionEngine.Command.orphaned`): an interaction, driven by a
    /// finger or by commands, ends with a cancel (reason `reload`) and
    /// animates back; an animation goes on to its end.
    public mutating func handleOrphaned(at time: Double) -> Action {
        switch phase {
        case .idle, .animating:
            return .refused(code: .notActive, message: "\(spec.name) is not interacting")
        case .interacting:
            return end(interaction, at: time, velocity: 0, ending: backToStart(interaction), reason: .reload)
        }
    }

    /// Shutdown: whatever is in flight is cancelled at once.
    public mutating func handleShutdown(at time: Double) -> Action {
        switch phase {
        case .idle:
            return .none
        case .interacting:
            let progress = interaction.progress
            becomeIdle()
            return .abandoned(progress: progress, ending: atRest)
        case .animating:
            let progress = animation?.sample(at: time).progress ?? 0
            becomeIdle()
            return .abandoned(progress: progress, ending: atRest)
        }
    }

    // MARK: Steps

    /// The phase says there is data that is not there: a bug. The machine
    /// goes idle so that it can take the next gesture.
    private mutating func lostData() -> Action {
        let what = "\(phase.name) without its data"
        becomeIdle()
        return .bug(what)
    }

    /// The reference (centroid, spread) of the owned contacts, or nil if any
    /// of them is gone.
    @inline(__always)
    static func owned(_ ids: [Int], in contacts: [Contact]) -> GestureReference? {
        if ids.count == 1 {
            for c in contacts where c.id == ids[0] {
                return GestureReference(centroidX: c.x, centroidY: c.y, spread: 0)
            }
            return nil
        }
        var current: [Contact] = []
        current.reserveCapacity(ids.count)
        for c in contacts where ids.contains(c.id) { current.append(c) }
        return current.count < ids.count ? nil : GestureReference(of: current)
    }

    /// True when a frame of `source` with `freeCount` free contacts can
    /// change nothing here: not interacting, and the source's recogniser
    /// would keep its state (`handleFrame` would return `.none`). The
    /// engine asks first and skips the frame: most frames are of no concern
    /// to most transitions.
    @inline(__always)
    public func ignoresFrame(of source: Int, freeCount: Int) -> Bool {
        phase != .interacting && source >= 0 && source < recognizers.count
            && recognizers[source].isUnchanged(byFrameOf: freeCount)
    }

    @inline(__always)
    private mutating func recognize(_ frame: TouchFrame, free: [Contact], excluded: [ScreenRect],
                                    catching animation: CompletionAnimation?) -> Action {
        let wasAnimating = phase == .animating
        guard frame.source >= 0 && frame.source < TouchFrame.maximumSources else { return .none }
        if ignoresFrame(of: frame.source, freeCount: free.count) { return .none }
        ensureRecognizer(frame.source)
        switch recognizers[frame.source].step(free: free, excluded: excluded) {
        case .none:
            return .none
        case .candidateStarted:
            return .considered
        case .refused(let why), .candidateDropped(let why):
            return .passedOver(why)
        case .begin(let ids, let reference, let travel):
            if wasAnimating && animation == nil {
                return .passedOver(.notInterruptible)
            }
            // From where it rests, or where the animation it caught was.
            var offset = restProgress
            if let animation { offset = animation.sample(at: frame.time).progress - travel.progress }
            let start = startPoint(caught: animation, at: frame.time)
            let limits = spec.snap.map { ProgressLimits($0, start: start) } ?? .unit
            let p = limits.apply(travel.progress + offset)
            var estimator = VelocityEstimator()
            estimator.add(time: frame.time, progress: p)
            startInteracting(Interaction(ids: ids, reference: reference, offset: offset,
                                         progress: p, estimator: estimator, peak: p, source: frame.source,
                                         start: start, limits: limits))
            return .began(progress: p, ids: ids)
        }
    }

    /// The fingers of the interaction lifted: the decision rule decides.
    private mutating func release(at time: Double, reason: EndReason) -> Action {
        let v = interaction.estimator.releaseVelocity(at: time)
        return end(interaction, at: time, velocity: v, ending: decide(interaction, velocity: v), reason: reason)
    }

    private mutating func end(_ interaction: Interaction, at time: Double, velocity: Double,
                              ending: Ending, reason: EndReason) -> Action {
        let animation = CompletionAnimation(from: interaction.progress, to: ending.target, at: time,
                                            velocity: velocity, spec: spec, frameRate: frameRate)
        let completesNow = animation.isEmpty
        if completesNow {
            becomeIdle()
            settle(ending)
        } else {
            startAnimating(animation, ending)
        }
        return .ended(progress: interaction.progress, velocity: velocity, ending: ending,
                      reason: reason, completesNow: completesNow, peak: max(interaction.peak, interaction.progress))
    }
}

extension TransitionMachine.State {
    /// A short name for traces.
    public var name: String {
        switch self {
        case .idle: return "idle"
        case .interacting: return "interacting"
        case .animating: return "animating"
        }
    }
}

extension TransitionMachine.Phase {
    /// A short name for traces.
    public var name: String {
        switch self {
        case .idle: return "idle"
        case .interacting: return "interacting"
        case .animating: return "animating"
        }
    }
}

@inline(__always)
func clamp01(_ x: Double) -> Double {
    x < 0 ? 0 : (x > 1 ? 1 : x)
}
