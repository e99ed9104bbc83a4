#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// SIGINT, SIGTERM and SIGHUP (the terminal went away) as a flag that a
/// blocking loop checks between waits (installed without SA_RESTART, so a
/// signal also interrupts `poll`): `record` and `subscribe` stop cleanly.
enum StopSignal {
    private static let flag = Atomic<Bool>(false)

    /// Installs the handlers (once per process) and unblocks the signals: a
    /// parent may have started us with them blocked (`posix_spawn` passes the
    /// spawning thread's mask on, and many runtimes block signals in their
    /// worker threads).
    static func install() {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in StopSignal.flag.store(true, ordering: .relaxed) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
            sigaddset(&unblock, signal)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Whether SIGINT, SIGTERM or SIGHUP has arrived.
    static var requested: Bool { flag.load(ordering: .relaxed) }

    /// Sleeps `seconds`, returning early (false) when a stop is requested.
    static func sleep(_ seconds: Double) -> Bool {
        var remaining = seconds
        while remaining > 0 {
            if requested { return false }
            let slice = min(remaining, 0.05)
            var ts = timespec(tv_sec: 0, tv_nsec: Int(slice * 1e9))
            nanosleep(&ts, nil)
            remaining -= slice
        }
        return !requested
    }
}
