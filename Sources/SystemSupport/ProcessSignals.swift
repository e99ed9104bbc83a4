#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Signals that arrived and are not taken yet, one bit per signal number.
private let pendingSignals = Atomic<UInt64>(0)
/// The write end of the wake pipe, for the handler (-1 before `install`).
private let wakeDescriptor = Atomic<Int32>(-1)

/// The signals a service manager or a terminal sends — SIGINT, SIGTERM,
/// SIGHUP — received the project's one way: a `sigaction` handler (without
/// `SA_RESTART`, so a blocking `poll` or sleep is interrupted) that sets a
/// bit and wakes a pipe. A blocking loop (`record`, `subscribe`) checks
/// `stopRequested` between waits; the daemon's watcher thread hands each
/// signal to its handler as it comes. SIGPIPE is ignored: a reader that went
/// away is a write error, never the end of the process.
public enum ProcessSignals {
    /// The signals handled.
    public static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private static let wake: WakePipe? = {
        let pipe = try? WakePipe()
        if let pipe { wakeDescriptor.store(pipe.writeDescriptor, ordering: .releasing) }
        return pipe
    }()

    /// Installs the handlers (again is harmless) and unblocks the signals:
    /// a parent may have started us with them blocked (`posix_spawn` passes
    /// the spawning thread's mask on, and many runtimes block signals in
    /// their worker threads).
    public static func install() {
        // Both globals are made here, not lazily in the handler (where
        // their one-time initialisation would not be async-signal-safe).
        _ = wake
        _ = pendingSignals.load(ordering: .relaxed)
        _ = wakeDescriptor.load(ordering: .relaxed)
        signal(SIGPIPE, SIG_IGN)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                pendingSignals.bitwiseOr(UInt64(1) << UInt64(number & 63), ordering: .acquiringAndReleasing)
                let fd = wakeDescriptor.load(ordering: .acquiring)
                if fd >= 0 {
                    var byte: UInt8 = 1
                    _ = write(fd, &byte, 1)
                }
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(number, &action, nil)
            sigaddset(&unblock, number)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Whether SIGINT, SIGTERM or SIGHUP has arrived (and not been taken).
    public static var stopRequested: Bool { pendingSignals.load(ordering: .acquiring) != 0 }

    /// The signals that arrived since the last call, in number order.
    public static func take() -> [Int32] {
        let bits = pendingSignals.exchange(0, ordering: .acquiringAndReleasing)
        return (1..<64).filter { bits & (UInt64(1) << UInt64($0)) != 0 }.map { Int32($0) }
    }

    /// Sleeps `seconds`, returning early (false) when a stop is requested.
    public static func sleep(_ seconds: Double) -> Bool {
        var remaining = seconds
        while remaining > 0 {
            if stopRequested { return false }
            let slice = min(remaining, 0.05)
            var ts = timespec(tv_sec: 0, tv_nsec: Int(slice * 1e9))
            nanosleep(&ts, nil)
            remaining -= slice
        }
        return !stopRequested
    }

    /// Installs the handlers and hands every signal, as it arrives, to
    /// `handler` on a thread of its own (not a signal handler: it may log,
    /// lock and schedule work). Runs until the process ends.
    public static func watch(_ handler: @escaping @Sendable (Int32) -> Void) throws(SystemError) {
        install()
        guard let wake else { throw SystemError("cannot create the signal pipe", errno: EMFILE) }
        _ = try NativeThread(name: "signals", detached: true) {
            while true {
                var poller = pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, -1)
                wake.drain()
                for number in take() { handler(number) }
            }
        }
        // A signal that came before the thread watched.
        if stopRequested { wake.wake() }
    }
}
