import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a careless or hostile local client, or a service manager's signals,
/// must never do to the daemon: take its slots, trap it, leave a transition
/// half-way, or kill it. Real daemon processes, real sockets.
@Suite("Hostile clients and signals", .serialized)
struct HostileClientTests {
    /// A daemon that has played a short replay and serves on, listening; and its socket.
    func heldDaemon() throws -> (DaemonProcess, String) {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--hold", "Recordings/back-flick-finish.events"],
                                       socket: socket)
        try daemon.waitUntilListening()
        return (daemon, socket)
    }

    /// Waits (bounded) until the daemon's descriptor count is `count`; the last count seen.
    func waitForOpenFiles(_ daemon: DaemonProcess, _ count: Int, timeout: Double = 10) -> Int {
        var seen = -1
        waitUntil(timeout: timeout, pollingEvery: 0.02) {
            seen = daemon.openFileCount()
            return seen == count
        }
        return seen
    }

    /// Connect and close at once, a thousand times (the old server kept a
    /// slot for each one closed while its `hello` was written, and after 256
    /// of them refused everyone): a new client still gets `hello`, and the
    /// daemon holds no more descriptors than before.
    @Test func aThousandConnectAndCloseCyclesLeaveNoTrace() throws {
        let (daemon, socket) = try heldDaemon()
        let baseline = daemon.openFileCount()
        #expect(baseline > 0)
        for i in 0..<1000 {
            let client = try LineClient(path: socket)
            if i % 3 == 1 { try? client.send("{\"cmd\":\"pi") }            // half a line
            if i % 3 == 2 { try? client.send("{\"cmd\":\"ping\"}\n") }     // a whole one
            client.close()
        }
        let late = try LineClient(path: socket)
        #expect(late.readLine().map(typeOf) == "hello", "a new client is served")
        try late.send("{\"cmd\":\"ping\"}\n")
        #expect(late.readUntil { typeOf($0) == "pong" }.last.map(typeOf) == "pong")
        late.close()
        #expect(waitForOpenFiles(daemon, baseline) == baseline, "descriptors back at the start")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(!daemon.stderr.contains("too-many-clients") && !daemon.stderr.contains("refused"))
    }

    /// Every numeric field of every command with extreme values: an `error`
    /// line each (the old daemon trapped on a release velocity of 1e19), and
    /// the daemon answers `ping` after each. `-0` is zero, a valid value: it
    /// is taken as 0.
    @Test func extremeNumbersAreRefusedAtTheEdge() throws {
        let (daemon, socket) = try heldDaemon()
        let client = try LineClient(path: socket)
        _ = client.readUntil { typeOf($0) == "finished" }   // the replay itself
        let extremes = ["1e308", "-1e308", "1e19", "-1e19", "123456789012345678901234567890",
                        "-123456789012345678901234567890", "\"0.5\"", "null", "true", "[1]", "{}", "1.5", "-0.25"]

        func reply(to command: String) -> [String: Any] {
            try? client.send(command + "\n")
            let lines = client.readUntil(timeout: 10) { ["error", "ok", "pong"].contains(typeOf($0)) }
            return object(lines.last ?? "")
        }
        func expectAlive(_ context: String) {
            let pong = reply(to: "{\"cmd\":\"ping\"}")
            #expect(pong["type"] as? String == "pong", "no pong after \(context)")
        }

        for value in extremes {
            let drive = reply(to: "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":\(value)}")
            #expect(drive["type"] as? String == "error" && drive["code"] as? String == "bad-field", "drive progress \(value): \(drive)")
            expectAlive("drive progress \(value)")

            #expect(reply(to: "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}")["type"] as? String == "ok")
            if !["1.5", "-0.25"].contains(value) {   // velocities in range
                let release = reply(to: "{\"cmd\":\"release\",\"transition\":\"back\",\"velocity\":\(value)}")
                #expect(release["type"] as? String == "error" && release["code"] as? String == "bad-field", "release velocity \(value): \(release)")
                expectAlive("release velocity \(value)")
            }
            #expect(reply(to: "{\"cmd\":\"cancel\",\"transition\":\"back\"}")["type"] as? String == "ok", "still driven after the refusal")
            _ = client.readUntil { typeOf($0) == "cancelled" }

            if value != "\"0.5\"" {   // a string id is an id
                let ping = reply(to: "{\"cmd\":\"ping\",\"id\":\(value)}")
                #expect(ping["type"] as? String == "error" && ping["code"] as? String == "bad-field", "id \(value): \(ping)")
                expectAlive("id \(value)")
            }
        }
        // The largest velocities allowed reach the stream as valid JSON.
        for value in ["1000", "-1000", "-0"] {
            #expect(reply(to: "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.5}")["type"] as? String == "ok")
            #expect(reply(to: "{\"cmd\":\"release\",\"transition\":\"back\",\"velocity\":\(value)}")["type"] as? String == "ok")
            let lines = client.readUntil { ["finished", "cancelled"].contains(typeOf($0)) }
            #expect(lines.allSatisfy { !object($0).isEmpty }, "every line is JSON")
            let ended = object(lines.first { typeOf($0) == "ended" } ?? "")
            #expect(ended["velocity"] as? Double == Double(value).map { $0 + 0 }, "release velocity \(value)")
        }
        // -0 as progress and as an id: zero.
        #expect(reply(to: "{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":-0}")["type"] as? String == "ok")
        #expect(object(client.readUntil { typeOf($0) == "began" }.last ?? "")["progress"] as? Double == 0)
        #expect(reply(to: "{\"cmd\":\"cancel\",\"transition\":\"back\"}")["type"] as? String == "ok")
        #expect(reply(to: "{\"cmd\":\"ping\",\"id\":-0}")["id"] as? Int == 0)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A client drives a transition to 0.6 and goes away: the others see it
    /// end (cancel, reason `client-lost`) and animate back to 0.
    @Test func aDrivingClientThatGoesAwayEndsItsTransition() throws {
        let (daemon, socket) = try heldDaemon()
        let watcher = try LineClient(path: socket)
        _ = watcher.readUntil { typeOf($0) == "finished" }
        let driver = try LineClient(path: socket)
        #expect(driver.readLine().map(typeOf) == "hello")
        try driver.send("{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.6}\n")
        let began = watcher.readUntil { typeOf($0) == "began" }.last.map(object) ?? [:]
        #expect(began["progress"] as? Double == 0.6)
        driver.close()
        let rest = watcher.readUntil { ["finished", "cancelled"].contains(typeOf($0)) }
        let ended = object(rest.first { typeOf($0) == "ended" } ?? "")
        #expect(ended["decision"] as? String == "cancel")
        #expect(ended["reason"] as? String == "client-lost")
        #expect(ended["progress"] as? Double == 0.6)
        #expect(rest.filter { typeOf($0) == "animating" }.count > 1, "animated back")
        #expect(rest.last.map(typeOf) == "cancelled")
        #expect(object(rest.last ?? "")["progress"] as? Double == 0)
        // Nothing is left in flight.
        try watcher.send("{\"cmd\":\"state\"}\n")
        let state = object(watcher.readUntil { typeOf($0) == "state" }.last ?? "")
        #expect((state["active"] as? [Any])?.isEmpty == true)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.stderr.contains("went away while driving back"))
    }

    /// What a service manager or a closed terminal sends: SIGHUP and SIGPIPE
    /// leave the daemon serving (the old one died of SIGHUP and left its
    /// socket file); SIGTERM then stops it cleanly.
    @Test func sighupAndSigpipeLeaveTheDaemonServing() throws {
        let (daemon, socket) = try heldDaemon()
        let client = try LineClient(path: socket)
        #expect(client.readLine().map(typeOf) == "hello")
        for number in [SIGHUP, SIGPIPE, SIGHUP] {
            daemon.signal(number)
            try client.send("{\"cmd\":\"ping\"}\n")
            #expect(client.readUntil { typeOf($0) == "pong" }.last.map(typeOf) == "pong", "signal \(number)")
        }
        let late = try LineClient(path: socket)
        #expect(late.readLine().map(typeOf) == "hello")
        #expect(daemon.process.isRunning)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.stderr.contains("SIGHUP"))
        #expect(!FileManager.default.fileExists(atPath: socket))
    }
}
