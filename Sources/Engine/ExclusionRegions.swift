/// A rectangle on the screen, in screen units (0…1 from the left and the
/// top, after the panel's geometry: the space of the engine's frames). The
/// UI declares such rectangles as exclusion regions (the `exclude`
/// command, Android's `setSystemGestureExclusionRects`): no transition
/// starts from a touch that begins inside one.
public struct ScreenRect: Sendable, Equatable, Hashable {
    public var x0: Double
    public var y0: Double
    public var x1: Double
    public var y1: Double

    public init(x0: Double, y0: Double, x1: Double, y1: Double) {
        (self.x0, self.y0, self.x1, self.y1) = (x0, y0, x1, y1)
    }

    /// Whether (x, y) is inside, its border included.
    @inline(__always)
    public func contains(x: Double, y: Double) -> Bool {
        x >= x0 && x <= x1 && y >= y0 && y <= y1
    }
}

/// How much of each screen edge the exclusion regions in force may cover
/// (`[input] max_edge_exclusion`; Android caps its exclusions so that back
/// always works). A region counts for an edge when it comes within the
/// edge's margin of it (left: `x0 <= margin`; right: `x1 >= 1 - margin`;
/// top: `y0 <= margin`; bottom: `y1 >= 1 - margin`), where the margin is
/// the largest `edge_margin` of the configured edge-pans on that edge (0.05,
/// the default `edge_margin`, on an edge without one). What it covers is
/// the length of the union of those regions' spans along the edge (their
/// y spans for the left and right edges, x spans for the top and bottom),
/// as a fraction of the edge's length; it may be at most `fraction`.
public struct EdgeExclusionCap: Sendable, Equatable {
    /// `max_edge_exclusion`: 0…1 of each edge.
    public var fraction: Double
    /// Per edge, the distance from it within which a region counts.
    public var margins: [Edge: Double]

    /// The margin of an edge no edge-pan starts from.
    public static let defaultMargin = 0.05

    public init(fraction: Double, margins: [Edge: Double] = [:]) {
        self.fraction = fraction
        self.margins = margins
    }

    /// The cap for `configuration`'s edge-pans (their largest margin per edge).
    public init(fraction: Double, configuration: EngineConfiguration) {
        var margins: [Edge: Double] = [:]
        for spec in configuration.transitions {
            if case .edgePan(let edge, _, let margin, _) = spec.gesture { margins[edge] = max(margins[edge] ?? 0, margin) }
        }
        self.init(fraction: fraction, margins: margins)
    }

    /// The margin in force on `edge`.
    public func margin(of edge: Edge) -> Double { margins[edge] ?? Self.defaultMargin }

    /// The fraction of `edge` the regions cover (see the type).
    public func coverage(of rects: [ScreenRect], on edge: Edge) -> Double {
        let margin = margin(of: edge)
        var spans: [(Double, Double)] = []
        for r in rects {
            let touches: Bool
            switch edge {
            case .left: touches = r.x0 <= margin
            case .right: touches = r.x1 >= 1 - margin
            case .top: touches = r.y0 <= margin
            case .bottom: touches = r.y1 >= 1 - margin
            }
            guard touches else { continue }
            spans.append(edge == .left || edge == .right ? (r.y0, r.y1) : (r.x0, r.x1))
        }
        spans.sort { $0.0 < $1.0 }
        var covered = 0.0
        var current: (Double, Double)? = nil
        for span in spans {
            if let c = current, span.0 <= c.1 {
                current = (c.0, max(c.1, span.1))
            } else {
                if let c = current { covered += c.1 - c.0 }
                current = span
            }
        }
        if let c = current { covered += c.1 - c.0 }
        return covered
    }

    /// The first edge (left, right, top, bottom) the regions cover more of
    /// than `fraction`, with what they cover; nil when none.
    public func violation(by rects: [ScreenRect]) -> (edge: Edge, covered: Double)? {
        for edge in Edge.allCases {
            let covered = coverage(of: rects, on: edge)
            // A hair of rounding is not over the cap.
            if covered > fraction + 1e-9 { return (edge, covered) }
        }
        return nil
    }
}
