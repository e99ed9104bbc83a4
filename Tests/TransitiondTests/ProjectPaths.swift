import Foundation

/// Where the project's files are, found from this source file's location,
/// and the `transitiond` binary that `swift test` built beside the tests.
enum ProjectPaths {
    /// The repository root.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func file(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// The third-party recordings handed to the project (beside the checkout).
    static let shared: String = {
        if let env = ProcessInfo.processInfo.environment["TRANSITIOND_SHARED_RECORDINGS"] { return env }
        return root.deletingLastPathComponent().appendingPathComponent("shared/recordings").path
    }()

    static var hasShared: Bool { FileManager.default.fileExists(atPath: shared + "/evemu-devices") }

    static func sharedFile(_ relative: String) -> String { shared + "/" + relative }

    /// The project's own recordings.
    static var ownRecordings: [String] {
        let dir = file("Recordings")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.filter { $0.hasSuffix(".events") }.sorted()
    }

    /// The built `transitiond` executable (beside the test bundle).
    static let binary: String = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("transitiond").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        // `swift test` from the repository root.
        for configuration in ["debug", "release"] {
            let candidate = file(".build/\(configuration)/transitiond")
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "transitiond"
    }()
}

/// The result of running the real `transitiond` process.
struct ProcessResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var lines: [String] { stdoutText.split(separator: "\n").map(String.init) }
}

/// Runs `transitiond` with arguments, stdin closed, and waits (bounded).
func runTransitiond(_ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ProjectPaths.binary)
    process.arguments = arguments
    process.currentDirectoryURL = ProjectPaths.root
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes to the end (a full pipe would block the child).
    let outData = PipeReader(out), errData = PipeReader(err)
    let group = DispatchGroup()
    for reader in [outData, errData] {
        group.enter()
        DispatchQueue.global().async { reader.readToEnd(); group.leave() }
    }
    if group.wait(timeout: .now() + timeout) == .timedOut {
        process.terminate()
        throw TimeoutError(arguments: arguments)
    }
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: outData.data,
                         stderr: String(decoding: errData.data, as: UTF8.self))
}

struct TimeoutError: Error { var arguments: [String] }

/// Reads one pipe to its end on another thread; `data` is read after the
/// reading thread has signalled completion.
final class PipeReader: @unchecked Sendable {
    private let pipe: Pipe
    private(set) var data = Data()
    init(_ pipe: Pipe) { self.pipe = pipe }
    func readToEnd() { data = pipe.fileHandleForReading.readDataToEndOfFile() }
}

/// A temporary file with the given contents, removed by the caller.
func temporaryFile(_ name: String, _ contents: [UInt8]) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("transitiond-tests-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent(name).path
    try Data(contents).write(to: URL(fileURLWithPath: path))
    return path
}

func temporaryFile(_ name: String, _ text: String) throws -> String {
    try temporaryFile(name, Array(text.utf8))
}
