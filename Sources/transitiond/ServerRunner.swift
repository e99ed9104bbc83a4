#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import Logging
import NIOCore
import NIOPosix
import ServerPorts
import Server
import ServerCore
import ServiceManager

/// Runs the socket server until SIGINT/SIGTERM (or, for a replay, until the
/// replay has ended): one event-loop thread for the engine host, the
/// encoding and every client.
enum ServerRunner {
    /// Sets up logging to stderr once: for the journal (a `<N>` priority,
    /// no timestamp) when `$JOURNAL_STREAM` says stderr goes there.
    static func logger(verbose: Bool) -> Logger {
        let journal = JournalLogHandler.stderrIsJournal(getenv("JOURNAL_STREAM").map { String(cString: $0) })
        LoggingSystem.bootstrap { label in
            if journal { return JournalLogHandler(label: label, logLevel: verbose ? .debug : .info) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .info
            return handler
        }
        return Logger(label: "transitiond")
    }

    /// Starts re-reading the config off the loop, and calls `done` once,
    /// on any thread, with the config or why it cannot be used.
    typealias ConfigRead = (_ done: @escaping @Sendable (Result<ReloadedConfiguration, Error>) -> Void) -> Void

    /// `inputStatus`: the input's status when it is known from the start (a
    /// replay), else nil and the host reports it through the service link.
    /// `readConfig`: re-reads the config for a reload (SIGHUP, the `reload`
    /// command); nil: the config stays as it started.
    static func run(options: ServerOptions, logger: Logger, stopWhenInputEnds: Bool, inputStatus: String?,
                    readConfig: ConfigRead? = nil, metrics: MetricsService? = nil,
                    host makeHost: (EventLoop, ServiceLink) -> EngineHost) throws {
        // Before any of the daemon's threads: their stacks then never get a
        // 2 MiB page (an idle daemon's RSS steady from one start to the next).
        ProcessMemory.forgoHugePages()
        raiseFileLimit(logger: logger)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        var options = options
        options.closeWhenInputEnds = stopWhenInputEnds
        let service = ServiceLink(loop: loop, input: inputStatus, logger: logger)
        // After the server has closed (and its loop is gone), a late signal
        // or a read that ends late is dropped rather than scheduled on a
        // dead loop: both go to the loop under this flag's lock.
        let serving = ServingFlag()
        var reader: ConfigReader? = nil
        if let readConfig {
            reader = { done in
                service.reloading()
                readConfig { result in
                    let read = result.mapError { error -> ConfigReadFailure in
                        guard let failure = error as? Failure else { return ConfigReadFailure("\(error)") }
                        // One line for the log and the client's `bad-config`: a
                        // syntax error's source line and caret are for terminals.
                        return ConfigReadFailure(failure.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? failure.message)
                    }
                    serving.value.withLock { serving in
                        guard serving else { return }
                        loop.execute { service.reloadDone() }
                        done(read)
                    }
                }
            }
        }
        let server = TransitionServer(loop: loop, options: options, host: makeHost(loop, service), logger: logger,
                                      configReader: reader, metrics: metrics)
        let reloads = readConfig != nil
        // What a service manager or a terminal sends: SIGINT and SIGTERM
        // stop the daemon cleanly; SIGHUP re-reads the config (the daemon;
        // a replay says so in the log and keeps serving with the one it
        // started with); SIGPIPE is ignored (a reader that
        // went away — a client, or whoever reads the log on a pipe — is a
        // write error, never the end of the daemon).
        defer { serving.value.withLock { $0 = false } }
        do {
            try ProcessSignals.watch { number in
                guard serving.value.withLock({ $0 }) else { return }
                if number == SIGHUP {
                    if reloads {
                        logger.info("SIGHUP: reloading the config")
                        server.reload()
                    } else {
                        logger.notice("SIGHUP: a replay keeps the config it started with")
                    }
                    return
                }
                logger.info("signal \(number): shutting down")
                server.loop.execute { service.shuttingDown() }
                _ = server.shutdown()
            }
        } catch {
            throw Failure(.unavailable, "cannot watch for signals: \(error)")
        }
        do {
            try server.start()
        } catch let error as SocketPathError {
            switch error.kind {
            // A path that cannot be bound (no such folder, no permission)
            // is a socket the daemon cannot have, as one in use is: 69, not
            // 74, which is a failed write of the output.
            case .inUse, .notASocket, .unsafeFolder, .system: throw Failure(.unavailable, error.description)
            case .tooLong: throw Failure(.usage, error.description)
            }
        } catch let error as IOError {
            throw Failure(.unavailable, "cannot listen: \(error)")
        } catch {
            throw Failure(.unavailable, "\(options.socketPath): cannot listen: \(error)")
        }
        try? server.loop.submit { service.listening(server) }.wait()
        server.closed.futureResult.whenComplete { _ in service.shuttingDown() }
        try server.closed.futureResult.wait()
    }

    /// Whether the server still takes signals.
    private final class ServingFlag: Sendable {
        let value = Locked(true)
    }

    /// Many clients need many descriptors: take the hard limit.
    private static func raiseFileLimit(logger: Logger) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) != 0 {
            logger.debug("could not raise the open-file limit")
        }
    }
}
