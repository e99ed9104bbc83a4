import TransitionEngine
import TransitionConfig

/// Loads `--config FILE`, or the embedded default when there is none.
func loadConfiguration(_ path: String?) throws -> EngineConfiguration {
    guard let path else { return .standard }
    guard fileExists(path) else { throw Failure(.noInput, "\(path): no such config file") }
    do {
        return try ConfigLoader.load(path: path)
    } catch let error as ConfigError {
        throw Failure(.dataError, error.description)
    }
}
