#if canImport(Glibc)
import Glibc
#endif
import EvdevInput
import NIOCore
import SystemSupport
import Engine

/// A recording's events cut into frames (each ends with its `SYN_REPORT`):
/// what one read of a panel gives at a time.
enum Frames {
    static func split(_ events: [InputEvent], times: Int = 1) -> [[InputEvent]] {
        var frames: [[InputEvent]] = []
        var frame: [InputEvent] = []
        guard let first = events.first?.time, let last = events.last?.time else { return [] }
        let period = last - first + 500_000
        for copy in 0..<Int64(max(1, times)) {
            for event in events {
                frame.append(InputEvent(time: event.time + copy * period, type: event.type, code: event.code, value: event.value))
                guard event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT else { continue }
                frames.append(frame)
                frame.removeAll(keepingCapacity: true)
            }
        }
        return frames
    }
}

/// The input thread's part: frames pushed through the same `ReportQueue`
/// hand-over `EvdevSource` uses, each at its time (the recording's times
/// moved onto `CLOCK_MONOTONIC`, as the kernel stamps a panel's events).
final class FeedSource: InputSource, @unchecked Sendable {
    let queue = ReportQueue(maximumPending: 4096)

    func start(ready: @escaping @Sendable () -> Void) { queue.setReady(ready) }
    func take(into reports: inout [InputReport]) { queue.take(into: &reports) }
    func stop() {}

    /// Plays on the event loop itself, each frame pushed by a task scheduled
    /// at its time: the hand-over without a thread of its own (what reading
    /// the device on the loop would cost). Returns when the last was pushed.
    func playOnLoop(_ loop: EventLoop, _ device: DeviceDescription, _ frames: [[InputEvent]], speed: Double) {
        attach(device)
        let start = NIODeadline.now() + .milliseconds(50)
        let done = loop.makePromise(of: Void.self)
        for (k, due) in Self.offsets(frames, speed: speed).enumerated() {
            loop.scheduleTask(deadline: start + .nanoseconds(Int64(due * 1e9))) { [self] in
                push(frames[k])
                if k == frames.count - 1 { done.succeed(()) }
            }
        }
        if !frames.isEmpty { try? done.futureResult.wait() }
    }

    /// Plays on the calling thread (the "input thread").
    func play(_ device: DeviceDescription, _ frames: [[InputEvent]], speed: Double) {
        attach(device)
        let start = MonotonicClock.seconds + 0.05
        for (k, due) in Self.offsets(frames, speed: speed).enumerated() {
            let wait = start + due - MonotonicClock.seconds
            if wait > 0 { usleep(useconds_t(wait * 1e6)) }
            push(frames[k])
        }
    }

    private func attach(_ device: DeviceDescription) {
        queue.push(.attached(AttachedDevice(path: "/dev/input/bench", description: device, grabbed: false)))
    }

    /// A frame, stamped now on `CLOCK_MONOTONIC` as the kernel would stamp it.
    private func push(_ frame: [InputEvent]) {
        let stamp = Int64(MonotonicClock.seconds * 1e6)
        queue.push(.events(frame.map { InputEvent(time: stamp, type: $0.type, code: $0.code, value: $0.value) }, source: 0))
    }

    /// Each frame's time after the first, in seconds at `speed`.
    private static func offsets(_ frames: [[InputEvent]], speed: Double) -> [Double] {
        guard let first = frames.first?.first?.time else { return [] }
        return frames.map { Double($0[0].time - first) / 1e6 / speed }
    }
}

/// A subscriber: a process of this program reading the socket (`--read`).
struct Reader {
    let pid: pid_t
    let pipe: Int32

    static func start(socket: String) -> Reader {
        var fds: [Int32] = [0, 0]
        precondition(Glibc.pipe(&fds) == 0)
        let pid = fork()
        if pid == 0 {
            dup2(fds[1], 1)
            let argv = [CommandLine.arguments[0], "--read", socket]
            var cArgs = argv.map { strdup($0) } + [nil]
            execv(CommandLine.arguments[0], &cArgs)
            _exit(127)
        }
        close(fds[1])
        return Reader(pid: pid, pipe: fds[0])
    }

    /// Each reader writes one line when its `hello` came (bounded by its own 10 s).
    static func waitForHellos(_ readers: [Reader]) {
        for reader in readers { _ = readLine(reader.pipe) }
    }

    /// Stops it; the count of lines it read.
    func finish() -> Int {
        kill(pid, SIGTERM)
        let count = Int(Reader.readLine(pipe).split(separator: " ").last ?? "") ?? -1
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(pipe)
        return count
    }

    private static func readLine(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 && byte != 10 { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The reader's process: connects, says `hello` once the first line came,
/// reads until SIGTERM (or the server closes), says how many lines.
nonisolated(unsafe) var stopReading: Int32 = 0
func readStream(_ path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) } }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else { print("connect failed 0"); return 1 }
    signal(SIGTERM) { _ in stopReading = 1 }
    var buffer = [UInt8](repeating: 0, count: 65536)
    var lines = 0
    var said = false
    while stopReading == 0 {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        for k in 0..<n where buffer[k] == 10 { lines += 1 }
        if !said && lines > 0 {
            said = true
            say("hello")
        }
    }
    say("lines \(lines)")
    return 0
}

/// A line on stdout, at once (the parent waits for it).
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// The process's CPU time (every thread) and context switches.
struct CPUTime {
    var microseconds: Int64
    var system: Int64
    var voluntary: Int
    var involuntary: Int

    static func now() -> CPUTime {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Int64(usage.ru_utime.tv_sec) * 1_000_000 + Int64(usage.ru_utime.tv_usec)
        let system = Int64(usage.ru_stime.tv_sec) * 1_000_000 + Int64(usage.ru_stime.tv_usec)
        return CPUTime(microseconds: user + system, system: system, voluntary: usage.ru_nvcsw, involuntary: usage.ru_nivcsw)
    }
}
