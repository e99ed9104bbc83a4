import Engine

/// One transition's rejections, summed up by kind for `ExplanationSummary`:
/// each kind's count and first instance, and for touch-downs outside an
/// edge margin the one nearest the edge (how far off the gesture was).
struct RejectionGroups {
    private struct Group {
        var first: Rejection
        var count: Int
        /// For `outsideEdge`: the place nearest the edge, and its distance from it.
        var nearest: (at: Double, distance: Double)?
    }

    /// In the order each kind first came; a handful at most.
    private var groups: [Group] = []

    var isEmpty: Bool { groups.isEmpty }

    mutating func add(_ why: Rejection) {
        let nearest = Self.distance(why)
        if let index = groups.firstIndex(where: { Self.sameKind($0.first, why) }) {
            groups[index].count += 1
            if let nearest, nearest.distance < groups[index].nearest?.distance ?? .infinity {
                groups[index].nearest = nearest
            }
        } else {
            groups.append(Group(first: why, count: 1, nearest: nearest))
        }
    }

    /// "none of the 3 touch-downs within the left edge margin 0.05 (nearest
    /// at x = 0.31)"; other kinds by their first instance and a count.
    func text(touchDowns: Int) -> String {
        groups.map { group in
            switch group.first {
            case .outsideEdge(let edge, _, let margin):
                let axis = edge == .left || edge == .right ? "x" : "y"
                let which = group.count >= touchDowns
                    ? (touchDowns == 1 ? "the touch-down was not" : "none of the \(touchDowns) touch-downs")
                    : "\(ExplanationSummary.count(group.count, "touch-down")) not"
                let nearest = group.nearest.map { " (nearest at \(axis) = \(Rejection.roundedText($0.at)))" } ?? ""
                return "\(which) within the \(edge.rawValue) edge margin \(Rejection.roundedText(margin))\(nearest)"
            case .outsideRange, .tooManyContacts, .liftedBeforeActivation, .contactsChanged, .sideways,
                 .notInterruptible, .disabled, .excluded:
                return group.first.text + (group.count > 1 ? " (\(group.count) times)" : "")
            }
        }.joined(separator: "; ")
    }

    private static func sameKind(_ a: Rejection, _ b: Rejection) -> Bool {
        // Touch-downs outside different edges or margins are different stories.
        if case .outsideEdge(let e1, _, let m1) = a, case .outsideEdge(let e2, _, let m2) = b {
            return e1 == e2 && m1 == m2
        }
        return a.kind == b.kind
    }

    /// How far a touch-down outside an edge margin was from the edge.
    private static func distance(_ why: Rejection) -> (at: Double, distance: Double)? {
        switch why {
        case .outsideEdge(let edge, let at, _):
            switch edge {
            case .left, .top: return (at, at)
            case .right, .bottom: return (at, 1 - at)
            }
        case .outsideRange, .tooManyContacts, .liftedBeforeActivation, .contactsChanged, .sideways,
             .notInterruptible, .disabled, .excluded:
            return nil
        }
    }
}
