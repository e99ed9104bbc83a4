import Foundation
import TestSupport

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
