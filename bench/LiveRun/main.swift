// The live path of `transitiond run` on the host, with no touchscreen: a
// recording's frames go through the input thread's hand-over (a
// `ReportQueue`), the device host and its machine, the engine, the
// encoding and the server's socket, as the daemon's own parts do, paced on
// the recording's times. What it leaves out is the kernel: the evdev reads
// (libevdev) and the wake-up of an input thread by a device. It prints the
// process's CPU time (all threads) per input event, and under callgrind its
// instruction count gives the host-side figure of bench/live-callgrind.sh.
//
//     swift run -c release bench-live-run RECORDING [--speed S] [--subscribers N] [--loop N] [--frames N] [--on-loop]
//
// --speed: the pace (1 = the recording's times; 0.1 under callgrind);
// --subscribers: that many clients read the stream (processes of this
// program, `--read SOCKET`, so that their work is not the daemon's);
// --loop N: the recording N times over, 0.5 s apart; --frames: play only
// the first N frames (0: the start-up alone); --on-loop: the frames are
// pushed by tasks on the event loop, not by a thread (the hand-over's cost
// is the difference).

#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import EvdevInput
import Inputs
import Recordings
import Server
import ServerCore
import SystemSupport
import TransitionConfig
import Engine

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let k = arguments.firstIndex(of: name), k + 1 < arguments.count else { return nil }
    return arguments[k + 1]
}

if let socket = option("--read") {
    exit(readStream(socket))
}
let speed = Double(option("--speed") ?? "1") ?? 1
let subscribers = Int(option("--subscribers") ?? "0") ?? 0
let frameLimit = option("--frames").flatMap { Int($0) }
guard let path = arguments.first, !path.hasPrefix("--") else {
    print("usage: bench-live-run RECORDING [--speed S] [--subscribers N] [--loop N] [--frames N] [--on-loop]")
    exit(64)
}
let recording: Recording
do {
    recording = try RecordingReader.read(path: path)
} catch {
    print("bench-live-run: \(error)")
    exit(66)
}
var frames = Frames.split(recording.events, times: Int(option("--loop") ?? "1") ?? 1)
if let frameLimit { frames = Array(frames.prefix(frameLimit)) }
let eventCount = frames.reduce(0) { $0 + $1.count }

var folder = Array("/tmp/bench-live-run-XXXXXX".utf8CString)
guard mkdtemp(&folder) != nil else { fatalError("mkdtemp") }
let folderPath = String(decoding: folder.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
let socketPath = folderPath + "/s"
defer { unlink(socketPath); rmdir(folderPath) }

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let source = FeedSource()
var logger = Logger(label: "bench")
logger.logLevel = .warning
let input = InputSettings.standard
let host = DeviceHost(loop: loop, configuration: .standard, source: source, logger: logger)
host.flightRecorderSeconds = input.flightRecorder
host.flightRecorderBytes = input.flightRecorderBytes
host.minReportRate = input.minReportRate
let server = TransitionServer(loop: loop, options: ServerOptions(socketPath: socketPath), host: host, logger: logger)
try server.start()

let readers = (0..<subscribers).map { _ in Reader.start(socket: socketPath) }
Reader.waitForHellos(readers)

let before = CPUTime.now()
if arguments.contains("--on-loop") {
    source.playOnLoop(loop, recording.description!, frames, speed: speed)
} else {
    source.play(recording.description!, frames, speed: speed)
}
// The last animation ends within a second of the last frame (at speed 1).
usleep(useconds_t(1_200_000 / max(speed, 0.05)))
let after = CPUTime.now()
let finishes = try loop.submit { host.counters }.wait()
_ = try? server.shutdown().wait()
try? group.syncShutdownGracefully()
let readerLines = readers.map { $0.finish() }

let micros = Double(after.microseconds - before.microseconds)
print("bench-live-run: \(eventCount) events in \(frames.count) frames of \(path), speed \(speed), \(subscribers) subscriber(s)")
print("  cpu: \(micros / 1000) ms, \(eventCount > 0 ? micros / Double(eventCount) : 0) µs per event (system \(Double(after.system - before.system) / 1000) ms); "
      + "context switches: \(after.voluntary - before.voluntary) voluntary, \(after.involuntary - before.involuntary) involuntary")
print("  \(finishes)")
if !readerLines.isEmpty { print("  lines read per subscriber: \(readerLines)") }
