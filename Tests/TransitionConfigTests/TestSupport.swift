import Testing
@testable import TransitionConfig
import TransitionEngine

/// Config fragments whose line counts the tests rely on.
enum Fixture {
    /// Lines 1–4; the next key is on line 5.
    static let edgePan = "[[transition]]\nname = \"t\"\ngesture = \"edge-pan\"\nedge = \"left\"\n"
    /// Lines 1–4; the next key is on line 5.
    static let swipe = "[[transition]]\nname = \"t\"\ngesture = \"swipe\"\ndirection = \"up\"\n"
    /// Lines 1–4; the next key is on line 5.
    static let pinchIn = "[[transition]]\nname = \"t\"\ngesture = \"pinch\"\ndirection = \"in\"\n"
    /// Lines 1–5; the next key is on line 6.
    static let spring = edgePan + "completion_curve = \"spring\"\n"
    /// Lines 1–6 (a keyframe `p` of transition `t`); the next key is on line 7.
    static let keyframe = edgePan + "[[transition.keyframe]]\nproperty = \"p\"\n"
}

/// Parses `text`, recording an issue unless it fails with a `ConfigError`.
func parseError(_ text: String, file: String = "test.toml",
                sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
    do {
        let config = try ConfigLoader.parse(text: text, file: file)
        Issue.record("expected a ConfigError, parsed \(config)", sourceLocation: sourceLocation)
    } catch let error as ConfigError {
        return error
    } catch {
        Issue.record("expected a ConfigError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Expects `text` to fail on `line`, about `key`, with a message containing `fragment`.
func expectError(_ text: String, line: Int, key: String?, _ fragment: String,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error = parseError(text, sourceLocation: sourceLocation) else { return }
    #expect(error.file == "test.toml", sourceLocation: sourceLocation)
    #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
}

/// Parses text that must be valid.
func parseValid(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> EngineConfiguration {
    do {
        return try ConfigLoader.parse(text: text, file: "test.toml")
    } catch {
        Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Parses text that must be valid, the daemon's tables included.
func parseDaemonValid(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> DaemonConfiguration {
    do {
        return try ConfigLoader.parseDaemon(text: text, file: "test.toml")
    } catch {
        Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}
