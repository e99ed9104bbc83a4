import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import TestSupport
import Testing

/// What a config path may be (issue 26): the daemon's must be a regular
/// file, at start and at every reload, for it is read again at each one —
/// a FIFO as its config once held a reload on the server's loop (no
/// replies, SIGTERM unheard) until something wrote it. A command that
/// reads its config once takes a pipe or a FIFO too (`check-config -`,
/// `<(…)`), within 5 s. Real processes, real FIFOs, bounded waits.
@Suite(.serialized) struct ConfigSourceTests {
    static let config = """
        [[transition]]
        name = "back"
        gesture = "edge-pan"
        edge = "left"
        """

    @Test func theDaemonRefusesAFIFOConfigAtStartByName() throws {
        let folder = TemporaryDirectory(prefix: "config-fifo")
        defer { folder.remove() }
        let fifo = folder.path + "/kiosk.toml"
        try #require(mkfifo(fifo, 0o644) == 0)
        let result = try runTransitiond(["run", "--config", fifo, "--socket", folder.path + "/s.sock",
                                         "--input-root", folder.path], timeout: 20)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("\(fifo): is a FIFO or pipe, not a regular file"), "\(result.stderr)")
    }

    @Test func aReloadFromAFIFOFailsAtOnceByNameAndTheDaemonKeepsServing() throws {
        let folder = TemporaryDirectory(prefix: "config-fifo")
        defer { folder.remove() }
        let path = folder.file("kiosk.toml", Self.config)
        let socket = temporarySocketPath("reload-fifo")
        let daemon = try DaemonProcess(["run", "--config", path, "--socket", socket, "--input-root", folder.path],
                                       socket: socket)
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        #expect(client.readLine().map(typeOf) == "hello")
        // The config becomes a FIFO that nothing writes.
        let fifo = folder.path + "/next.toml"
        try #require(mkfifo(fifo, 0o644) == 0)
        try #require(rename(fifo, path) == 0)

        try client.send("{\"cmd\":\"reload\",\"id\":\"r1\"}\n")
        let reply = client.readUntil(timeout: 10) { $0.contains("\"id\":\"r1\"") }.last ?? ""
        #expect(reply.contains("\"code\":\"bad-config\""), "\(reply) \(daemon.stderr)")
        #expect(reply.contains("kiosk.toml: is a FIFO or pipe, not a regular file"), "names the file: \(reply)")
        daemon.signal(SIGHUP)
        #expect(waitUntil(timeout: 10) { daemon.stderr.components(separatedBy: "is a FIFO or pipe").count == 3 },
                "the SIGHUP's reload fails too, by name: \(daemon.stderr)")
        // The loop still answers, with the config it had.
        try client.send("{\"cmd\":\"run\",\"transition\":\"back\",\"to\":\"finish\",\"id\":2}\n")
        #expect(client.readUntil(timeout: 10) { $0.contains("\"id\":2") }.last?.contains("\"type\":\"ok\"") == true)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10) == 0, "SIGTERM is heard: \(daemon.stderr)")
    }

    @Test func checkConfigReadsAFIFOThatIsWritten() throws {
        let folder = TemporaryDirectory(prefix: "config-fifo")
        defer { folder.remove() }
        let fifo = folder.path + "/kiosk.toml"
        try #require(mkfifo(fifo, 0o644) == 0)
        let writer = try FIFOWriter(fifo, Self.config, within: 20)
        let result = try runTransitiond(["check-config", fifo], timeout: 20)
        #expect(writer.wait(timeout: 20), "the writer found a reader")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("name = \"back\""), "\(result.stdoutText)")
    }

    /// Nothing writes it: an error naming it after 5 s, not a wait forever.
    @Test func checkConfigOnAFIFONothingWritesEndsInTime() throws {
        let folder = TemporaryDirectory(prefix: "config-fifo")
        defer { folder.remove() }
        let fifo = folder.path + "/kiosk.toml"
        try #require(mkfifo(fifo, 0o644) == 0)
        let result = try runTransitiond(["check-config", fifo], timeout: 20)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("\(fifo): the config did not arrive whole within 5 s"), "\(result.stderr)")
    }

    @Test func checkConfigReadsStdinAsDashOrDevStdin() throws {
        for name in ["-", "/dev/stdin"] {
            let result = try shell("printf '%s' \"$CONFIG\" | timeout -k 2 15 \"$T\" check-config \(name)", ["CONFIG": Self.config])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("name = \"back\""), "\(name): \(result.stdout)")
        }
        let broken = try shell("printf 'edge = \"lft\"\\n' | timeout -k 2 15 \"$T\" check-config -")
        #expect(broken.status == 65, "\(broken.stderr)")
        #expect(broken.stderr.contains("stdin:1"), "errors name stdin: \(broken.stderr)")
        // A daemon's config is read again at a reload: stdin cannot be.
        let folder = TemporaryDirectory(prefix: "config-stdin")
        defer { folder.remove() }
        let run = try shell("printf '%s' \"$CONFIG\" | timeout -k 2 15 \"$T\" run --config /dev/stdin --socket \(folder.path)/s.sock --input-root \(folder.path)",
                            ["CONFIG": Self.config])
        #expect(run.status == 66, "\(run.stderr)")
        #expect(run.stderr.contains("/dev/stdin: is a FIFO or pipe, not a regular file"), "\(run.stderr)")
    }

    @Test func aDeviceOrAFolderIsNotAConfig() throws {
        let folder = TemporaryDirectory(prefix: "config-dir")
        defer { folder.remove() }
        let device = try runTransitiond(["check-config", "/dev/zero"], timeout: 20)
        #expect(device.status == 66 && device.stderr.contains("/dev/zero: is a device, not a config file"), "\(device.stderr)")
        let directory = try runTransitiond(["check-config", folder.path], timeout: 20)
        #expect(directory.status == 66 && directory.stderr.contains("\(folder.path): is a directory"), "\(directory.stderr)")
    }

    /// `COMMAND` run by bash with `$T` the binary; its status, stdout and
    /// stderr. The commands bound their own time with `timeout`: bash's
    /// pipeline outlives a SIGTERM sent to bash alone.
    private func shell(_ command: String, _ environment: [String: String] = [:]) throws
        -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", command]
        process.environment = ["PATH": "/usr/bin:/bin", "T": ProjectPaths.binary]
            .merging(Sanitizer.childEnvironment) { $1 }.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = PipeReader(out), errors = PipeReader(err)
        let exited = waitUntil(timeout: 20) { !process.isRunning }
        if !exited { process.terminate() }
        process.waitUntilExit()
        output.waitForEnd(timeout: 10)
        errors.waitForEnd(timeout: 10)
        #expect(exited, "\(command) ended within 20 s")
        return (process.terminationStatus, output.text, errors.text)
    }
}

/// Writes `text` into a FIFO once something opens it for reading (tried
/// non-blocking until then, for at most `within` seconds), then closes it.
final class FIFOWriter: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let wrote = Locked(false)

    init(_ path: String, _ text: String, within seconds: Double) throws {
        let done = self.done, wrote = self.wrote
        _ = try NativeThread(name: "FIFO writer", detached: true) {
            var fd: Int32 = -1
            waitUntil(timeout: seconds) {
                fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                return fd >= 0
            }
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                let bytes = Array(text.utf8)
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                wrote.withLock { $0 = n == bytes.count }
            }
            done.signal()
        }
    }

    /// Whether the text was written, waiting at most `timeout` seconds.
    func wait(timeout: Double) -> Bool {
        done.wait(timeout: .now() + timeout) == .success && wrote.withLock { $0 }
    }
}
