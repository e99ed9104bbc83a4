/// Where a gesture's contacts were when its candidate started: the reference
/// its travel is measured from.
public struct GestureReference: Sendable, Equatable {
    public var centroidX: Double
    public var centroidY: Double
    /// Mean distance of the contacts from their centroid (for pinch).
    public var spread: Double

    public init(centroidX: Double, centroidY: Double, spread: Double) {
        self.centroidX = centroidX
        self.centroidY = centroidY
        self.spread = spread
    }

    /// The reference of a set of contacts (which must not be empty).
    public init<C: Collection>(of contacts: C) where C.Element == Contact {
        var sx = 0.0, sy = 0.0
        for c in contacts { sx += c.x; sy += c.y }
        let n = Double(contacts.count)
        let cx = sx / n, cy = sy / n
        var r = 0.0
        for c in contacts {
            let dx = c.x - cx, dy = c.y - cy
            r += (dx * dx + dy * dy).squareRoot()
        }
        self.init(centroidX: cx, centroidY: cy, spread: r / n)
    }
}

/// The travel of a gesture since its reference (design "Gestures"):
/// `inward` is d (along the gesture's axis, in normalised units), `sideways`
/// is q (perpendicular), `progress` is p before clamping.
public struct GestureTravel: Sendable, Equatable {
    public var inward: Double
    public var sideways: Double
    public var progress: Double

    public init(inward: Double, sideways: Double, progress: Double) {
        self.inward = inward
        self.sideways = sideways
        self.progress = progress
    }

    /// Measures `current` against `reference` for a gesture kind.
    ///
    /// Pinch has no axis: d is the change of spread (mean distance from the
    /// centroid) in the pinch's direction and q the centroid's displacement,
    /// both in normalised units, so that a two-finger pan is rejected the way
    /// a sideways edge-pan is; p = (1 − s) ÷ distance (in) or (s − 1) ÷
    /// distance (out), with s = spread ÷ starting spread.
    public static func measure(_ kind: GestureKind, from reference: GestureReference,
                               to current: GestureReference, distance: Double) -> GestureTravel {
        let dx = current.centroidX - reference.centroidX
        let dy = current.centroidY - reference.centroidY
        let d: Double, q: Double
        switch kind {
        case .edgePan(let edge, _, _, _):
            switch edge {
            case .left: d = dx; q = abs(dy)
            case .right: d = -dx; q = abs(dy)
            case .top: d = dy; q = abs(dx)
            case .bottom: d = -dy; q = abs(dx)
            }
        case .swipe(let direction, _):
            switch direction {
            case .right: d = dx; q = abs(dy)
            case .left: d = -dx; q = abs(dy)
            case .down: d = dy; q = abs(dx)
            case .up: d = -dy; q = abs(dx)
            }
        case .pinch(let direction):
            let change = current.spread - reference.spread
            let s = reference.spread > 1e-12 ? current.spread / reference.spread : 1
            let moved = (dx * dx + dy * dy).squareRoot()
            switch direction {
            case .in: return GestureTravel(inward: -change, sideways: moved, progress: (1 - s) / distance)
            case .out: return GestureTravel(inward: change, sideways: moved, progress: (s - 1) / distance)
            }
        }
        return GestureTravel(inward: d, sideways: q, progress: d / distance)
    }
}

extension GestureKind {
    /// True if a touch-down at (x, y) may start this gesture (the edge
    /// condition of edge-pan; always true for the others).
    public func acceptsTouchDown(x: Double, y: Double) -> Bool {
        switch self {
        case .edgePan(let edge, _, let margin, let range):
            switch edge {
            case .left: return x <= margin && range.contains(y)
            case .right: return x >= 1 - margin && range.contains(y)
            case .top: return y <= margin && range.contains(x)
            case .bottom: return y >= 1 - margin && range.contains(x)
            }
        case .swipe, .pinch:
            return true
        }
    }
}
