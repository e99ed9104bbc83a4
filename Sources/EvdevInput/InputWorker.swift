#if canImport(Glibc)
import Glibc
#endif
import Engine
import SystemSupport

/// The input thread's state and loop (see `EvdevSource`): everything here
/// runs on that one thread.
final class InputWorker {
    let source: EvdevSource
    let options: EvdevSource.Options
    let watcher: DirectoryWatcher
    let discovery: DeviceDiscovery

    /// The attached devices, by source (see `AttachedDevice.source`).
    var devices: [Int: EvdevDevice] = [:] {
        didSet { polled = devices.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value.fd) } }
    }
    /// Each attached device's source and descriptor, by source: what the
    /// loop polls, made when the devices change rather than at every wake-up.
    private var polled: [(source: Int, fd: Int32)] = []
    /// The text of the last `waiting` report (nil while a device is attached).
    var waitingText: String?
    /// Per wanted path not attached: why (logged when it changes).
    var missing: [Int: String] = [:]
    /// Nodes that appeared while running (canonical path → monotonic time),
    /// for the `EACCES` retries.
    var appeared: [String: Double] = [:]
    var retryAttempts: [String: Int] = [:]
    var retryAt: Double?
    /// Nodes whose permission retries ran out (warned once).
    var gaveUp: Set<String> = []

    init(source: EvdevSource) throws(DeviceOpenError) {
        self.source = source
        self.options = source.options
        self.watcher = try DirectoryWatcher()
        self.discovery = DeviceDiscovery(root: options.root)
    }

    // MARK: Loop

    func run() {
        setUpWatches()
        attemptAttach()
        var fds: [pollfd] = []
        var reading: [Int] = []
        while !source.stopping.load(ordering: .acquiring) {
            fds.removeAll(keepingCapacity: true)
            reading.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: source.wake.readFD, events: Int16(POLLIN), revents: 0))
            fds.append(pollfd(fd: watcher.fd, events: Int16(POLLIN), revents: 0))
            if !source.isPaused {
                for device in polled {
                    fds.append(pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0))
                    reading.append(device.source)
                }
            }
            let rc = poll(&fds, nfds_t(fds.count), timeoutMilliseconds())
            if rc < 0 && errno != EINTR {
                source.push([.message(.error, "poll failed: \(String(cString: strerror(errno)))")])
                break
            }
            if fds[0].revents != 0 { source.wake.drain() }
            if source.stopping.load(ordering: .acquiring) { break }
            for (k, index) in reading.enumerated() where fds[k + 2].revents != 0 {
                readDevice(index, fds[k + 2].revents)
            }
            if fds[1].revents != 0 { handle(watcher.readChanges()) }
            if let retryAt, Self.now() >= retryAt {
                self.retryAt = nil
                attemptAttach()
            }
        }
        devices = [:]   // closes them (and releases the grabs)
    }

    private func timeoutMilliseconds() -> Int32 {
        guard let retryAt else { return -1 }
        return Int32(max(0, min(60_000, ((retryAt - Self.now()) * 1000).rounded(.up))))
    }

    // MARK: Reading

    private func readDevice(_ index: Int, _ revents: Int16) {
        guard let device = devices[index] else { return }
        if revents & Int16(POLLIN) != 0 {
            var events: [InputEvent] = []
            events.reserveCapacity(256)
            let result = device.readAvailable(into: &events, limit: options.readChunk)
            if !events.isEmpty { source.push(.events(events, source: index)) }
            if case .lost(let error) = result {
                lose(index, reason: error.kind == .gone ? "the device was removed" : error.message)
            }
        } else if revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
            lose(index, reason: "the device was removed (hang-up)")
        }
    }

    /// Closes the device (no busy loop on a dead descriptor), reports it,
    /// and looks for one to attach again.
    private func lose(_ index: Int, reason: String) {
        guard let lost = devices.removeValue(forKey: index) else { return }
        source.push([.lost(path: lost.path, reason: reason, source: index)])
        attemptAttach()
    }

    static func now() -> Double { MonotonicClock.seconds }
}
