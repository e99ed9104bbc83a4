import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A `transitiond` daemon run as a real process for a test: started with
/// arguments, waited on with bounds, stopped with a signal.
final class DaemonProcess: @unchecked Sendable {
    let process = Process()
    let socket: String
    private let errors = Pipe()
    private let stderrReader: PipeReader

    /// A fresh socket path in a private temporary folder.
    static func socketPath(_ name: String = "t") -> String {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("tdsock-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        chmod(dir.path, 0o755)
        return dir.appendingPathComponent("\(name).sock").path
    }

    init(_ arguments: [String], socket: String) throws {
        self.socket = socket
        process.executableURL = URL(fileURLWithPath: ProjectPaths.binary)
        process.arguments = arguments
        process.currentDirectoryURL = ProjectPaths.root
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        stderrReader = PipeReader(errors)
        try process.run()
        DispatchQueue.global().async { [stderrReader] in stderrReader.readToEnd() }
    }

    var pid: Int32 { process.processIdentifier }

    /// Waits until the socket file is there (without connecting, so no
    /// client is counted); clients retry a refused connect briefly.
    func waitUntilListening(timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var info = stat()
            if lstat(socket, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK { usleep(50_000); return }
            if !process.isRunning { throw HarnessError("daemon exited early: \(stderrText())") }
            usleep(20_000)
        }
        throw HarnessError("daemon did not listen on \(socket) within \(timeout) s")
    }

    /// Waits for the process to exit; returns its status.
    @discardableResult
    func waitForExit(timeout: Double = 20) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            throw HarnessError("daemon did not exit within \(timeout) s")
        }
        return process.terminationStatus
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Open descriptors of the daemon.
    func openFileCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// A field of /proc/PID/status in kB (VmRSS, VmHWM).
    func memoryKB(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return -1
    }

    /// What the daemon wrote to stderr so far (complete after exit).
    func stderrText() -> String { String(decoding: stderrReader.data, as: UTF8.self) }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking NDJSON client over a real Unix socket, with timeouts.
final class LineClient {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var eof = false

    init(path: String, retry: Bool = true) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(path.utf8).prefix(raw.count - 1))
        }
        var result: Int32 = -1
        for _ in 0..<100 {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if result == 0 || (errno != ECONNREFUSED && errno != ENOENT) || !retry { break }
            usleep(20_000)
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            throw HarnessError("connect \(path): \(code)")
        }
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                throw HarnessError("send: \(errno)")
            }
            offset += n
        }
    }

    /// The next line (without `\n`), nil at EOF or after `timeout` seconds.
    func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let i = buffer.firstIndex(of: 0x0a) {
                let line = String(decoding: buffer[..<i], as: UTF8.self)
                buffer.removeSubrange(...i)
                return line
            }
            if eof { return nil }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                eof = true
                continue
            }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Lines until one satisfies `stop` (included), EOF, or the timeout.
    func readUntil(timeout: Double = 20, _ stop: (String) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while deadline.timeIntervalSinceNow > 0, let line = readLine(timeout: deadline.timeIntervalSinceNow) {
            lines.append(line)
            if stop(line) { break }
        }
        return lines
    }

    /// Every line until EOF (bounded by `timeout`).
    func readAll(timeout: Double = 30) -> [String] {
        readUntil(timeout: timeout) { _ in false }
    }

    private var closed = false
    func close() {
        if !closed { closed = true; Glibc.close(fd) }
    }
    deinit { close() }
}

/// The JSON object of a line.
func object(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}

func typeOf(_ line: String) -> String { object(line)["type"] as? String ?? "" }
