import Foundation
import SystemSupport
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The socket server with real processes: the daemon is `transitiond replay
/// --socket`, clients are this test's sockets, `socat` and Python.
@Suite("Socket server", .serialized)
struct ServerIntegrationTests {
    static let example = "config/example.toml"

    func config(_ extra: String) throws -> String {
        let base = try String(contentsOfFile: ProjectPaths.file(Self.example), encoding: .utf8)
        // Drop the example's [server] table and use ours.
        let engine = base.components(separatedBy: "\n[server]").first ?? base
        return try temporaryFile("server-\(UInt32.random(in: 0...UInt32.max)).toml", engine + "\n[server]\n" + extra + "\n")
    }

    /// A daemon serving a short replay and holding on after it, with these
    /// `[server]` settings, listening.
    func heldDaemon(serverConfig: String) throws -> (DaemonProcess, String) {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--hold", "--config", try config(serverConfig),
                                        "Recordings/back-flick-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        return (daemon, socket)
    }

    /// The event lines (no hello) of `replay --fast` for the same input.
    func fastEvents(_ arguments: [String]) throws -> [String] {
        let result = try runTransitiond(["replay", "--fast", "--json"] + arguments)
        return result.lines.filter { typeOf($0) != "hello" }
    }

    @Test(Tools.needed("socat", "python3")) func everyClientGetsTheSameStreamAsFastReplay() throws {
        let socket = temporarySocketPath()
        let recording = "Recordings/back-drag-finish.events"
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "3", "--speed", "4",
                                        "--config", Self.example, recording], socket: socket)
        try daemon.waitUntilListening()
        // Client 1: this process. Client 2: socat. Client 3: the Python example.
        let own = try LineClient(path: socket)
        let socat = Process()
        socat.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        socat.arguments = ["-u", "UNIX-CONNECT:\(socket)", "-"]
        let socatOut = Pipe()
        socat.standardOutput = socatOut
        try socat.run()
        let socatReader = PipeReader(socatOut)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", ProjectPaths.file("docs/examples/subscriber.py"), "--json", "--socket", socket, "--retry-seconds", "0"]
        let pythonOut = Pipe()
        python.standardOutput = pythonOut
        python.standardError = FileHandle.nullDevice
        try python.run()
        let pythonReader = PipeReader(pythonOut)
        let mine = own.readAll(timeout: 30)
        #expect(daemon.waitForExit() == 0)
        #expect(waitUntil(timeout: 20) { socatReader.isAtEnd && pythonReader.isAtEnd })
        let expected = try fastEvents(["--config", Self.example, recording])
        let streams = [mine, socatReader.text.split(separator: "\n").map(String.init),
                       pythonReader.text.split(separator: "\n").map(String.init)]
        for (i, stream) in streams.enumerated() {
            #expect(stream.first.map(typeOf) == "hello", "client \(i)")
            let events = stream.filter { typeOf($0) != "hello" }
            #expect(events == expected, "client \(i) got \(events.count) events, expected \(expected.count)")
        }
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed at the end")
    }

    @Test func aLateClientSeesWhatIsInFlight() throws {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "1", "--speed", "0.5",
                                        "Recordings/back-drag-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let early = try LineClient(path: socket)
        var seen = early.readUntil { line in
            let o = object(line)
            return o["type"] as? String == "changed" && (o["progress"] as? Double ?? 0) > 0.3
        }
        let late = try LineClient(path: socket)
        let hello = object(try #require(late.readLine()))
        #expect(hello["type"] as? String == "hello")
        let active = try #require(hello["active"] as? [[String: Any]])
        #expect(active.count == 1)
        #expect(active.first?["transition"] as? String == "back")
        #expect(active.first?["phase"] as? String == "interacting")
        let seq = try #require(hello["seq"] as? Int)
        // The snapshot is the progress of the early client's last event at or before that seq.
        seen += early.readUntil(timeout: 10) { (object($0)["seq"] as? Int ?? 0) >= seq }
        let before = seen.map(object).filter { ($0["seq"] as? Int ?? Int.max) <= seq }
        let progress = try #require(before.last?["progress"] as? Double)
        #expect(abs((active.first?["progress"] as? Double ?? -1) - progress) < 1e-9)
        // And the late client's next event continues right after the snapshot.
        let next = object(try #require(late.readLine()))
        #expect((next["seq"] as? Int ?? 0) > seq)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func aClientThatNeverReadsDelaysNoOneAndIsDisconnected() throws {
        let socket = temporarySocketPath()
        let cfg = try config("backlog_limit = 4096")
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "2", "--speed", "20", "--loop", "300",
                                        "--config", cfg, "Recordings/back-flick-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let stalled = try LineClient(path: socket)
        var small: Int32 = 4096
        setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let reader = try LineClient(path: socket)
        var peakKB = 0
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, let line = reader.readLine(timeout: deadline.timeIntervalSinceNow) {
            lines.append(line)
            if lines.count % 1000 == 0 { peakKB = max(peakKB, daemon.memoryKB("VmHWM")) }
        }
        #expect(daemon.waitForExit() == 0)
        // The daemon's memory stayed bounded while one client read nothing
        // (not under a sanitizer: its shadow memory is most of the RSS).
        if Sanitizer.current == nil {
            #expect(peakKB > 0 && peakKB < 64 * 1024, "peak RSS \(peakKB) kB")
        }
        // The reader got every event, in order, none coalesced.
        let seqs = lines.map(object).compactMap { $0["seq"] as? Int }.filter { $0 > 0 }
        #expect(seqs.count > 10_000)
        #expect(seqs == Array(1...seqs.count))
        #expect(lines.filter { typeOf($0) == "finished" }.count == 300)
        // The stalled one was cut off with a final error after falling behind.
        #expect(daemon.stderr.contains("fell behind"))
        let tail = stalled.readAll(timeout: 10)
        #expect(tail.count < seqs.count)
    }

    /// A client that stops reading for a while has its `changed`/`animating`
    /// lines coalesced but never a phase event, keeps `seq` order, and once it
    /// has caught up gets every line again (the server moves it from writing
    /// straight to its socket, to queueing in NIO and its outbox, and back).
    @Test func aClientThatFallsBehindKeepsEveryPhaseEventAndCatchesUp() throws {
        let socket = temporarySocketPath()
        let recording = "Recordings/back-drag-finish.events"
        let loops = 60
        let expected = try fastEvents(["--loop", "\(loops)", "--config", Self.example, recording])
        // The second half of the stream must last long enough for the slow
        // client to take its backlog and catch up, also where this test's
        // reading is slow (a sanitizer, a busy machine: at 50× a loaded run
        // never caught up): 10× is 2,400 lines a second.
        let speed = 10
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "2", "--speed", "\(speed)",
                                        "--loop", "\(loops)", "--config", Self.example, recording], socket: socket)
        try daemon.waitUntilListening()
        let slow = try LineClient(path: socket)
        let other = try LineClient(path: socket)
        // The slow client reads nothing until the other one has seen half the
        // stream (about 0.9 MB: far more than the socket and NIO buffers hold).
        var otherLines = other.readUntil(timeout: 60) { (object($0)["seq"] as? Int ?? 0) >= expected.count / 2 }
        // Then both are read to their end at once (the other one on a thread
        // of its own): at the end the server gives each client a second to
        // take its last lines, and neither may spend it waiting for the
        // test to finish reading the other.
        let otherRest = Locked<[String]>([])
        let reader = try NativeThread(name: "other client") { otherRest.withLock { $0 = other.readAll(timeout: 60) } }
        let slowLines = slow.readAll(timeout: 60).filter { typeOf($0) != "hello" }
        reader.join()
        otherLines += otherRest.withLock { $0 }
        otherLines = otherLines.filter { typeOf($0) != "hello" }
        #expect(daemon.waitForExit() == 0)

        let phases = expected.filter { !["changed", "animating"].contains(typeOf($0)) }
        #expect(phases.count == 3 * loops)
        for (name, lines) in [("slow", slowLines), ("other", otherLines)] {
            // Each line is one of the stream's, in the stream's order: only
            // `changed`/`animating` lines are ever left out.
            var next = expected.startIndex
            var inOrder = true
            for line in lines {
                guard let i = expected[next...].firstIndex(of: line) else { inOrder = false; break }
                next = i + 1
            }
            #expect(inOrder, "\(name): every line is the stream's, in order")
            #expect(lines.filter { !["changed", "animating"].contains(typeOf($0)) } == phases,
                    "\(name): every phase event arrived")
        }
        #expect(slowLines.count < expected.count, "the slow client's backlog was coalesced")
        // Once caught up it gets every line: its stream ends with a long run
        // identical to the end of the full stream.
        var run = 0
        while run < slowLines.count && slowLines[slowLines.count - 1 - run] == expected[expected.count - 1 - run] { run += 1 }
        #expect(run >= 5 * expected.count / loops, "gap-free for the last \(run) lines, expected at least 5 loops")
    }

    @Test func hostileInputNeverHurtsTheDaemon() throws {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--hold", "Recordings/back-flick-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let probe = try LineClient(path: socket)
        // The replay has ended and the daemon holds on: its steady state.
        _ = probe.readUntil { typeOf($0) == "finished" }
        let baseline = daemon.openFileCount()

        let client = try LineClient(path: socket)
        #expect(typeOf(try #require(client.readLine())) == "hello")
        // The bound for each answer: it is waited for only as long as it
        // takes, and taking and closing the 10,000 connections below takes
        // a few seconds on an idle machine but much longer on a busy one
        // (the parallel suite, other builds) or under a sanitizer.
        let patience = 60.0
        func next() -> [String: Any] {
            let lines = client.readUntil(timeout: patience) { ["error", "pong", "ok", "state"].contains(typeOf($0)) }
            return object(lines.last ?? "")
        }
        try client.send("this is not json\n")
        #expect(next()["code"] as? String == "bad-json")
        try client.send([0xff, 0xfe, 0x00, 0x01, 0x0a])
        #expect(next()["code"] as? String == "bad-utf8")
        try client.send("{\"cmd\":\"warp\"}\n")
        #expect(next()["code"] as? String == "unknown-command")
        try client.send("{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":\"far\"}\n")
        #expect(next()["code"] as? String == "bad-field")
        try client.send("{\"cmd\":\"subscribe\",\"transitions\":[\"nope\"]}\n")
        #expect(next()["code"] as? String == "unknown-transition")
        try client.send("{\"cmd\":\"ping\",\"id\":\"still-here\"}\n")
        let pong = next()
        #expect(pong["type"] as? String == "pong")
        #expect(pong["id"] as? String == "still-here")

        // A 1 MiB line: an error, then the connection is closed.
        let big = try LineClient(path: socket)
        _ = big.readLine()
        try? big.send([UInt8](repeating: 0x61, count: 1 << 20))
        let rest = big.readAll(timeout: 10)
        #expect(rest.contains { object($0)["code"] as? String == "line-too-long" })
        #expect(big.eof)

        // Half a line, then close; connect-and-close many times.
        let half = try LineClient(path: socket)
        try half.send("{\"cmd\":\"pi")
        half.close()
        for _ in 0..<10_000 {
            let c = try LineClient(path: socket, retry: false)
            c.close()
        }
        // Still alive and answering, and every descriptor came back.
        try client.send("{\"cmd\":\"ping\"}\n")
        #expect(next()["type"] as? String == "pong")
        client.close()
        // The pong may come while the daemon still takes the last queued
        // connections (a few each turn of its loop): the count comes back
        // once they are all taken and closed.
        #expect(waitUntil(timeout: patience, pollingEvery: 0.05) { daemon.openFileCount() == baseline },
                "\(daemon.openFileCount()) descriptors open, \(baseline) before")
        daemon.signal(SIGINT)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func theSocketIsGroupOnlyAndClientsAreLimited() throws {
        let (daemon, socket) = try heldDaemon(serverConfig: "max_clients = 2")
        var info = stat()
        #expect(lstat(socket, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        let a = try LineClient(path: socket), b = try LineClient(path: socket)
        #expect(a.readLine().map(typeOf) == "hello")
        #expect(b.readLine().map(typeOf) == "hello")
        let c = try LineClient(path: socket)
        let refused = c.readAll(timeout: 10)
        #expect(refused.map { object($0)["code"] as? String } == ["too-many-clients"])
        #expect(c.eof)
        // When one leaves, there is room again (as soon as the daemon has
        // seen it leave: retried, within a bound).
        a.close()
        let admitted = try waitUntil(timeout: 10, pollingEvery: 0.02) {
            let d = try LineClient(path: socket)
            let first = d.readLine().map(typeOf)
            if first != "hello" { #expect(first == "error") }
            return first == "hello"
        }
        #expect(admitted, "a new client got in after one left")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Four threads connecting as fast as they can, far past max_clients:
    /// the daemon holds a bounded number of descriptors (the rest wait in the
    /// kernel's listen queue), says so in a few log lines, keeps serving its
    /// clients and still stops at once on SIGTERM.
    @Test(Tools.needed("python3")) func aConnectFloodIsHeldInTheListenQueueNotInTheDaemon() throws {
        let (daemon, socket) = try heldDaemon(serverConfig: "max_clients = 2")
        let client = try LineClient(path: socket)
        #expect(client.readLine().map(typeOf) == "hello")
        // The second slot is taken too, so that every connection of the
        // flood is refused (one that is admitted and closes at once frees
        // its slot as soon as it is gone).
        let filler = try LineClient(path: socket)
        #expect(filler.readLine().map(typeOf) == "hello")
        let baseline = daemon.openFileCount()

        let flood = Process()
        flood.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        flood.arguments = ["python3", "-c", """
            import socket, sys, threading, time
            count, lock = 0, threading.Lock()
            def run():
                global count
                while True:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    try:
                        s.connect(sys.argv[1])
                    except OSError:
                        time.sleep(0.001)
                    finally:
                        s.close()
                    with lock:
                        count += 1
                        if count == 2000:
                            print("flooding", flush=True)
            for _ in range(4):
                threading.Thread(target=run, daemon=True).start()
            time.sleep(120)
            """, socket]
        let out = Pipe()
        flood.standardOutput = out
        flood.standardError = FileHandle.nullDevice
        try flood.run()
        defer { if flood.isRunning { flood.terminate() } }
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = out.fileHandleForReading.availableData
            started.signal()
        }
        #expect(started.wait(timeout: .now() + 30) == .success, "the flood made 2,000 connections")
        // While it floods: descriptors stay bounded (the acceptor hands over
        // at most 256 connections at a time) and the daemon still answers.
        var peak = 0
        for _ in 0..<20 {
            peak = max(peak, daemon.openFileCount())
            usleep(50_000)   // samples the count for about 1 s: a peak has no event to wait for
        }
        #expect(peak - baseline < 600, "at most \(peak - baseline) descriptors above the baseline")
        try client.send("{\"cmd\":\"ping\"}\n")
        // Under a sanitizer the daemon is several times slower, and the
        // flood's four threads share the machine's cores with it.
        let patience = Sanitizer.current == nil ? 10.0 : 60.0
        #expect(client.readUntil(timeout: patience) { typeOf($0) == "pong" }.last.map(typeOf) == "pong")
        // SIGTERM in the middle of it: out promptly and cleanly.
        let signalled = Date()
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 10) == 0)
        #expect(Date().timeIntervalSince(signalled) < 5)
        flood.terminate()
        let refusals = daemon.stderr.split(separator: "\n").filter { $0.contains("refused") }
        #expect(!refusals.isEmpty && refusals.count <= 5, "refusals are logged now and then: \(refusals.count) lines")
    }

    /// The daemon's log goes to a pipe nobody reads any more (a log
    /// collector that went away): writing it must not kill the daemon.
    @Test func aLogReaderThatWentAwayDoesNotKillTheDaemon() throws {
        let socket = temporarySocketPath()
        let log = Pipe()
        try log.fileHandleForReading.close()
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: ProjectPaths.binary)
        daemon.arguments = ["replay", "--socket", socket, "--hold", "Recordings/back-flick-finish.events"]
        daemon.currentDirectoryURL = ProjectPaths.root
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = log.fileHandleForWriting
        daemon.standardInput = FileHandle.nullDevice
        try daemon.run()
        defer { if daemon.isRunning { daemon.terminate() } }
        // It logs "serving …" and a connection; it must still be serving.
        let client = try LineClient(path: socket)
        #expect(client.readLine().map(typeOf) == "hello")
        try client.send("{\"cmd\":\"ping\"}\n")
        #expect(client.readUntil(timeout: 10) { typeOf($0) == "pong" }.last.map(typeOf) == "pong")
        kill(daemon.processIdentifier, SIGTERM)
        #expect(waitUntil(timeout: 20) { !daemon.isRunning })
        #expect(daemon.terminationReason == .exit && daemon.terminationStatus == 0,
                "status \(daemon.terminationStatus), reason \(daemon.terminationReason.rawValue)")
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed")
    }

    @Test(Tools.needed("socat")) func stateChangingCommandsNeedPermission() throws {
        let socket = temporarySocketPath()
        let cfg = try config("socket_mode = \"0666\"\nallow_uids = [4242]")
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--hold", "--config", cfg,
                                        "Recordings/back-flick-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        // As nobody: reading is fine, running is forbidden.
        let nobody = try runAs("nobody", socket: socket, lines: ["{\"cmd\":\"ping\"}", "{\"cmd\":\"run\",\"transition\":\"overview\",\"to\":\"finish\"}"])
        #expect(nobody.contains { typeOf($0) == "hello" })
        #expect(nobody.contains { typeOf($0) == "pong" })
        #expect(nobody.contains { object($0)["code"] as? String == "forbidden" })
        #expect(!nobody.contains { typeOf($0) == "began" && object($0)["transition"] as? String == "overview" })
        // As root (this test): allowed.
        let root = try LineClient(path: socket)
        _ = root.readLine()
        try root.send("{\"cmd\":\"run\",\"transition\":\"overview\",\"to\":\"finish\"}\n")
        let lines = root.readUntil { typeOf($0) == "finished" }
        #expect(lines.contains { typeOf($0) == "ok" })
        #expect(lines.last.map(typeOf) == "finished")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        // The refusal was logged with the peer's pid and uid (the whole log
        // is read once waitForExit returns).
        #expect(daemon.stderr.contains("uid 65534"))
        #expect(daemon.stderr.contains("refused 'run' from pid"))

        // A uid in allow_uids may.
        let socket2 = temporarySocketPath()
        let cfg2 = try config("socket_mode = \"0666\"\nallow_uids = [65534]")
        let daemon2 = try DaemonProcess(["replay", "--socket", socket2, "--hold", "--config", cfg2,
                                         "Recordings/back-flick-finish.events"], socket: socket2)
        try daemon2.waitUntilListening()
        let allowed = try runAs("nobody", socket: socket2, lines: ["{\"cmd\":\"run\",\"transition\":\"overview\",\"to\":\"finish\"}"])
        #expect(allowed.contains { typeOf($0) == "ok" })
        #expect(allowed.contains { typeOf($0) == "began" && object($0)["transition"] as? String == "overview" })
        daemon2.signal(SIGTERM)
        #expect(daemon2.waitForExit() == 0)
    }

    /// `allow_groups` admits a client by a supplementary group as well as by
    /// its primary one (the kernel's `SO_PEERGROUPS`).
    @Test(Tools.needed("socat", "setpriv")) func aSupplementaryGroupInAllowGroupsMayCommand() throws {
        let socket = temporarySocketPath()
        let cfg = try config("socket_mode = \"0666\"\nallow_groups = [4243]")
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--hold", "--config", cfg,
                                        "Recordings/back-flick-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let member = try runAs("nobody", groups: [4242, 4243], socket: socket,
                               lines: ["{\"cmd\":\"enable\",\"transition\":\"overview\",\"enabled\":true}"])
        #expect(member.contains { typeOf($0) == "ok" }, "\(member)")
        let outsider = try runAs("nobody", groups: [4242, 4244], socket: socket,
                                 lines: ["{\"cmd\":\"enable\",\"transition\":\"overview\",\"enabled\":true}"])
        #expect(outsider.contains { object($0)["code"] as? String == "forbidden" }, "\(outsider)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A command while the replay waits for its clients animates at once
    /// (it used to stop at `ended` until the replay started), and the
    /// recording then starts where that left the time: it never goes back.
    @Test func aCommandsAnimationRunsWhileTheReplayWaitsForClients() throws {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "2", "--speed", "4",
                                        "Recordings/back-drag-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let ui = try LineClient(path: socket)
        _ = ui.readLine()
        try ui.send("{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.4}\n{\"cmd\":\"release\",\"transition\":\"back\",\"velocity\":0}\n")
        let before = ui.readUntil { typeOf($0) == "cancelled" }
        #expect(before.last.map(typeOf) == "cancelled", "animated back before the replay started: \(before.suffix(3))")
        #expect(before.contains { typeOf($0) == "animating" })
        let other = try LineClient(path: socket)     // the replay starts
        _ = other.readLine()
        let after = ui.readAll()
        let events = (before + after).filter { object($0)["time"] != nil }
        let times = events.compactMap { object($0)["time"] as? Double }
        let seqs = events.compactMap { object($0)["seq"] as? Int }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "time never goes back")
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 + 1 == $1 }, "seq rises by one")
        #expect(after.contains { typeOf($0) == "finished" }, "the recording's gesture followed")
        #expect(daemon.waitForExit() == 0)
    }

    /// `enable`: the UI turns `back` off before the replay starts; the drag
    /// is then no transition at all, and `state` says `back` is disabled.
    @Test func aDisabledTransitionLetsItsGesturePassUnrecognised() throws {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "2", "--speed", "8",
                                        "Recordings/back-drag-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let ui = try LineClient(path: socket)
        _ = ui.readLine()
        try ui.send("{\"cmd\":\"enable\",\"transition\":\"back\",\"enabled\":false,\"id\":1}\n")
        #expect(ui.readUntil { typeOf($0) == "ok" }.last.map(object)?["cmd"] as? String == "enable")
        try ui.send("{\"cmd\":\"state\"}\n")
        let state = ui.readUntil { typeOf($0) == "state" }.last ?? ""
        #expect(state.contains("\"edge\":\"left\",\"enabled\":false"), "\(state)")
        try ui.send("{\"cmd\":\"enable\",\"transition\":\"back\",\"enabled\":\"no\"}\n")
        #expect(ui.readUntil { typeOf($0) == "error" }.last.map(object)?["code"] as? String == "bad-field")
        let other = try LineClient(path: socket)     // the second client: the replay starts
        let seen = other.readAll()
        #expect(seen.first.map(typeOf) == "hello" && seen.first?.contains("\"enabled\":false") == true)
        #expect(!seen.contains { typeOf($0) == "began" }, "\(seen.prefix(3))")
        #expect(daemon.waitForExit() == 0)
    }

    /// Runs socat as another user, sending `lines` (commands), and returns
    /// what it read: stdin is closed once every command has its reply (`ok`,
    /// `pong` or `error`), and socat then reads on for its 2 s (`-t 2`).
    /// `lines` sent as `user` (with `groups`: as nobody, in only these
    /// supplementary groups), and what came back.
    func runAs(_ user: String, groups: [UInt32]? = nil, socket: String, lines: [String]) throws -> [String] {
        let p = Process()
        let client = ["socat", "-t", "2", "-", "UNIX-CONNECT:\(socket)"]
        if let groups {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = ["--reuid=65534", "--regid=65534", "--groups=" + groups.map(String.init).joined(separator: ","), "--"] + client
        } else {
            p.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            p.arguments = ["-u", user, "--"] + client
        }
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        let reader = PipeReader(output)
        func read() -> [String] { reader.text.split(separator: "\n").map(String.init) }
        waitUntil(timeout: 10) { read().filter { ["ok", "pong", "error"].contains(typeOf($0)) }.count >= lines.count }
        try input.fileHandleForWriting.close()
        reader.waitForEnd(timeout: 10)
        p.waitUntilExit()
        return read()
    }

    @Test func driveAndReleaseDecideLikeTheEngine() throws {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--hold", "Recordings/back-flick-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        _ = client.readUntil { typeOf($0) == "finished" }   // the replay itself
        for (velocity, decision) in [(0.99, "cancel"), (1.0, "finish")] {
            try client.send("{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.2}\n")
            try client.send("{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.49}\n")
            try client.send("{\"cmd\":\"release\",\"transition\":\"back\",\"velocity\":\(velocity)}\n")
            let lines = client.readUntil { ["finished", "cancelled"].contains(typeOf($0)) }
            let ended = try #require(lines.map(object).first { $0["type"] as? String == "ended" })
            #expect(ended["decision"] as? String == decision)
            #expect(ended["progress"] as? Double == 0.49)
            #expect(ended["velocity"] as? Double == velocity)
            // The animation: ease-out over 0.4 × |T − 0.49| s at 60 Hz, ending exactly on target.
            let frames = lines.map(object).filter { $0["type"] as? String == "animating" }
            let length = 0.4 * abs((decision == "finish" ? 1.0 : 0.0) - 0.49)
            #expect(frames.count == Int((length * 60 - 1e-9).rounded(.up)))
            #expect(frames.last?["progress"] as? Double == (decision == "finish" ? 1 : 0))
        }
        try client.send("{\"cmd\":\"release\",\"transition\":\"back\"}\n")
        #expect(object(client.readUntil { typeOf($0) == "error" }.last ?? "")["code"] as? String == "not-active")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test func shutdownCancelsWhatIsInFlightAndRemovesTheSocket() throws {
        let socket = temporarySocketPath()
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "1", "--speed", "0.25",
                                        "Recordings/back-drag-finish.events"], socket: socket)
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        _ = client.readUntil { typeOf($0) == "changed" }
        daemon.signal(SIGTERM)
        let tail = client.readAll(timeout: 10)
        let ended = try #require(tail.map(object).first { $0["type"] as? String == "ended" })
        #expect(ended["reason"] as? String == "shutdown")
        #expect(ended["decision"] as? String == "cancel")
        #expect(tail.last.map(typeOf) == "cancelled")
        #expect(daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test func aLiveSocketIsNeverTakenOverAndAStaleOneIsReplaced() throws {
        let socket = temporarySocketPath()
        let first = try DaemonProcess(["replay", "--socket", socket, "--hold", "Recordings/back-flick-finish.events"], socket: socket)
        try first.waitUntilListening()
        let second = try runTransitiond(["replay", "--socket", socket, "Recordings/back-flick-finish.events"])
        #expect(second.status == 69)
        #expect(second.stderr.contains("another transitiond"))
        // Kill the first without cleanup: its socket file stays, stale.
        first.signal(SIGKILL)
        _ = first.waitForExit()
        #expect(FileManager.default.fileExists(atPath: socket))
        let third = try DaemonProcess(["replay", "--socket", socket, "--hold", "Recordings/back-flick-finish.events"], socket: socket)
        // The stale file is there from the start: wait for the new daemon to
        // answer on it (a client retries a refused connect), not for the file.
        let probe = try LineClient(path: socket)
        #expect(probe.readLine().map(typeOf) == "hello")
        third.signal(SIGTERM)
        #expect(third.waitForExit() == 0)
        // Something that is not a socket is left alone.
        let file = try temporaryFile("not-a-socket", "keep me")
        let refused = try runTransitiond(["replay", "--socket", file, "Recordings/back-flick-finish.events"])
        #expect(refused.status == 69)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
    }
}

/// The Swift client example (docs/examples/swift, built with the package as
/// `stream-client-example`) against a real replay: it names where each
/// transition comes from and ends with nothing in flight.
@Suite struct SwiftClientExampleTests {
    @Test func theExampleFollowsAReplayToTheEnd() throws {
        let example = URL(fileURLWithPath: ProjectPaths.binary).deletingLastPathComponent()
            .appendingPathComponent("stream-client-example").path
        try #require(FileManager.default.isExecutableFile(atPath: example), "built beside transitiond: \(example)")
        let socket = temporarySocketPath("example")
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--wait-clients", "1", "--fast",
                                        "--config", "config/example.toml", "Recordings/swipe-up-3-fingers.events"],
                                       socket: socket)
        try daemon.waitUntilListening()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: example)
        process.arguments = [socket]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("back: edge-pan with 1 finger(s) from the left edge"), "\(text)")
        #expect(text.contains("overview: swipe with 3 finger(s) direction up"), "\(text)")
        #expect(text.contains("overview finished progress 1.0"), "\(text)")
        #expect(text.hasSuffix("events; nothing in flight\n"), "\(text)")
        #expect(daemon.waitForExit() == 0, "\(daemon.stderr)")
    }
}
