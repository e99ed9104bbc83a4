#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceManager
import TestSupport
import Testing

// MARK: Socket activation

@Suite struct SocketActivationTests {
    @Test func nothingWhenUnsetOrForAnotherProcess() throws {
        #expect(try SocketActivation.parse(environment: [:], pid: 42) == nil)
        #expect(try SocketActivation.parse(environment: ["LISTEN_PID": "41", "LISTEN_FDS": "1"], pid: 42) == nil)
    }

    @Test func descriptorsFromThreeWithTheirNames() throws {
        let activation = try SocketActivation.parse(
            environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "transitiond.socket:websocket"], pid: 42)
        #expect(activation?.sockets == [.init(descriptor: 3, name: "transitiond.socket"),
                                        .init(descriptor: 4, name: "websocket")])
        let unnamed = try SocketActivation.parse(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "1"], pid: 42)
        #expect(unnamed?.sockets == [.init(descriptor: 3, name: "unknown")])
    }

    @Test func badVariablesAreNamed() {
        #expect(throws: SocketActivation.Failure.self) {
            try SocketActivation.parse(environment: ["LISTEN_PID": "x", "LISTEN_FDS": "1"], pid: 42)
        }
        #expect(throws: SocketActivation.Failure.self) {
            try SocketActivation.parse(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "-1"], pid: 42)
        }
        #expect(throws: SocketActivation.Failure.self) {
            try SocketActivation.parse(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "one"], pid: 42)
        }
    }

    @Test func aListeningUnixStreamSocketIsRecognisedAndItsPathRead() throws {
        let path = temporarySocketPath("listen")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(!SocketActivation.isListeningUnixStream(fd), "bound but not listening")
        #expect(listen(fd, 8) == 0)
        #expect(SocketActivation.isListeningUnixStream(fd))
        #expect(SocketActivation.boundPath(fd) == path)
        let activation = SocketActivation(sockets: [.init(descriptor: fd, name: "other")])
        #expect(try activation.unixListener(named: "transitiond.socket")?.descriptor == fd, "the only one, whatever its name")
        let datagram = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(datagram) }
        #expect(!SocketActivation.isListeningUnixStream(datagram))
        #expect(throws: SocketActivation.Failure.self) {
            try SocketActivation(sockets: [.init(descriptor: datagram, name: "x")]).unixListener(named: "transitiond.socket")
        }
    }
}

// MARK: Notify

@Suite struct ServiceNotifierTests {
    /// A datagram socket bound at `address` (a path, or `@abstract`).
    private func receiver(_ address: String) -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let ok = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        precondition(ok == 0, "bind \(address): \(errno)")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private func receive(_ fd: CInt) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n >= 0 ? String(decoding: buffer[..<n], as: UTF8.self) : nil
    }

    @Test func aDatagramToAPath() throws {
        let path = temporarySocketPath("notify")
        let fd = receiver(path)
        defer { close(fd); unlink(path) }
        let notifier = try #require(ServiceNotifier(environment: ["NOTIFY_SOCKET": path]))
        #expect(notifier.notify("READY=1\nSTATUS=serving"))
        #expect(receive(fd) == "READY=1\nSTATUS=serving")
    }

    @Test func aDatagramToAnAbstractName() throws {
        let name = "@transitiond-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = receiver(name)
        defer { close(fd) }
        let notifier = try #require(ServiceNotifier(environment: ["NOTIFY_SOCKET": name]))
        #expect(notifier.notify("WATCHDOG=1"))
        #expect(receive(fd) == "WATCHDOG=1")
    }

    @Test func noNotifierWithoutAUsableAddress() {
        #expect(ServiceNotifier(environment: [:]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": ""]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]) == nil)
        #expect(ServiceNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]) == nil)
    }

    @Test func aNotifierWhoseManagerIsGoneSaysSo() throws {
        let path = temporarySocketPath("gone")
        let notifier = try #require(ServiceNotifier(address: path))
        #expect(!notifier.notify("READY=1"))
    }
}

// MARK: Watchdog

@Suite struct ServiceWatchdogTests {
    @Test func halfTheIntervalForThisProcess() {
        #expect(ServiceWatchdog.keepAliveInterval(environment: ["WATCHDOG_USEC": "10000000"], pid: 7) == 5_000_000_000)
        #expect(ServiceWatchdog.keepAliveInterval(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "7"], pid: 7)
                == 5_000_000_000)
    }

    @Test func noneForAnotherProcessOrWithoutAnInterval() {
        #expect(ServiceWatchdog.keepAliveInterval(environment: ["WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
        #expect(ServiceWatchdog.keepAliveInterval(environment: [:], pid: 7) == nil)
        #expect(ServiceWatchdog.keepAliveInterval(environment: ["WATCHDOG_USEC": "0"], pid: 7) == nil)
        #expect(ServiceWatchdog.keepAliveInterval(environment: ["WATCHDOG_USEC": "soon"], pid: 7) == nil)
        #expect(ServiceWatchdog.keepAliveInterval(environment: ["WATCHDOG_USEC": "99999999999999999999"], pid: 7) == nil)
    }

    /// `WATCHDOG_USEC=1` once made the loop send a keep-alive every 500 ns.
    @Test func aWatchdogShorterThanTheLoopCanHonourIsClampedAndSaysSo() {
        let tiny = ServiceWatchdog.keepAlive(environment: ["WATCHDOG_USEC": "1"], pid: 7)
        #expect(tiny == ServiceWatchdog.KeepAlive(timeout: 1_000))
        #expect(tiny?.interval == 100_000_000, "never more often than every 100 ms")
        #expect(tiny?.clamped == true)
        #expect(ServiceWatchdog.keepAliveInterval(environment: ["WATCHDOG_USEC": "1"], pid: 7) == 100_000_000)
        // Just under twice the shortest interval is clamped; twice it is not.
        let under = ServiceWatchdog.keepAlive(environment: ["WATCHDOG_USEC": "199999"], pid: 7)
        #expect(under?.interval == 100_000_000 && under?.clamped == true)
        let at = ServiceWatchdog.keepAlive(environment: ["WATCHDOG_USEC": "200000"], pid: 7)
        #expect(at?.interval == 100_000_000 && at?.clamped == false)
        let usual = ServiceWatchdog.keepAlive(environment: ["WATCHDOG_USEC": "30000000"], pid: 7)
        #expect(usual?.interval == 15_000_000_000 && usual?.clamped == false)
    }
}

// MARK: Readiness

@Suite struct ServiceReadinessTests {
    @Test func readyOnceTheSocketListensAndTheInputIsKnown() {
        var readiness = ServiceReadiness()
        #expect(readiness.listening(on: "/run/transitiond/socket") == nil, "input not known yet")
        #expect(readiness.clientCount(0) == nil)
        #expect(readiness.inputChanged("waiting for a touchscreen")
                == "READY=1\nSTATUS=serving /run/transitiond/socket; input: waiting for a touchscreen; 0 clients")
        #expect(readiness.inputChanged("waiting for a touchscreen") == nil, "nothing new")
        #expect(readiness.clientCount(1)
                == "STATUS=serving /run/transitiond/socket; input: waiting for a touchscreen; 1 client")
        #expect(readiness.inputChanged("/dev/input/event5 \"Panel\"")
                == "STATUS=serving /run/transitiond/socket; input: /dev/input/event5 \"Panel\"; 1 client")
        #expect(readiness.shuttingDown() == "STOPPING=1\nSTATUS=stopping")
        #expect(readiness.shuttingDown() == nil, "once")
        #expect(readiness.clientCount(0) == nil, "nothing after stopping")
    }

    @Test func aReplayIsReadyWhenItListens() {
        var readiness = ServiceReadiness(input: "replay")
        #expect(readiness.listening(on: "/tmp/s") == "READY=1\nSTATUS=serving /tmp/s; input: replay; 0 clients")
    }

    @Test func stoppingBeforeReadyNeverSaysReady() {
        var readiness = ServiceReadiness()
        #expect(readiness.shuttingDown() == "STOPPING=1\nSTATUS=stopping")
        #expect(readiness.listening(on: "/tmp/s") == nil)
        #expect(readiness.inputChanged("x") == nil)
    }
}

// MARK: Journal

@Suite struct JournalLogHandlerTests {
    @Test func aPriorityPrefixAndOneLineARecord() {
        #expect(JournalLogHandler.line(level: .info, message: "serving /run/transitiond/socket", metadata: [:])
                == "<6>serving /run/transitiond/socket\n")
        #expect(JournalLogHandler.line(level: .warning, message: "two\nlines\r", metadata: [:]) == "<4>two\\nlines\\r\n")
        #expect(JournalLogHandler.line(level: .error, message: "x", metadata: ["b": "2", "a": "1"]) == "<3>x a=1 b=2\n")
        #expect(JournalLogHandler.priority(.debug) == 7)
        #expect(JournalLogHandler.priority(.notice) == 5)
        #expect(JournalLogHandler.priority(.critical) == 2)
    }

    @Test func onlyWhenStderrIsTheJournalsStream() {
        #expect(!JournalLogHandler.stderrIsJournal(nil))
        #expect(!JournalLogHandler.stderrIsJournal("garbage"))
        var info = stat()
        #expect(fstat(STDERR_FILENO, &info) == 0)
        #expect(JournalLogHandler.stderrIsJournal("\(info.st_dev):\(info.st_ino)"))
        #expect(!JournalLogHandler.stderrIsJournal("\(info.st_dev):\(info.st_ino &+ 1)"))
    }
}
