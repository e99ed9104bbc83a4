import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `transitiond` process running in the background, its stdout and stderr
/// collected as they arrive so a test can wait for a line.
final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    private let readers = DispatchGroup()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: ProjectPaths.binary)
        process.arguments = arguments
        process.currentDirectoryURL = ProjectPaths.root
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        collect(out.fileHandleForReading, isError: false)
        collect(err.fileHandleForReading, isError: true)
    }

    private func collect(_ handle: FileHandle, isError: Bool) {
        readers.enter()
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.lock()
                if isError { errData.append(chunk) } else { outData.append(chunk) }
                lock.unlock()
            }
            readers.leave()
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// Complete stdout lines so far.
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        let text = String(decoding: outData, as: UTF8.self)
        var parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()   // the unterminated rest (or "")
        return parts
    }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errData, as: UTF8.self)
    }

    /// Waits until a stdout line satisfies `predicate` (true) or the time
    /// runs out (false).
    func waitForLine(timeout: Double, _ predicate: (String) -> Bool) -> Bool {
        waitForLines(timeout: timeout) { $0.contains(where: predicate) }
    }

    /// Waits until the stdout lines so far satisfy `condition` (true), the
    /// process ends without them doing so, or the time runs out (false).
    func waitForLines(timeout: Double, _ condition: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(lines) { return true }
            if !process.isRunning {
                readers.wait()
                return condition(lines)
            }
            usleep(10_000)
        }
        return false
    }

    func signal(_ number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    /// Waits for the process to exit (bounded; killed if it does not) and
    /// for its output to be read; returns the exit status, or nil on timeout.
    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            readers.wait()
            return nil
        }
        process.waitUntilExit()
        readers.wait()
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }
}

/// Runs `transitiond` to completion and returns its stdout.
func transitiondOutput(_ arguments: [String]) -> String {
    guard let process = try? RunningProcess(arguments) else { return "" }
    _ = process.waitForExit(timeout: 60)
    return process.lines.joined(separator: "\n")
}
