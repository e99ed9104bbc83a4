import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `transitiond` process run for a test (a daemon, `subscribe`, or any
/// command): started with arguments in the repository root, stdin closed,
/// its stdout and stderr collected as they arrive (readable while it runs),
/// waited on with bounds and stopped with a signal. Terminated on deinit if
/// still running.
public final class DaemonProcess: @unchecked Sendable {
    public let process = Process()
    /// The socket path the daemon was told to serve on, if any.
    public let socket: String?
    private let output: PipeReader
    private let errors: PipeReader

    /// `environment`: variables set on top of this process's (nil: none).
    /// `launcher`: a program that runs the binary (`systemd-socket-activate
    /// -l PATH`): it is started with its arguments, then the binary's path,
    /// then `arguments`.
    public init(_ arguments: [String], socket: String? = nil, environment: [String: String]? = nil,
                launcher: [String]? = nil) throws {
        self.socket = socket
        let overrides = Sanitizer.childEnvironment.merging(environment ?? [:]) { $1 }
        if let launcher, let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            // systemd-socket-activate gives the program it launches only the
            // environment it is told (as systemd does): the sanitizers'
            // options (leak suppressions, where reports go) are told by name.
            let passed = program.hasSuffix("/systemd-socket-activate") ? overrides.keys.sorted().map { "--setenv=" + $0 } : []
            process.arguments = Array(launcher.dropFirst()) + passed + [ProjectPaths.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: ProjectPaths.binary)
            process.arguments = arguments
        }
        if !overrides.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(overrides) { $1 }
        }
        process.currentDirectoryURL = ProjectPaths.root
        process.standardInput = FileHandle.nullDevice
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        output = PipeReader(out)
        errors = PipeReader(err)
    }

    public var pid: Int32 { process.processIdentifier }

    /// Everything written to stdout so far.
    public var stdout: Data { output.data }

    /// Complete stdout lines so far (an unterminated last line is left out).
    public var lines: [String] {
        var parts = output.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast()   // the unterminated rest (or "")
        return parts
    }

    /// What was written to stderr so far (all of it after `waitForExit`).
    public var stderr: String { errors.text }

    /// Waits until the daemon serves on `socket`: the socket file is there
    /// and the daemon has logged `serving <socket>` (written once the socket
    /// is bound, listening and has its mode). Does not connect, so no client
    /// is counted. Throws if the daemon exits first or the time runs out.
    public func waitUntilListening(timeout: Double = 20) throws {
        guard let socket else { throw HarnessError("no socket was given to wait on") }
        var exited = false
        let serving = waitUntil(timeout: timeout, pollingEvery: 0.02) {
            var info = stat()
            if lstat(socket, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK && stderr.contains("serving \(socket)") {
                return true
            }
            exited = !process.isRunning
            return exited
        }
        if exited { throw HarnessError("the daemon exited early: \(stderr)") }
        if !serving { throw HarnessError("the daemon did not serve on \(socket) within \(timeout) s: \(stderr)") }
    }

    /// Waits until the stdout lines so far satisfy `condition` (true), or
    /// the process ends without them doing so, or the time runs out (false).
    public func waitForLines(timeout: Double, _ condition: ([String]) -> Bool) -> Bool {
        var ended = false
        let met = waitUntil(timeout: timeout) {
            if condition(lines) { return true }
            ended = !process.isRunning
            return ended
        }
        if ended {
            output.waitForEnd(timeout: 10)
            return condition(lines)
        }
        return met
    }

    /// Waits until a stdout line satisfies `predicate` (see `waitForLines`).
    public func waitForLine(timeout: Double, _ predicate: (String) -> Bool) -> Bool {
        waitForLines(timeout: timeout) { $0.contains(where: predicate) }
    }

    /// Waits for the process to exit and its output to be read; returns
    /// the exit status (minus the signal number if a signal ended it), or
    /// nil if it did not exit within `timeout` seconds (it is then killed).
    @discardableResult
    public func waitForExit(timeout: Double = 20) -> Int32? {
        let exited = waitUntil(timeout: timeout) { !process.isRunning }
        if !exited { kill(pid, SIGKILL) }
        process.waitUntilExit()
        output.waitForEnd(timeout: 10)
        errors.waitForEnd(timeout: 10)
        guard exited else { return nil }
        return process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
    }

    /// Sends signal `number`, if the process is still running.
    public func signal(_ number: Int32) {
        if process.isRunning { kill(pid, number) }
    }

    /// Open descriptors of the process (-1 once it is gone).
    public func openFileCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// A field of /proc/PID/status in kB (VmRSS, VmHWM); -1 if unknown.
    public func memoryKB(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
