/// A transition's snap points in its machine: where it rests, where a
/// gesture starts from (s₀), and where an end goes (`Ending`), by the rules
/// of `SnapPoints`; without snap points, finish or cancel as before.
extension TransitionMachine {
    /// Settled on `ending`'s target: a snap point becomes where it rests.
    mutating func settle(_ ending: Ending) {
        guard let index = ending.index, index != rest else { return }
        rest = index
        let anywhere = startsAnywhere
        for s in recognizers.indices { recognizers[s].anywhere = anywhere }
    }

    /// Rests where `other` (the same transition under an earlier config)
    /// does, if their snap points are the same.
    mutating func takeRest(of other: TransitionMachine) {
        guard let snap = spec.snap, snap.points == other.spec.snap?.points else { return }
        settle(.snap(to: other.rest, of: snap.points, start: other.rest))
    }

    /// A bidirectional transition resting away from its first point starts
    /// from a touch-down anywhere (the edge rule applies only at the first).
    var startsAnywhere: Bool {
        (spec.snap?.bidirectional ?? false) && rest != 0
    }

    /// The progress of the point it rests at (0 without snap points).
    public var restProgress: Double {
        spec.snap?.points.points[rest] ?? 0
    }

    /// Whether a touch-down at (x, y) may start its gesture now.
    public func acceptsTouchDown(x: Double, y: Double) -> Bool {
        startsAnywhere || spec.gesture.acceptsTouchDown(x: x, y: y)
    }

    /// The index of the snap point a `run` goes to (nil: it has none such).
    func point(of goal: RunGoal, in snap: SnapSettings) -> Int? {
        let points = snap.points.points
        switch goal {
        case .decision(.finish): return points.count - 1
        case .decision(.cancel): return 0
        case .decision(.snap): return rest
        case .point(let index): return points.indices.contains(index) ? index : nil
        case .progress(let p): return snap.points.index(of: p)
        }
    }

    /// The decision rule at release: finish or cancel (design "Decision"),
    /// or, with snap points, their release rule (`SnapPoints.target`).
    func decide(_ interaction: Interaction, velocity v: Double) -> Ending {
        guard let snap = spec.snap else {
            return .of(Decision.decide(progress: interaction.progress, velocity: v,
                                       flickVelocity: spec.flickVelocity, finishThreshold: spec.finishThreshold))
        }
        let target = snap.points.target(progress: interaction.progress, velocity: v, start: interaction.start,
                                        flickVelocity: spec.flickVelocity, decelerationRate: snap.decelerationRate,
                                        longSwipes: snap.longSwipes)
        return Ending(decision: .snap, target: target.progress, index: target.index, start: interaction.start,
                      projected: target.projected, leftStart: target.leftStart)
    }

    /// An end with no rule (a command, a lost device): a cancel, or back to s₀.
    func backToStart(_ interaction: Interaction) -> Ending {
        guard let snap = spec.snap else { return .of(.cancel) }
        return .snap(to: interaction.start, of: snap.points, start: interaction.start)
    }

    /// Where it rests, as an ending (shutdown's): a cancel without snap points.
    var atRest: Ending {
        guard let snap = spec.snap else { return .of(.cancel) }
        return .snap(to: rest, of: snap.points, start: rest)
    }

    /// s₀ of a gesture: the point it rests at, or, catching an animation,
    /// the point nearest the progress where it caught it.
    func startPoint(caught animation: CompletionAnimation?, at time: Double) -> Int {
        guard let snap = spec.snap else { return 0 }
        guard let animation else { return rest }
        return snap.points.nearest(to: animation.sample(at: time).progress)
    }
}
