#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import ArgumentParser
import EvdevInput
import Recordings
import Engine

/// `transitiond uinput-replay` (hidden; a test tool for a real kernel):
/// makes a uinput device from a recording's description and writes the
/// recording's events into it, paced by their timestamps.
///
/// stdout, one flushed line each: `device /dev/input/eventN` once the
/// device exists, `written N` after the last event written, `destroyed`
/// once the device is gone.
struct UinputReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uinput-replay",
        abstract: "Test tool: play a recording through a uinput device (needs /dev/uinput).",
        discussion: """
        Prints "device /dev/input/eventN" when the device exists, waits \
        (--start-delay, or a line on stdin with --wait-stdin), writes the events \
        paced by their timestamps (--speed 0: as fast as possible), prints \
        "written N", holds the device --hold-seconds, destroys it and prints \
        "destroyed". --destroy-after-events N destroys it right after the N-th \
        event (mid-gesture). SYN_DROPPED events in the recording are skipped.
        """,
        shouldDisplay: false
    )

    @Argument(help: "An evemu or libinput record recording.")
    var recording: String

    @Option(help: ArgumentHelp("The device description for an events-only recording.", valueName: "DESC"))
    var description: String?

    @Option(help: ArgumentHelp("Pace at this speed (1 = real time, 0 = as fast as possible).", valueName: "X"))
    var speed: Double = 1

    @Option(help: ArgumentHelp("The device's name (default: the recording's).", valueName: "NAME"))
    var name: String?

    @Option(help: ArgumentHelp("Keep the device this long after the last event.", valueName: "S"))
    var holdSeconds: Double = 0.5

    @Option(help: ArgumentHelp("Destroy the device right after writing N events.", valueName: "N"))
    var destroyAfterEvents: Int?

    @Option(help: ArgumentHelp("Wait this long between creating the device and the first event.", valueName: "S"))
    var startDelay: Double = 0.5

    @Flag(help: "Wait for a line (or end of file) on stdin before the first event, instead of --start-delay.")
    var waitStdin = false

    func validate() throws {
        guard speed == 0 || (speed >= 0.001 && speed <= 1000) else {
            throw ValidationError("--speed must be 0 or a number from 0.001 to 1000 (got \(speed))")
        }
        guard holdSeconds >= 0 && startDelay >= 0 else { throw ValidationError("--hold-seconds and --start-delay must be ≥ 0") }
        if let n = destroyAfterEvents, n < 0 { throw ValidationError("--destroy-after-events must be ≥ 0") }
    }

    func run() throws {
        try reportingFailures {
            ProcessSignals.install()
            let loaded = try load()
            let device: UinputDevice
            do {
                device = try UinputDevice(description: loaded.description, name: name)
            } catch let error as DeviceOpenError {
                throw Failure(.unavailable, error.message)
            }
            guard let node = device.devnode ?? Self.node(under: device.syspath) else {
                throw Failure(.unavailable, "created a uinput device but cannot find its /dev/input node (is /sys mounted?)")
            }
            say("device \(node)")
            if waitStdin { Self.waitForLine() } else { _ = ProcessSignals.sleep(startDelay) }
            let written = try play(loaded.events, into: device)
            say("written \(written)")
            let abrupt = destroyAfterEvents.map { written >= $0 } ?? false
            if !abrupt && !ProcessSignals.stopRequested { _ = ProcessSignals.sleep(holdSeconds) }
            device.destroy()
            say("destroyed")
        }
    }

    // MARK: Playing

    /// Writes the events at their recorded pace; stops early for
    /// `--destroy-after-events` or a signal. Returns how many were written.
    private func play(_ events: [InputEvent], into device: UinputDevice) throws -> Int {
        guard let first = events.first?.time else { return 0 }
        let start = Self.monotonicNanoseconds()
        var written = 0
        for event in events {
            if ProcessSignals.stopRequested { break }
            if let limit = destroyAfterEvents, written >= limit { break }
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED { continue }
            if speed > 0 {
                let offset = Double(event.time - first) * 1000 / speed
                Self.sleep(until: start + Int64(max(0, offset).rounded()))
            }
            let rc = device.write(type: event.type, code: event.code, value: event.value)
            if rc < 0 {
                throw Failure(.ioError, "uinput write failed: \(String(cString: strerror(-rc)))")
            }
            written += 1
        }
        return written
    }

    private func load() throws -> (description: DeviceDescription, events: [InputEvent]) {
        guard fileExists(recording) else { throw Failure(.noInput, "\(recording): no such recording") }
        if let description, !fileExists(description) {
            throw Failure(.noInput, "\(description): no such description file")
        }
        do {
            let read = try RecordingReader.read(path: recording, descriptionPath: description)
            guard let device = read.description else {
                throw Failure(.dataError, "\(recording): no device description; pass one with --description FILE.desc")
            }
            return (device, read.events)
        } catch let error as RecordingError {
            throw Failure(.dataError, error.description)
        }
    }

    // MARK: Helpers

    /// A line on stdout, written at once (stdout may be a pipe).
    private func say(_ line: String) {
        var bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress, $0.count) }
    }

    /// `/dev/input/eventN` from the device's sysfs directory.
    static func node(under syspath: String?) -> String? {
        guard let syspath, let names = FolderNames.names(in: syspath) else { return nil }
        return names.first { DeviceDiscovery.eventNumber($0) != nil }.map { "/dev/input/" + $0 }
    }

    static func waitForLine() {
        var byte: UInt8 = 0
        while !ProcessSignals.stopRequested {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == 0x0a { return }
        }
    }

    static func monotonicNanoseconds() -> Int64 { MonotonicClock.nanoseconds }

    /// Sleeps to an absolute `CLOCK_MONOTONIC` time (a signal ends it early).
    static func sleep(until nanoseconds: Int64) {
        MonotonicClock().sleepBlocking(until: MonotonicClock.Instant(nanoseconds: nanoseconds),
                                       interrupted: { ProcessSignals.stopRequested })
    }
}
