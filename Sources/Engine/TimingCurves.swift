// MARK: - Cubic Bézier timing functions

/// A CSS/UIKit-style timing function: a cubic Bézier from (0,0) to (1,1)
/// with control points (x1,y1) and (x2,y2).
public struct CubicBezier: Sendable, Equatable {
    public var x1: Double, y1: Double, x2: Double, y2: Double

    public init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        self.x1 = x1; self.y1 = y1; self.x2 = x2; self.y2 = y2
    }

    @inline(__always)
    private static func coordinate(_ s: Double, _ a: Double, _ b: Double) -> Double {
        // B(s) = 3(1-s)²s·a + 3(1-s)s²·b + s³
        let r = 1 - s
        return 3 * r * r * s * a + 3 * r * s * s * b + s * s * s
    }

    @inline(__always)
    private static func derivative(_ s: Double, _ a: Double, _ b: Double) -> Double {
        let r = 1 - s
        return 3 * r * r * a + 6 * r * s * (b - a) + 3 * s * s * (1 - b)
    }

    /// The curve parameter s where x(s) = u (u in 0…1): Newton, then bisection.
    private func parameter(forX u: Double) -> Double {
        var s = u
        for _ in 0..<8 {
            let error = Self.coordinate(s, x1, x2) - u
            if abs(error) < 1e-12 { return s }
            let slope = Self.derivative(s, x1, x2)
            if abs(slope) < 1e-9 { break }
            s -= error / slope
            if s < 0 || s > 1 { break }
        }
        var lo = 0.0, hi = 1.0
        s = u
        for _ in 0..<60 {
            let x = Self.coordinate(s, x1, x2)
            if abs(x - u) < 1e-12 { return s }
            if x < u { lo = s } else { hi = s }
            s = (lo + hi) / 2
        }
        return s
    }

    /// y for x = u, u clamped to 0…1.
    public func value(at u: Double) -> Double {
        if u <= 0 { return 0 }
        if u >= 1 { return 1 }
        return Self.coordinate(parameter(forX: u), y1, y2)
    }

    /// dy/dx at x = u.
    public func slope(at u: Double) -> Double {
        let s = parameter(forX: min(max(u, 0), 1))
        let dx = Self.derivative(s, x1, x2)
        let dy = Self.derivative(s, y1, y2)
        if abs(dx) < 1e-12 { return dy >= 0 ? 1e12 : -1e12 }
        return dy / dx
    }
}

extension TimingCurve {
    /// The Bézier of design "Completion"; nil for linear.
    public var bezier: CubicBezier? {
        switch self {
        case .linear: return nil
        case .easeIn: return CubicBezier(0.42, 0, 1, 1)
        case .easeOut: return CubicBezier(0, 0, 0.58, 1)
        case .easeInOut: return CubicBezier(0.42, 0, 0.58, 1)
        }
    }

    /// The curve's value at u (u clamped to 0…1).
    public func value(at u: Double) -> Double {
        guard let bezier else { return min(max(u, 0), 1) }
        return bezier.value(at: u)
    }

    /// The curve's slope at u.
    public func slope(at u: Double) -> Double {
        guard let bezier else { return 1 }
        return bezier.slope(at: u)
    }
}
