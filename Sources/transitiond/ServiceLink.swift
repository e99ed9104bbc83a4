#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import ServiceManager
import Server
import ServerCore

/// The daemon's side of the service manager's protocol, on the server's
/// event loop: `READY=1` once the socket listens and the input is known,
/// `STATUS=` as the input and the client count change (told by the server,
/// not polled: an idle daemon sets no timer), `WATCHDOG=1` from
/// the loop at half the watchdog interval (a stuck loop stops it, and the
/// manager restarts the daemon), `STOPPING=1` on shutdown. Without
/// `$NOTIFY_SOCKET` it sends nothing and sets no timer.
final class ServiceLink: Sendable {
    private let loop: EventLoop
    private let notifier: ServiceNotifier?
    private let logger: Logger
    private let readiness: NIOLoopBoundBox<ServiceReadiness>
    private let timers: NIOLoopBoundBox<[RepeatedTask]>

    /// `input`: the input's status when it is known from the start (a
    /// replay); nil to wait for `inputChanged`.
    init(loop: EventLoop, input: String?, logger: Logger,
         notifier: ServiceNotifier? = ServiceNotifier.fromProcessEnvironment()) {
        self.loop = loop
        self.notifier = notifier
        self.logger = logger
        self.readiness = .makeBoxSendingValue(ServiceReadiness(input: input), eventLoop: loop)
        self.timers = .makeBoxSendingValue([], eventLoop: loop)
    }

    /// The server listens (call on its loop); starts the timers.
    func listening(_ server: TransitionServer) {
        send(readiness.value.listening(on: server.options.socketPath))
        guard notifier != nil else { return }
        if let keepAlive = ServiceWatchdog.keepAlive() {
            let interval = keepAlive.interval
            if keepAlive.clamped {
                // Once, here: the timer below never says it again.
                logger.warning("watchdog: WATCHDOG_USEC=\(keepAlive.timeout / 1000) asks for a keep-alive every \(Double(keepAlive.timeout) / 2e9) s; sending one every \(Double(interval) / 1e9) s, the most often this daemon does (a watchdog under \(Double(2 * interval) / 1e9) s may fire)")
            } else {
                logger.info("watchdog: keep-alive every \(Double(interval) / 1e9) s")
            }
            send("WATCHDOG=1")
            timers.value.append(loop.scheduleRepeatedTask(initialDelay: .nanoseconds(interval), delay: .nanoseconds(interval)) { [self] _ in
                send("WATCHDOG=1")
            })
        }
        server.clientCountChanged = { [self] count in
            send(readiness.value.clientCount(count))
        }
    }

    /// The input's status changed (on the loop).
    func inputChanged(_ text: String) {
        send(readiness.value.inputChanged(text))
    }

    /// A reload begins / is over (on the loop): `RELOADING=1` … `READY=1`.
    func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        send(readiness.value.reloading(monotonicMicroseconds: UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000))
    }

    func reloadDone() {
        send(readiness.value.reloadDone())
    }

    /// Shutting down (on the loop): `STOPPING=1`, and the timers end.
    func shuttingDown() {
        send(readiness.value.shuttingDown())
        timers.value.forEach { $0.cancel() }
        timers.value.removeAll()
    }

    private func send(_ message: String?) {
        guard let message, let notifier else { return }
        if !notifier.notify(message) {
            logger.debug("could not notify the service manager at \(notifier.address): \(String(cString: strerror(errno)))")
        }
    }
}
