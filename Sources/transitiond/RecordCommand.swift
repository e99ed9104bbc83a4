#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import ArgumentParser
import EvdevInput
import Recordings
import Engine

/// `transitiond record`: writes a device's events as an evemu 1.3 file
/// that `evemu-play` and `transitiond replay` read.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a touchscreen's events as an evemu 1.3 file.",
        discussion: """
        The header describes the device; event times are relative to the \
        first event. SIGINT/SIGTERM (Ctrl-C) or the device's removal end the \
        recording with a complete file (exit 0). The file is flushed after \
        every batch of events. Without -o the recording goes to stdout. \
        "transitiond: recording PATH …" on stderr says it is ready. Exit codes: \
        66 no such device node, 65 not an evdev device, 69 no touchscreen \
        (auto) or the device cannot be opened, 74 the file cannot be written.
        """
    )

    @Option(help: ArgumentHelp("The device: auto (the touchscreen with the lowest event number), /dev/input/eventN, or a by-id/by-path link.",
                               valueName: "PATH|auto"))
    var device = "auto"

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the recording here (default: stdout).", valueName: "FILE"))
    var output: String?

    @Option(help: .hidden)
    var inputRoot = "/dev/input"

    func validate() throws {
        try requireNames(["--output": output])
    }

    func run() throws {
        try reportingFailures {
            ProcessSignals.install()
            let opened = try openDevice()
            try? opened.useMonotonicClock()
            let fd = try openOutput()
            defer { if fd != 1 { close(fd) } }
            var recorder = EvemuRecorder(fd: fd, description: opened.description)
            try flush(&recorder)
            StandardError.write("transitiond: recording \(opened.path) \"\(opened.description.name)\"\(output.map { " to \($0)" } ?? "")\n")
            let ending = try loop(opened, &recorder)
            try flush(&recorder)
            StandardError.write("transitiond: \(ending); recorded \(recorder.eventCount) events\n")
        }
    }

    /// Reads until a stop signal or the device's removal; says which ended it.
    private func loop(_ opened: EvdevDevice, _ recorder: inout EvemuRecorder) throws -> String {
        var events: [InputEvent] = []
        events.reserveCapacity(4096)
        while !ProcessSignals.stopRequested {
            var entry = pollfd(fd: opened.fd, events: Int16(POLLIN), revents: 0)
            // The timeout bounds a signal that lands just before poll.
            let rc = poll(&entry, 1, 250)
            if rc <= 0 { continue }
            events.removeAll(keepingCapacity: true)
            let result = opened.readAvailable(into: &events)
            if recorder.record(events) > 0 {
                StandardError.write("transitiond: \(opened.path): the kernel dropped events (SYN_DROPPED); recorded the resynchronised state\n")
            }
            try flush(&recorder)
            if case .lost(let error) = result {
                return "\(opened.path): \(error.kind == .gone ? "the device was removed" : error.message)"
            }
            if result == .drained && entry.revents & Int16(POLLHUP | POLLERR) != 0 {
                return "\(opened.path): the device was removed"
            }
        }
        return "stopped"
    }

    private func flush(_ recorder: inout EvemuRecorder) throws {
        do {
            try recorder.flush()
        } catch {
            throw Failure(.ioError, "\(output ?? "stdout"): write failed: \(error)")
        }
    }

    // MARK: Opening

    private func openDevice() throws -> EvdevDevice {
        switch DeviceSelector(argument: device) {
        case .all:
            throw Failure(.usage, "record reads one device: give --device PATH or auto, not all")
        case .paths(let paths):
            let path = paths[0]
            do {
                return try EvdevDevice(path: path)
            } catch {
                let code: Failure.Code = error.kind == .missing ? .noInput : error.kind == .notEvdev ? .dataError : .unavailable
                throw Failure(code, "\(path): \(error.message)")
            }
        case .auto:
            let scan: [DiscoveredDevice]
            do {
                scan = try DeviceDiscovery(root: inputRoot).scan()
            } catch {
                throw Failure(.unavailable, "\(inputRoot): \(error.message)")
            }
            let choice = AutoChoice(scan)
            guard let chosen = choice.chosen else {
                throw Failure(.unavailable, "no touchscreen in \(inputRoot)"
                              + (choice.unreadableSummary.map { " (\($0))" } ?? "")
                              + "; `transitiond devices` lists the devices; pick one with --device PATH")
            }
            if let several = choice.severalMessage { StandardError.write("transitiond: \(several)\n") }
            do {
                return try EvdevDevice(path: chosen.node.path)
            } catch {
                throw Failure(.unavailable, "\(chosen.node.path): \(error.message)")
            }
        }
    }

    /// The recording is written as it is made, so it goes into the file
    /// (or device, or FIFO) where it is rather than replacing it at the
    /// end; `O_TRUNC` empties only a regular file. Opened non-blocking so
    /// that a FIFO nothing reads is an error now, not a wait that SIGINT
    /// cannot end; then blocking, as any writer to a pipe.
    private func openOutput() throws -> Int32 {
        guard let output, output != "-" else { return 1 }
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            if errno == ENXIO { throw Failure(.ioError, "\(output): cannot write: it is a FIFO that nothing reads") }
            throw Failure(.ioError, "\(output): cannot create: \(String(cString: strerror(errno)))")
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return fd
    }
}
