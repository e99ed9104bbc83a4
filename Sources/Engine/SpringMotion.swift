// The engine's one import beyond the standard library: libm's exp, sin and
// cos, which the spring's closed form needs. No I/O, no clock.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A damped harmonic oscillator of mass 1 pulling a displacement to zero:
/// the `spring` completion curve. Closed-form, so any time can be evaluated
/// directly and the result does not depend on the frame rate.
public struct SpringMotion: Sendable, Equatable {
    public let dampingRatio: Double
    public let stiffness: Double
    /// Displacement from the target at τ = 0.
    public let initialDisplacement: Double
    /// d(displacement)/dτ at τ = 0.
    public let initialVelocity: Double

    public init(dampingRatio: Double, stiffness: Double, initialDisplacement: Double, initialVelocity: Double) {
        self.dampingRatio = dampingRatio
        self.stiffness = stiffness
        self.initialDisplacement = initialDisplacement
        self.initialVelocity = initialVelocity
    }

    /// Displacement and its rate of change at spring time τ.
    public func state(at tau: Double) -> (displacement: Double, velocity: Double) {
        let w0 = stiffness.squareRoot()
        let zeta = dampingRatio
        let x0 = initialDisplacement
        let v0 = initialVelocity
        if abs(zeta - 1) < 1e-9 {
            // critically damped: x = e^{-w0 t}(x0 + (v0 + w0 x0) t)
            let b = v0 + w0 * x0
            let e = exp(-w0 * tau)
            let x = e * (x0 + b * tau)
            let v = e * (b - w0 * (x0 + b * tau))
            return (x, v)
        } else if zeta < 1 {
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            let a = x0
            let b = (v0 + zeta * w0 * x0) / wd
            let e = exp(-zeta * w0 * tau)
            let c = cos(wd * tau), s = sin(wd * tau)
            let x = e * (a * c + b * s)
            let v = e * ((b * wd - zeta * w0 * a) * c - (a * wd + zeta * w0 * b) * s)
            return (x, v)
        } else {
            let root = (zeta * zeta - 1).squareRoot()
            let r1 = -w0 * (zeta - root)
            let r2 = -w0 * (zeta + root)
            let c2 = (v0 - r1 * x0) / (r2 - r1)
            let c1 = x0 - c2
            let e1 = exp(r1 * tau), e2 = exp(r2 * tau)
            return (c1 * e1 + c2 * e2, c1 * r1 * e1 + c2 * r2 * e2)
        }
    }
}
