#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager how the daemon is doing (`sd_notify(3)`,
/// without libsystemd): one datagram per message to the `AF_UNIX` socket
/// named by `$NOTIFY_SOCKET` — a path, or an abstract name written with a
/// leading `@`. Messages are `READY=1`, `STATUS=…`, `WATCHDOG=1`,
/// `RELOADING=1`, `STOPPING=1` and the like, newline-separated.
public final class ServiceNotifier: Sendable {
    /// The address as given (`/run/systemd/notify`, `@name`).
    public let address: String
    private let descriptor: CInt

    /// A notifier for `$NOTIFY_SOCKET`; nil when it is unset or empty (not
    /// run by a service manager that listens), or not a usable address.
    public convenience init?(environment: [String: String]) {
        guard let address = environment["NOTIFY_SOCKET"], !address.isEmpty else { return nil }
        self.init(address: address)
    }

    /// A notifier for `$NOTIFY_SOCKET` of this process.
    public static func fromProcessEnvironment() -> ServiceNotifier? {
        guard let value = getenv("NOTIFY_SOCKET") else { return nil }
        return ServiceNotifier(environment: ["NOTIFY_SOCKET": String(cString: value)])
    }

    public init?(address: String) {
        guard address.hasPrefix("/") || address.hasPrefix("@"),
              address.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.address = address
        self.descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends one message; false if it could not be sent (the manager is
    /// gone, or the socket is full: a notification is never worth a block).
    @discardableResult
    public func notify(_ message: String) -> Bool {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var path = Array(address.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in raw.copyBytes(from: path) }
        // A path counts its terminating NUL; an abstract name is exactly its bytes.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (abstract ? 0 : 1))
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &storage) { address in
            address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), address, length) }
            }
        }
        return sent == bytes.count
    }
}

/// The service manager's watchdog (`sd_watchdog_enabled(3)`): how often it
/// wants `WATCHDOG=1`. systemd kills a service that has sent none for
/// `$WATCHDOG_USEC` and asks for one at about half that, so a keep-alive
/// late by up to half the interval is still in time.
public enum ServiceWatchdog {
    /// The most often a keep-alive is sent: every 100 ms. A loop timer set
    /// more often than that would be the daemon's main work (at
    /// `WATCHDOG_USEC=1`, one every 500 ns: a loop that does nothing else),
    /// and no loop that also serves clients and reads a config can promise
    /// to come back within less; a watchdog under twice this is one the
    /// daemon cannot honour, whatever it does.
    public static let shortestInterval: Int64 = 100_000_000

    /// The keep-alive the daemon sends: every `interval` nanoseconds, half
    /// of the watchdog's `timeout` — or `shortestInterval` when that is
    /// shorter (`clamped`, which the daemon logs once).
    public struct KeepAlive: Equatable, Sendable {
        /// `$WATCHDOG_USEC`, in nanoseconds.
        public var timeout: Int64
        /// How often `WATCHDOG=1` is sent, in nanoseconds.
        public var interval: Int64
        /// Whether the interval is longer than half the timeout, as the
        /// service manager asked for something the daemon does not do.
        public var clamped: Bool { interval > timeout / 2 }

        public init(timeout: Int64) {
            self.timeout = timeout
            self.interval = max(timeout / 2, ServiceWatchdog.shortestInterval)
        }
    }

    /// The keep-alive for this environment, or nil when there is no
    /// watchdog for this process (`$WATCHDOG_USEC` unset, zero, not a
    /// number, or `$WATCHDOG_PID` names another process).
    public static func keepAlive(environment: [String: String], pid: pid_t) -> KeepAlive? {
        guard let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0, usec < Int64.max / 1000 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, pid_t(owner) != pid { return nil }
        return KeepAlive(timeout: usec * 1000)
    }

    /// The same for this process.
    public static func keepAlive() -> KeepAlive? {
        var environment: [String: String] = [:]
        for key in ["WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        return keepAlive(environment: environment, pid: getpid())
    }

    /// How often to send `WATCHDOG=1`, in nanoseconds: `keepAlive`'s interval.
    public static func keepAliveInterval(environment: [String: String], pid: pid_t) -> Int64? {
        keepAlive(environment: environment, pid: pid)?.interval
    }
}
