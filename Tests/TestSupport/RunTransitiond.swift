import Foundation

/// The result of running `transitiond` to completion.
public struct ProcessResult: Sendable {
    /// The exit status, or minus the signal number that ended it.
    public var status: Int32
    public var stdout: Data
    public var stderr: String
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var lines: [String] { stdoutText.split(separator: "\n").map(String.init) }
}

/// Runs `transitiond` with arguments (stdin closed) to completion; throws
/// if it does not finish within `timeout` seconds (it is then killed).
public func runTransitiond(_ arguments: [String], timeout: Double = 60) throws -> ProcessResult {
    let process = try DaemonProcess(arguments)
    guard let status = process.waitForExit(timeout: timeout) else {
        throw HarnessError("transitiond \(arguments) did not finish within \(timeout) s")
    }
    return ProcessResult(status: status, stdout: process.stdout, stderr: process.stderr)
}
