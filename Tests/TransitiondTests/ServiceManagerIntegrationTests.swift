import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// `transitiond run` under a service manager's protocols, with real parts:
/// `systemd-socket-activate` passing the listening socket, a datagram
/// socket bound by the test as `$NOTIFY_SOCKET`, and stderr as the
/// journal's stream. No device: `--input-root` is an empty folder, so the
/// daemon serves and waits for a touchscreen.
@Suite(.serialized, Tools.needed("systemd-socket-activate")) struct ServiceManagerIntegrationTests {
    // MARK: Socket activation

    @Test func aClientThatConnectsBeforeTheDaemonRunsGetsHelloAndTheSocketOutlivesIt() throws {
        let socket = temporarySocketPath("activated")
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let daemon = try DaemonProcess(["run", "--input-root", inputs.path], socket: socket,
                                       launcher: ["/usr/bin/systemd-socket-activate", "-l", socket,
                                                  "--fdname=transitiond.socket"])
        // systemd-socket-activate binds and listens; the daemon runs only
        // once a connection is pending.
        #expect(waitUntil(timeout: 20) { isSocket(socket) }, "the launcher listens: \(daemon.stderr)")
        #expect(!daemon.stderr.contains("serving"), "the daemon is not running yet")
        let client = try LineClient(path: socket)
        let hello = client.readLine(timeout: 30)
        #expect(hello.map(typeOf) == "hello", "the first client is served: \(daemon.stderr)")
        #expect(daemon.stderr.contains("socket activation: serving descriptor 3 (transitiond.socket) at \(socket)"))
        try client.send("{\"cmd\":\"ping\"}\n")
        #expect(client.readUntil { typeOf($0) == "pong" }.last.map(typeOf) == "pong")
        client.close()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        #expect(isSocket(socket), "the passed socket's file is left where it was")
        #expect(daemon.stderr.contains("stays with the service manager"))
    }

    @Test func passedVariablesForAnotherProcessAreIgnored() throws {
        let socket = temporarySocketPath("own")
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let daemon = try DaemonProcess(["run", "--socket", socket, "--input-root", inputs.path], socket: socket,
                                       environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1"])
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        #expect(client.readLine().map(typeOf) == "hello")
        client.close()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(!isSocket(socket), "its own socket is removed")
    }

    @Test func aPassedTCPSocketServesTheWebSocketBesideTheUnixSocket() throws {
        let socket = temporarySocketPath("activated-ws")
        let port = try freeLoopbackPort()
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        // As transitiond.socket and transitiond-websocket.socket pass them.
        let daemon = try DaemonProcess(["run", "--input-root", inputs.path], socket: socket,
                                       launcher: ["/usr/bin/systemd-socket-activate", "-l", socket,
                                                  "-l", "127.0.0.1:\(port)", "--fdname=transitiond.socket:websocket"])
        #expect(waitUntil(timeout: 20) { isSocket(socket) }, "the launcher listens: \(daemon.stderr)")
        let upgrade = "GET /stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let answer = try tcpExchange(port: port, send: upgrade) { $0.contains("\"type\":\"hello\"") }
        #expect(answer.hasPrefix("HTTP/1.1 101"), "a WebSocket upgrade on the passed TCP socket: \(answer)")
        #expect(answer.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "the RFC 6455 accept key: \(answer)")
        #expect(answer.contains("\"type\":\"hello\""), "the first message is hello: \(answer)")
        #expect(daemon.stderr.contains("socket activation: WebSocket on descriptor 4 (websocket) at 127.0.0.1:\(port)"),
                "\(daemon.stderr)")
        let health = try tcpExchange(port: port, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") { $0.hasSuffix("ok\n") }
        #expect(health.hasPrefix("HTTP/1.1 200"), "\(health)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
        #expect(isSocket(socket), "the passed Unix socket's file stays")
    }

    @Test func aPassedTCPSocketNamedMetricsServesTheMetricsAndIsNotTakenForTheWebSocket() throws {
        let socket = temporarySocketPath("activated-metrics")
        let port = try freeLoopbackPort()
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        // As transitiond.socket and transitiond-metrics.socket pass them.
        let daemon = try DaemonProcess(["run", "--input-root", inputs.path], socket: socket,
                                       launcher: ["/usr/bin/systemd-socket-activate", "-l", socket,
                                                  "-l", "127.0.0.1:\(port)", "--fdname=transitiond.socket:metrics"])
        #expect(waitUntil(timeout: 20) { isSocket(socket) }, "the launcher listens: \(daemon.stderr)")
        // The whole response, to the close that ends it: the metrics are
        // more than one read's 4 KiB, in no fixed order.
        let metrics = try tcpExchange(port: port, send: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") { _ in false }
        #expect(metrics.contains("transitiond_input_waiting 1.0\n"), "\(metrics)")
        #expect(metrics.hasPrefix("HTTP/1.1 200"), "\(metrics)")
        #expect(metrics.contains("transitiond_build_info{version="), "\(metrics)")
        let health = try tcpExchange(port: port, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") { $0.hasSuffix("ok\n") }
        #expect(health.hasPrefix("HTTP/1.1 200"), "\(health)")
        let upgrade = try tcpExchange(port: port, send: "GET /stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n") {
            $0.contains("\r\n\r\n")
        }
        #expect(!upgrade.hasPrefix("HTTP/1.1 101"), "no WebSocket on the metrics socket: \(upgrade)")
        #expect(daemon.stderr.contains("socket activation: metrics on descriptor 4 (metrics)"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains("WebSocket on descriptor"), "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    @Test func metricsTurnedOffInTheConfigAreServedNowhere() throws {
        let socket = temporarySocketPath("no-metrics")
        let port = try freeLoopbackPort()
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let config = inputs.file("off.toml", "[[transition]]\nname = \"back\"\ngesture = \"edge-pan\"\nedge = \"left\"\n\n[metrics]\nenabled = false\n")
        let daemon = try DaemonProcess(["run", "--socket", socket, "--input-root", inputs.path, "--config", config,
                                        "--websocket", "127.0.0.1:\(port)"], socket: socket)
        try daemon.waitUntilListening()
        let metrics = try tcpExchange(port: port, send: "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n") { $0.contains("no page") }
        #expect(metrics.hasPrefix("HTTP/1.1 404"), "\(metrics)")
        let health = try tcpExchange(port: port, send: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") { $0.hasSuffix("ok\n") }
        #expect(health.hasPrefix("HTTP/1.1 200"), "/healthz stays: \(health)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }

    // MARK: Notify

    @Test func readyAfterTheSocketAcceptsWatchdogAtHalfTheIntervalStoppingOnSigterm() throws {
        let socket = temporarySocketPath("notified")
        let notify = try NotifyReceiver(path: temporarySocketPath("notify"))
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let daemon = try DaemonProcess(["run", "--socket", socket, "--input-root", inputs.path], socket: socket,
                                       environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000"])
        var messages: [(time: Double, text: String)] = []
        func next() -> String? {
            guard let message = notify.receive(timeout: 10) else { return nil }
            messages.append(message)
            return message.text
        }
        // READY=1: the socket accepts by then.
        var ready: String?
        while let text = next() {
            if text.hasPrefix("READY=1") { ready = text; break }
        }
        let status = try #require(ready, "READY=1 arrives: \(daemon.stderr)")
        #expect(status.contains("STATUS=serving \(socket); input: waiting for a touchscreen; 0 clients"))
        let client = try LineClient(path: socket, retry: false)
        #expect(client.readLine().map(typeOf) == "hello")
        // WATCHDOG=1 every half of WATCHDOG_USEC (0.5 s): never sooner.
        var watchdogs: [Double] = messages.filter { $0.text == "WATCHDOG=1" }.map(\.time)
        while watchdogs.count < 4, let text = next() {
            if text == "WATCHDOG=1" { watchdogs.append(messages.last!.time) }
        }
        #expect(watchdogs.count == 4, "\(messages.map(\.text))")
        for (a, b) in zip(watchdogs, watchdogs.dropFirst()) {
            #expect(b - a >= 0.45, "WATCHDOG=1 \(b - a) s after the one before")
        }
        #expect(messages.contains { $0.text.contains("1 client") }, "STATUS follows the clients: \(messages.map(\.text))")
        client.close()
        daemon.signal(SIGTERM)
        var stopping = false
        while let text = next() {
            if text.hasPrefix("STOPPING=1") { stopping = true; break }
        }
        #expect(stopping, "STOPPING=1 on SIGTERM: \(messages.map(\.text))")
        #expect(daemon.waitForExit() == 0)
        #expect(!messages.contains { $0.text.hasPrefix("READY=1") && $0.time > messages.first { $0.text.hasPrefix("STOPPING") }!.time })
    }

    /// `WATCHDOG_USEC=1` once had the loop send WATCHDOG=1 every 500 ns:
    /// now every 100 ms, the most often it does, said once in the log.
    @Test func aWatchdogTooShortToHonourIsClampedAndLoggedOnce() throws {
        let socket = temporarySocketPath("notified")
        let notify = try NotifyReceiver(path: temporarySocketPath("notify"))
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let daemon = try DaemonProcess(["run", "--socket", socket, "--input-root", inputs.path], socket: socket,
                                       environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1"])
        var watchdogs: [Double] = []
        var others = 0
        while watchdogs.count < 6, let message = notify.receive(timeout: 10) {
            if message.text == "WATCHDOG=1" { watchdogs.append(message.time) } else { others += 1 }
            #expect(others < 50, "something else floods the socket")
            if others >= 50 { break }
        }
        #expect(watchdogs.count == 6, "\(daemon.stderr)")
        // The first goes at READY; each after it 100 ms on (a timer never fires early).
        for (a, b) in zip(watchdogs.dropFirst(), watchdogs.dropFirst(2)) {
            #expect(b - a >= 0.09, "WATCHDOG=1 \(b - a) s after the one before")
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.stderr.components(separatedBy: "WATCHDOG_USEC=1 asks for a keep-alive every").count == 2,
                "said once: \(daemon.stderr)")
    }

    @Test func noWatchdogForAnotherProcess() throws {
        let socket = temporarySocketPath("notified")
        let notify = try NotifyReceiver(path: temporarySocketPath("notify"))
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let daemon = try DaemonProcess(["run", "--socket", socket, "--input-root", inputs.path], socket: socket,
                                       environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000",
                                                     "WATCHDOG_PID": "1"])
        let ready = notify.receive(timeout: 20)
        #expect(ready?.text.hasPrefix("READY=1") == true, "\(daemon.stderr)")
        // An idle daemon sends nothing more; in 1.5 s a watchdog at 0.1 s would send 15.
        var texts: [String] = []
        while let message = notify.receive(timeout: 1.5) { texts.append(message.text) }
        #expect(!texts.contains("WATCHDOG=1"), "\(texts)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    // MARK: Config and journal

    @Test func theConfigFromTheEnvironmentAndTheDeviceFromTheConfig() throws {
        let socket = temporarySocketPath("configured")
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let config = inputs.file("kiosk.toml", """
            [[transition]]
            name = "back"
            gesture = "edge-pan"
            edge = "left"

            [input]
            device = "/dev/input/by-id/usb-Kiosk_Panel-event-if00"
            """)
        let daemon = try DaemonProcess(["run", "--socket", socket, "--input-root", inputs.path], socket: socket,
                                       environment: ["TRANSITIOND_CONFIG": config])
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        // The input thread says what it waits for just after the daemon
        // starts listening: the hello or, a moment later, `state` says it.
        let waiting = "\"waiting_for\":\"/dev/input/by-id/usb-Kiosk_Panel-event-if00 to appear\""
        var status = try #require(client.readLine())
        let said = waitUntil(timeout: 10) {
            if status.contains(waiting) { return true }
            try? client.send("{\"cmd\":\"state\"}\n")
            status = client.readLine() ?? status
            return status.contains(waiting)
        }
        #expect(said, "\(status)")
        #expect(daemon.stderr.contains("config: \(config)"))
        client.close()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func journalFormWhenStderrIsTheJournalsStream() throws {
        let socket = temporarySocketPath("journal")
        let inputs = TemporaryDirectory(prefix: "inputs")
        defer { inputs.remove() }
        let log = inputs.file("stderr.log")
        // The shell makes the log file stderr, then says so in JOURNAL_STREAM
        // (device:inode of that file), as systemd does for a service.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "exec 2>\"$1\"; JOURNAL_STREAM=$(stat -c %d:%i \"$1\") exec \"$2\" run --socket \"$3\" --input-root \"$4\"",
                           "sh", log, ProjectPaths.binary, socket, inputs.path]
        shell.standardInput = FileHandle.nullDevice
        try shell.run()
        defer { if shell.isRunning { kill(shell.processIdentifier, SIGKILL) } }
        let text = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        #expect(waitUntil(timeout: 20) { text().contains("serving \(socket)") }, "\(text())")
        kill(shell.processIdentifier, SIGTERM)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let lines = text().split(separator: "\n").map(String.init)
        #expect(lines.contains("<6>serving \(socket) (mode 660)"), "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("<") && $0.dropFirst().first.map(\.isNumber) == true }, "\(lines)")
        // A timestamp as the daemon writes one elsewhere (2026-11-27T10:37:16+0000); not
        // just "T0", which a random temporary path may contain.
        #expect(!lines.contains { $0.range(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d"#, options: .regularExpression) != nil },
                "no timestamp of its own: \(lines)")
    }
}

// MARK: Helpers

private func isSocket(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
}

/// A TCP port on 127.0.0.1 that nothing listens on now.
private func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard ok else { throw HarnessError("cannot bind a loopback port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Connects to 127.0.0.1:`port` (retrying for a few seconds), sends `text`
/// and reads until `done` holds for what arrived, the peer closes, or 10 s.
private func tcpExchange(port: Int, send text: String, until done: (String) -> Bool) throws -> String {
    var fd: Int32 = -1
    let connected = waitUntil(timeout: 10) {
        if fd >= 0 { close(fd) }
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
    defer { close(fd) }
    guard connected else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while !done(String(decoding: received, as: UTF8.self)) {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { break }
        received += chunk[0..<n]
    }
    return String(decoding: received, as: UTF8.self)
}
