import TestSupport
import Testing
@testable import TransitionConfig
import Engine

/// Parses `text`: it must either give a configuration that renders and parses
/// back to itself, or throw a `ConfigError` with the file and a line. The
/// daemon entry points are used: they read `[server]` too and share the
/// engine-only ones' reader, validator and builder.
private func checkNeverCrashes(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let config = try ConfigLoader.parseDaemonTyped(text: text, file: "fuzz.toml")
        let again = try ConfigLoader.parseDaemonTyped(text: ConfigLoader.render(config), file: "again.toml")
        #expect(again == config, "render round trip of\n\(text)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.file == "fuzz.toml", "\(error)", sourceLocation: sourceLocation)
        #expect(error.line != nil, "\(error)", sourceLocation: sourceLocation)
    }
}

private let example = (try? ConfigFile.read(path: ProjectPaths.file("config/example.toml"))) ?? ""

@Test func randomBytesNeverCrash() {
    var random = SeededRandom(seed: 0x7472_616E_7369_7469)
    for _ in 0..<2000 {
        let bytes = (0..<random.below(120)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        checkNeverCrashes(String(decoding: bytes, as: UTF8.self))
    }
}

@Test func randomTomlishTextNeverCrashes() {
    let alphabet = Array("[[]]\n\n\r\"'#=.,_-+ \t\\uU0123456789eEinfatrsu{}transitionkeyframenamegestureedgeswipeserversocket")
        .map(String.init)
    var random = SeededRandom(seed: 42)
    for _ in 0..<3000 {
        let text = (0..<random.below(80)).map { _ in alphabet[random.below(alphabet.count)] }.joined()
        checkNeverCrashes(text)
    }
}

@Test func everyTruncationOfTheExampleNeverCrashes() {
    let bytes = Array(example.utf8)
    #expect(bytes.count > 1000)
    for end in 0...bytes.count {
        checkNeverCrashes(String(decoding: bytes[..<end], as: UTF8.self))
    }
}

@Test func mutationsOfTheExampleNeverCrash() {
    let bytes = Array(example.utf8)
    let interesting = Array("[]\"'#=.,_-\n\r\\0 9e".utf8)
    var random = SeededRandom(seed: 2024)
    for _ in 0..<1500 {
        var mutated = bytes
        for _ in 0..<(1 + random.below(3)) {
            let index = random.below(mutated.count)
            switch random.below(3) {
            case 0: mutated[index] = interesting[random.below(interesting.count)]
            case 1: mutated.remove(at: index)
            default: mutated.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
            }
        }
        checkNeverCrashes(String(decoding: mutated, as: UTF8.self))
    }
}
