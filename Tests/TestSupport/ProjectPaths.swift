import Foundation

/// Where the project's files are, found from this source file's location,
/// and the `transitiond` binary that `swift test` built beside the tests.
/// Shared by the test targets that run the real binary.
public enum ProjectPaths {
    /// The repository root.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func file(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The third-party recordings handed to the project (beside the checkout).
    public static let shared: String = {
        if let env = ProcessInfo.processInfo.environment["TRANSITIOND_SHARED_RECORDINGS"] { return env }
        return root.deletingLastPathComponent().appendingPathComponent("shared/recordings").path
    }()

    public static var hasShared: Bool { FileManager.default.fileExists(atPath: shared + "/evemu-devices") }

    public static func sharedFile(_ relative: String) -> String { shared + "/" + relative }

    /// The project's own recordings.
    public static var ownRecordings: [String] {
        let dir = file("Recordings")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".events") }.sorted()
    }

    /// The built `transitiond` executable: beside the test bundle, else in
    /// the repository's build folders.
    public static let binary: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("transitiond").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        for build in [".build", ".build-client"] {
            for configuration in ["debug", "release"] {
                let candidate = file("\(build)/\(configuration)/transitiond")
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return "transitiond"
    }()
}
