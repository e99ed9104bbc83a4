import Engine

/// What `transitiond tune` searches in an engine configuration: the
/// tunable keys (`TunedKey`) of each transition the labels name, in the
/// config's order, their values in the base config, and the configuration
/// with other values.
public struct TuningProblem: Sendable {
    public let base: [Double]
    public let parameters: [TunedParameter]
    private let configuration: EngineConfiguration
    /// The index in `configuration.transitions` of each parameter's transition.
    private let indices: [Int]

    /// A transition label names that the config has not.
    public struct UnknownTransition: Error, Sendable, CustomStringConvertible {
        public var name: String
        public var known: [String]
        public var description: String {
            "the labels name transition '\(name)', which the config does not have (it has "
                + (known.isEmpty ? "none" : known.joined(separator: ", ")) + ")"
        }
    }

    /// `labels`: the transition of every labelled gesture (repeats are fine).
    public init(engine: EngineConfiguration, labels: [String]) throws(UnknownTransition) {
        let names = engine.transitions.map(\.name)
        for label in labels where !names.contains(label) {
            throw UnknownTransition(name: label, known: names)
        }
        var parameters: [TunedParameter] = [], base: [Double] = [], indices: [Int] = []
        for (i, spec) in engine.transitions.enumerated() where labels.contains(spec.name) {
            for key in TunedKey.allCases {
                guard let value = key.value(in: spec) else { continue }
                parameters.append(TunedParameter(transition: spec.name, key: key))
                base.append(value)
                indices.append(i)
            }
        }
        configuration = engine
        self.parameters = parameters
        self.base = base
        self.indices = indices
    }

    /// The configuration with `values`, one per parameter.
    public func engine(with values: [Double]) -> EngineConfiguration {
        var copy = configuration
        for (p, value) in zip(parameters.indices, values) {
            parameters[p].key.set(value, in: &copy.transitions[indices[p]])
        }
        return copy
    }
}
