import Engine

/// A key of a `[[transition]]` that `transitiond tune` searches: the ones a
/// kiosk tunes to its users' hands. Each knows its valid range (the
/// config's, `ConfigSchema.swift`) and the scale it is searched on.
public enum TunedKey: Sendable, CaseIterable {
    case finishThreshold, flickVelocity, edgeMargin

    /// The config's name of it, spelled only in its declaration.
    public var name: String { declaration.name }

    /// The values searched. The config's range is `0…1`, `(0, 1000]` and
    /// `(0, 0.5]`; an open end is searched from a small value instead, since
    /// 0 itself is not valid.
    public var range: ClosedRange<Double> {
        switch self {
        case .finishThreshold: return 0...1
        // Below 0.01 screens a second every release is a flick; above 100 none is.
        case .flickVelocity: return 0.01...100
        case .edgeMargin: return 0.005...0.5
        }
    }

    /// Velocities span decades: a flick band of 0.2 against 0.4 is as far
    /// apart as 2 against 4, so they are searched, and margins measured, in logarithms.
    public var isLogarithmic: Bool {
        switch self {
        case .flickVelocity: return true
        case .finishThreshold, .edgeMargin: return false
        }
    }

    /// Its declaration in the config's schema, which writes its line.
    var declaration: ConfigKey<Double> {
        switch self {
        case .finishThreshold: return TransitionKeys.finishThreshold
        case .flickVelocity: return TransitionKeys.flickVelocity
        case .edgeMargin: return TransitionKeys.edgeMargin
        }
    }

    /// The key's value in `spec`; nil when the transition has no such key
    /// (an edge margin of a swipe) or gives it in millimetres (`edge_margin_mm`).
    public func value(in spec: TransitionSpec) -> Double? {
        switch self {
        case .finishThreshold: return spec.finishThreshold
        case .flickVelocity: return spec.flickVelocity
        case .edgeMargin:
            guard spec.physical.edgeMarginMM == nil else { return nil }
            switch spec.gesture {
            case .edgePan(_, _, let margin, _): return margin
            case .swipe, .pinch: return nil
            }
        }
    }

    /// Sets the key in `spec` (nothing for a key it has not: `value(in:)` is nil).
    public func set(_ value: Double, in spec: inout TransitionSpec) {
        switch self {
        case .finishThreshold: spec.finishThreshold = value
        case .flickVelocity: spec.flickVelocity = value
        case .edgeMargin:
            switch spec.gesture {
            case .edgePan(let edge, let fingers, _, let range):
                spec.gesture = .edgePan(edge: edge, fingers: fingers, edgeMargin: value, range: range)
            case .swipe, .pinch: break
            }
        }
    }
}

/// One value `tune` searches: a key of a named transition.
public struct TunedParameter: Sendable, Equatable {
    public var transition: String
    public var key: TunedKey

    public init(transition: String, key: TunedKey) {
        self.transition = transition
        self.key = key
    }
}
