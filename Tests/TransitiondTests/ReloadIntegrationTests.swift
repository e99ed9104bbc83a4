import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// Reloading the daemon's config (SIGHUP and the `reload` command), with
/// real processes: `transitiond run` with no device (an empty
/// `--input-root`), transitions driven by `drive`/`release` commands, and
/// the config file rewritten between steps.
@Suite(.serialized) struct ReloadIntegrationTests {
    private func config(threshold: Double, extra: String = "") -> String {
        """
        [[transition]]
        name = "back"
        gesture = "edge-pan"
        edge = "left"
        finish_threshold = \(threshold)
        flick_velocity = 100
        \(extra)
        """
    }

    private func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func helloTheLogAndCheckConfigSayWhoTheDaemonIsAndAReloadChangesIt() throws {
        let folder = TemporaryDirectory(prefix: "identity")
        defer { folder.remove() }
        let path = folder.file("kiosk.toml", config(threshold: 0.5, extra: "[identity]\nkiosk = \"lobby-3\"\nsite = \"hbf\"\nlabels = { floor = \"2\" }\n"))
        func hash(_ path: String) throws -> String {
            let printed = try runTransitiond(["check-config", path]).lines.last ?? ""
            #expect(printed.hasPrefix("# config_hash: "), "\(printed)")
            return String(printed.dropFirst("# config_hash: ".count))
        }
        let first = try hash(path)
        let socket = temporarySocketPath("identity")
        let daemon = try DaemonProcess(["run", "--config", path, "--socket", socket, "--input-root", folder.path], socket: socket)
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        let hello = client.readLine() ?? ""
        #expect(hello.contains("\"identity\":{\"kiosk\":\"lobby-3\",\"site\":\"hbf\",\"labels\":{\"floor\":\"2\"},\"config_hash\":\"\(first)\"}"), "\(hello)")
        let firstLog = daemon.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(firstLog.contains("kiosk=lobby-3 site=hbf config_hash=\(first) floor=2"), "\(firstLog)")

        // Another threshold and another kiosk name: a new hash, said anew.
        try write(config(threshold: 0.3, extra: "[identity]\nkiosk = \"lobby-4\"\n"), to: path)
        let second = try hash(path)
        #expect(second != first)
        daemon.signal(SIGHUP)
        let again = client.readUntil { typeOf($0) == "hello" }.last ?? ""
        #expect(again.contains("\"identity\":{\"kiosk\":\"lobby-4\",\"config_hash\":\"\(second)\"}"), "\(again)")
        #expect(waitUntil(timeout: 10) { daemon.stderr.contains("reload: kiosk=lobby-4 config_hash=\(second)") }, "\(daemon.stderr)")
    }

    @Test func aGoodConfigGivesEveryClientANewHelloAndTheTransitionInFlightKeepsItsOwn() throws {
        let folder = TemporaryDirectory(prefix: "reload")
        defer { folder.remove() }
        let path = folder.file("kiosk.toml", config(threshold: 0.5))
        let socket = temporarySocketPath("reload")
        let notify = try NotifyReceiver(path: temporarySocketPath("notify"))
        let daemon = try DaemonProcess(["run", "--config", path, "--socket", socket, "--input-root", folder.path],
                                       socket: socket, environment: ["NOTIFY_SOCKET": notify.path])
        try daemon.waitUntilListening()
        #expect(notify.receive(timeout: 20)?.text.hasPrefix("READY=1") == true)
        let driver = try LineClient(path: socket), watcher = try LineClient(path: socket)
        #expect(driver.readLine().map(typeOf) == "hello")
        #expect(watcher.readLine().map(typeOf) == "hello")
        try driver.send("{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.3}\n")
        #expect(driver.readUntil { typeOf($0) == "ok" }.last.map(typeOf) == "ok")
        #expect(watcher.readUntil { typeOf($0) == "began" }.last.map(typeOf) == "began")

        // A lower threshold (0.3 would now finish), and a second transition.
        try write(config(threshold: 0.2, extra: """

            [[transition]]
            name = "menu"
            gesture = "edge-pan"
            edge = "right"
            """), to: path)
        daemon.signal(SIGHUP)
        for client in [driver, watcher] {
            let hello = client.readUntil { typeOf($0) == "hello" }.last ?? ""
            #expect(typeOf(hello) == "hello", "every client gets a new hello: \(daemon.stderr)")
            #expect(hello.contains("\"name\":\"menu\""), "\(hello)")
            #expect(hello.contains("\"active\":[{\"transition\":\"back\",\"phase\":\"interacting\""), "\(hello)")
        }
        // Status lines for the clients' arrivals come as they connect; the reload's own follow.
        func nextReloadMessage() -> String {
            while let message = notify.receive(timeout: 10)?.text {
                if !message.hasPrefix("STATUS=") { return message }
            }
            return ""
        }
        let reloadMessages = [nextReloadMessage(), nextReloadMessage()]
        #expect(reloadMessages[0].hasPrefix("RELOADING=1\nMONOTONIC_USEC="), "\(reloadMessages)")
        #expect(reloadMessages[1].hasPrefix("READY=1"), "\(reloadMessages)")

        // The drive begun before the reload ends under the threshold it began with.
        try driver.send("{\"cmd\":\"release\",\"transition\":\"back\",\"velocity\":0}\n")
        let ended = watcher.readUntil { typeOf($0) == "ended" }.last ?? ""
        #expect(ended.contains("\"decision\":\"cancel\""), "0.3 < the old 0.5: \(ended)")
        #expect(watcher.readUntil { typeOf($0) == "cancelled" }.last.map(typeOf) == "cancelled")
        // The next one is the new config's.
        try driver.send("{\"cmd\":\"drive\",\"transition\":\"back\",\"progress\":0.3}\n")
        try driver.send("{\"cmd\":\"release\",\"transition\":\"back\",\"velocity\":0}\n")
        let next = watcher.readUntil { typeOf($0) == "ended" }.last ?? ""
        #expect(next.contains("\"decision\":\"finish\""), "0.3 ≥ the new 0.2: \(next)")
        // The new transition answers commands.
        try driver.send("{\"cmd\":\"run\",\"transition\":\"menu\",\"to\":\"finish\",\"id\":9}\n")
        #expect(driver.readUntil { $0.contains("\"id\":9") }.last?.contains("\"type\":\"ok\"") == true)

        #expect(!driver.eof && !watcher.eof, "no client was dropped")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.stderr.contains("reloaded the config: 2 transitions (back, menu)"))
    }

    @Test func aBrokenConfigKeepsTheOldOneAndSaysWhereItBroke() throws {
        let folder = TemporaryDirectory(prefix: "reload")
        defer { folder.remove() }
        let path = folder.file("kiosk.toml", config(threshold: 0.5))
        let socket = temporarySocketPath("reload")
        let daemon = try DaemonProcess(["run", "--config", path, "--socket", socket, "--input-root", folder.path],
                                       socket: socket)
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        #expect(client.readLine().map(typeOf) == "hello")
        try write(config(threshold: 0.5) + "\ngesture = \"wave\"\n", to: path)
        try client.send("{\"cmd\":\"reload\",\"id\":\"r1\"}\n")
        let reply = client.readUntil { $0.contains("\"id\":\"r1\"") }.last ?? ""
        #expect(reply.contains("\"code\":\"bad-config\""), "\(reply)")
        #expect(reply.contains("kiosk.toml:"), "names the file and line: \(reply)")
        daemon.signal(SIGHUP)
        #expect(waitUntil(timeout: 10) { daemon.stderr.components(separatedBy: "keeping the config in use").count == 3 },
                "both reloads are logged with where it broke: \(daemon.stderr)")
        #expect(daemon.stderr.contains("kiosk.toml:"))
        // A TOML syntax error: its line and column, in one line (the source
        // line and caret are for a terminal's check-config).
        try write(config(threshold: 0.5) + "\n[[transition\n", to: path)
        try client.send("{\"cmd\":\"reload\",\"id\":\"r2\"}\n")
        let syntax = client.readUntil { $0.contains("\"id\":\"r2\"") }.last ?? ""
        #expect(syntax.contains("\"code\":\"bad-config\"") && syntax.contains("expected ']]' to close the table header"), "\(syntax)")
        #expect(syntax.range(of: #"kiosk\.toml:\d+:\d+: "#, options: .regularExpression) != nil, "line and column: \(syntax)")
        #expect(!syntax.contains("\\n"), "one line: \(syntax)")
        // The old config still serves.
        try client.send("{\"cmd\":\"run\",\"transition\":\"back\",\"to\":\"finish\",\"id\":2}\n")
        #expect(client.readUntil { $0.contains("\"id\":2") }.last?.contains("\"type\":\"ok\"") == true)
        #expect(!client.readUntil(timeout: 2) { typeOf($0) == "hello" }.contains { typeOf($0) == "hello" },
                "no new hello after a failed reload")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// Nothing applies `[filter]` live: a reload whose `[filter]` differs
    /// from the one the daemon started with says so, as for `[input] mode`;
    /// one that leaves it as it is does not.
    @Test func aChangedFilterTableIsNotedForTheNextStart() throws {
        let folder = TemporaryDirectory(prefix: "reload")
        defer { folder.remove() }
        let notice = "reload: [filter] takes effect at the next start"
        let path = folder.file("kiosk.toml", config(threshold: 0.5))
        let socket = temporarySocketPath("reload")
        let daemon = try DaemonProcess(["run", "--config", path, "--socket", socket, "--input-root", folder.path],
                                       socket: socket)
        try daemon.waitUntilListening()
        let client = try LineClient(path: socket)
        #expect(client.readLine().map(typeOf) == "hello")
        func reload(_ id: String) {
            try? client.send("{\"cmd\":\"reload\",\"id\":\"\(id)\"}\n")
            let reply = client.readUntil { $0.contains("\"id\":\"\(id)\"") }.last ?? ""
            #expect(reply.contains("\"type\":\"ok\""), "\(reply)")
        }
        // The threshold alone: no notice.
        try write(config(threshold: 0.4), to: path)
        reload("r1")
        #expect(waitUntil(timeout: 10) { daemon.stderr.components(separatedBy: "reloaded the config").count == 2 },
                "\(daemon.stderr)")
        #expect(!daemon.stderr.contains(notice), "\(daemon.stderr)")
        // A [filter] table: the notice, once.
        try write(config(threshold: 0.4, extra: "\n[filter]\nmax_contacts = 1\n"), to: path)
        reload("r2")
        #expect(waitUntil(timeout: 10) { daemon.stderr.contains(notice) }, "\(daemon.stderr)")
        // Back to the [filter] in force (none): no second notice.
        try write(config(threshold: 0.3), to: path)
        reload("r3")
        #expect(waitUntil(timeout: 10) { daemon.stderr.components(separatedBy: "reloaded the config").count == 4 },
                "\(daemon.stderr)")
        #expect(daemon.stderr.components(separatedBy: notice).count == 2, "\(daemon.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test(Tools.needed("python3")) func aPeerThatMayNotChangeStateMayNotReload() throws {
        let folder = TemporaryDirectory(prefix: "reload")
        defer { folder.remove() }
        chmod(folder.path, 0o755)
        let socket = temporarySocketPath("reload")
        let path = folder.file("kiosk.toml", config(threshold: 0.5) + "\n[server]\nsocket_mode = \"0666\"\n")
        let daemon = try DaemonProcess(["run", "--config", path, "--socket", socket, "--input-root", folder.path],
                                       socket: socket)
        try daemon.waitUntilListening()
        let result = try runProcess("/usr/sbin/runuser", ["-u", "nobody", "--", "python3", "-c", """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rw')
            f.readline(); f.write('{"cmd":"reload"}\\n'); f.flush(); print(f.readline().strip())
            """, socket])
        #expect(result.contains("\"code\":\"forbidden\""), "\(result)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(!daemon.stderr.contains("reloaded the config"))
    }
}

/// Runs a program to its end; its stdout.
private func runProcess(_ program: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
