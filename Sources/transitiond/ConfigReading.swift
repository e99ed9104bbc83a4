#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SystemSupport
import TransitionConfig

/// How a config file is used, which decides what it may be.
enum ConfigUse: Equatable {
    /// Read once (`check-config`, `replay`, `verify`): a regular file, or a
    /// stream that arrives whole in time — a pipe (`check-config -`,
    /// `--config <(generate)`, `/dev/stdin`), a FIFO something writes.
    case once
    /// `run`'s: read at start and again at every reload (SIGHUP, the
    /// `reload` command), so it must be a file that can be read again: a
    /// regular file (or a link to one). A pipe is used up by the first
    /// read, and a FIFO would hold a reload (and so the daemon) until
    /// something writes it.
    case daemon
}

/// What a config path may be, as a rule: which kinds are read, and how.
enum ConfigSource {
    enum Kind: Equatable { case regular, directory, device, fifo, socket }
    enum Plan: Equatable {
        /// Read to its end (a regular file's end is there at once).
        case readFile
        /// Read as it arrives, to its end, within `ConfigRead.patience`.
        case readStream
        /// Not read; why (the caller adds the path).
        case refuse(String)
    }

    static func plan(_ kind: Kind, use: ConfigUse) -> Plan {
        switch kind {
        case .regular: return .readFile
        case .directory: return .refuse("is a directory, not a config file")
        case .device: return .refuse("is a device, not a config file")
        case .fifo, .socket:
            let what = kind == .fifo ? "a FIFO or pipe" : "a socket"
            switch use {
            case .once: return .readStream
            case .daemon:
                return .refuse("is \(what), not a regular file: the daemon reads its config again at each reload, so it must be a file")
            }
        }
    }

    static func kind(_ mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFSOCK: return .socket
        default: return .device
        }
    }
}

/// Reading a config's bytes with bounds: at most `largest` bytes, and a
/// stream that has not ended `patience` seconds after it was opened is an
/// error naming the path (a FIFO nothing writes ends in time, not never).
/// `-` is stdin.
enum ConfigRead {
    /// As the config reader's own bound: a config is a few KB.
    static let largest = 4 << 20
    static let patience = 5.0

    static func bytes(_ path: String, use: ConfigUse) throws(Failure) -> [UInt8] {
        let isStdin = path == "-" && use == .once
        // Non-blocking: opening a FIFO for reading otherwise waits for a writer.
        let fd = isStdin ? dup(0) : open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw Failure(.noInput, "\(path): no such config file") }
            throw Failure(.noInput, "\(path): cannot read the config: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let name = isStdin ? "stdin" : path
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw Failure(.noInput, "\(name): cannot read the config: \(String(cString: strerror(errno)))")
        }
        switch ConfigSource.plan(ConfigSource.kind(info.st_mode), use: use) {
        case .refuse(let why):
            throw Failure(.noInput, "\(name): \(why)")
        case .readFile:
            return try readToEnd(fd, name: name, deadline: nil)
        case .readStream:
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(patience * 1e9)
            return try readToEnd(fd, name: name, deadline: deadline)
        }
    }

    /// Reads to end of file; with a deadline, waiting for each part in
    /// `poll` (the descriptor may be blocking: stdin is the shell's).
    private static func readToEnd(_ fd: Int32, name: String, deadline: UInt64?) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let deadline {
                let now = DispatchTime.now().uptimeNanoseconds
                guard now < deadline else {
                    throw Failure(.noInput, "\(name): the config did not arrive whole within \(Int(patience)) s (nothing writes it?)")
                }
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&entry, 1, Int32(min((deadline - now) / 1_000_000 + 1, 60_000)))
                if ready < 0 && errno != EINTR {
                    throw Failure(.noInput, "\(name): cannot read the config: \(String(cString: strerror(errno)))")
                }
                if ready <= 0 { continue }
            }
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                // EAGAIN: a FIFO's writer is there but has written nothing yet.
                if errno == EINTR || errno == EAGAIN { continue }
                throw Failure(.noInput, "\(name): cannot read the config: \(String(cString: strerror(errno)))")
            }
            if got == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<got])
            guard bytes.count <= largest else {
                throw Failure(.dataError, "\(name): is larger than \(largest >> 20) MiB, the most a config file may be")
            }
        }
    }
}

/// A call that may block beyond any bound of its own (a config on a
/// network mount that stopped answering, a group looked up through a name
/// service) made on a thread of its own and given at most `seconds`: the
/// caller — the event loop, at a reload — never waits for it. While a call
/// that ran out of time has still not returned, the next one fails at once
/// rather than leave another thread behind it.
final class BoundedCall: Sendable {
    let seconds: Double
    /// Whether a call that ran out of time is still running.
    private let abandoned = Locked(false)

    init(seconds: Double) {
        self.seconds = seconds
    }

    /// Runs `body` on a thread of its own and calls `done` once, on that
    /// thread or the timer's, with its result — or, `seconds` after the
    /// start, with a `Failure` saying `what` did not finish in time (its
    /// late result is then dropped).
    func start<T: Sendable>(_ what: String, done: @escaping @Sendable (Result<T, Error>) -> Void,
                            _ body: @escaping @Sendable () throws -> T) {
        if abandoned.withLock({ $0 }) {
            done(.failure(Failure(.unavailable, "\(what): an earlier read has still not returned")))
            return
        }
        // Whichever of the thread and the timer comes first answers; the
        // thread clears `abandoned` under the same lock the timer sets it.
        let answered = Locked(false)
        let abandoned = self.abandoned
        do {
            _ = try NativeThread(name: "reading \(what)", detached: true) {
                let result = Result { try body() }
                let first = answered.withLock { flag -> Bool in
                    abandoned.withLock { $0 = false }
                    defer { flag = true }
                    return !flag
                }
                if first { done(result) }
            }
        } catch {
            answered.withLock { $0 = true }
            done(.failure(Failure(.unavailable, "\(what): \(error)")))
            return
        }
        let seconds = seconds
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            let first = answered.withLock { flag -> Bool in
                guard !flag else { return false }
                flag = true
                abandoned.withLock { $0 = true }
                return true
            }
            if first { done(.failure(Failure(.unavailable, "\(what): not read within \(formatSeconds(seconds)) s"))) }
        }
    }
}

private func formatSeconds(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
}
