import Foundation
import TestSupport
import Testing

/// A command whose output cannot be written (a full disk, a reader that
/// went away) stops at the first failed write and exits 74, saying why,
/// rather than running on or exiting 0. Real processes, real pipes and
/// /dev/full.
@Suite struct OutputFailureTests {
    /// `COMMAND` run by bash; the transitiond process's exit status (the
    /// first of a pipeline's) and its stderr.
    private func shell(_ command: String) throws -> (status: Int32, stderr: String) {
        let errors = TemporaryDirectory(prefix: "out")
        defer { errors.remove() }
        let errFile = errors.file("stderr")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec 2>\(errFile); \(command); exit ${PIPESTATUS[0]}"]
        process.environment = ["PATH": "/usr/bin:/bin", "T": ProjectPaths.binary].merging(Sanitizer.childEnvironment) { $1 }
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? "")
    }

    @Test func checkConfigIntoAFullDiskExits74() throws {
        let result = try shell("\"$T\" check-config \(ProjectPaths.file("config/example.toml")) > /dev/full")
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("stdout: write failed: No space left on device"), "\(result.stderr)")
    }

    @Test func aReplayIntoAReaderThatLeavesStopsWith74() throws {
        // Thousands of loops: far more output than the pipe holds.
        let recording = ProjectPaths.file("Recordings/back-drag-finish.events")
        for flags in ["--fast --json", "--fast --explain", "--fast --json --explain"] {
            let result = try shell("\"$T\" replay \(recording) \(flags) --loop 100000 | head -c 10 > /dev/null")
            #expect(result.status == 74, "\(flags): \(result.stderr)")
            #expect(result.stderr.contains("the reader went away (broken pipe); stopped there"), "\(flags): \(result.stderr)")
        }
    }

    /// `subscribe | head -n 1` ends once head has its line, although the
    /// daemon sends nothing more (a replay waiting for a second client):
    /// subscribe notices the reader gone without a write. `timeout` bounds
    /// it; a subscriber that waited for the next event would end with 124.
    @Test func aSubscriberWhoseReaderLeftEndsWithoutWaitingForAnEvent() throws {
        let socket = temporarySocketPath("reader-left")
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "2", "--hold",
                                        ProjectPaths.file("Recordings/back-drag-finish.events")], socket: socket)
        try daemon.waitUntilListening()
        let result = try shell("timeout 20 \"$T\" subscribe --json --socket \(socket) | head -n 1 > /dev/null")
        #expect(result.status == 0, "\(result.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    @Test func aPlotOrAnExpectationFileIntoAFullDiskExits74() throws {
        let recording = ProjectPaths.file("Recordings/back-drag-finish.events")
        let plot = try shell("\"$T\" replay \(recording) --plot - > /dev/full")
        #expect(plot.status == 74, "\(plot.stderr)")
        let expect = try shell("\"$T\" verify \(recording) --expect - --write-expect > /dev/full")
        #expect(expect.status == 74, "\(expect.stderr)")
    }
}
