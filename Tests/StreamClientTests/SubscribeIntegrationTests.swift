import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import StreamClient
import WireProtocol
import TestSupport

/// Whether the built `transitiond` can serve a replay on a socket (the
/// server: `replay --socket`). Until it can, these tests are skipped.
enum DaemonSupport {
    static let servesSockets: Bool = ((try? runTransitiond(["replay", "--help"]))?.stdoutText ?? "").contains("--socket")
}

/// `transitiond subscribe` as a real process against a real daemon
/// (`transitiond replay --socket`).
@Suite("subscribe against the daemon",
       .enabled(if: DaemonSupport.servesSockets, "the built transitiond does not serve `replay --socket` yet"),
       .serialized)
struct SubscribeIntegrationTests {
    private let recording = "Recordings/back-drag-finish.events"

    private func decoded(_ lines: [String]) throws -> [StreamMessage] {
        try lines.map { try StreamMessage.decode(line: $0) }
    }

    private func events(_ messages: [StreamMessage]) -> [TransitionUpdate] {
        messages.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
    }

    @Test func printsHelloAndAWholeTransition() throws {
        let socket = temporarySocketPath()
        defer { unlink(socket) }
        // Several loops, so a subscriber that connects a little late still sees
        // a whole began…finished.
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--speed", "4", "--loop", "5", recording], socket: socket)
        defer { daemon.signal(SIGKILL); _ = daemon.waitForExit(timeout: 10) }
        try daemon.waitUntilListening(timeout: 30)

        // It may connect mid-transition: wait for a finished after a began.
        let subscriber = try DaemonProcess(["subscribe", "--socket", socket, "--json", "--retry-seconds", "2"])
        let sawWhole = subscriber.waitForLines(timeout: 60) { lines in
            guard let began = lines.firstIndex(where: { $0.contains(#""type":"began""#) }) else { return false }
            return lines[began...].contains { $0.contains(#""type":"finished""#) }
        }
        subscriber.signal(SIGTERM)
        let status = subscriber.waitForExit(timeout: 10)
        #expect(sawWhole, "stdout: \(subscriber.lines.suffix(5)); stderr: \(subscriber.stderr)")
        #expect(status == 0, "stderr: \(subscriber.stderr)")

        let messages = try decoded(subscriber.lines)
        guard case .hello(let hello)? = messages.first else {
            Issue.record("the first line is not a hello: \(subscriber.lines.first ?? "nothing")")
            return
        }
        #expect(hello.protocolVersion == 1)
        #expect(hello.transitions.map(\.name).contains("back"))
        let kinds = events(messages).filter { $0.transition == "back" }.map(\.kind)
        let began = try #require(kinds.firstIndex(of: .began), "no began")
        let ended = try #require(kinds[began...].firstIndex(of: .ended), "no ended after the began")
        let finished = try #require(kinds[ended...].firstIndex(of: .finished), "no finished after the ended")
        #expect(kinds[began..<ended].allSatisfy { $0 == .began || $0 == .changed }, "began…ended")
        #expect(kinds[ended..<finished].dropFirst().allSatisfy { $0 == .animating }, "ended…finished")
        let seqs = events(messages).map(\.seq)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
        #expect(!events(messages).contains { $0.synthetic })
    }

    @Test func killedDaemonGivesSyntheticCancelThenRetries() throws {
        let socket = temporarySocketPath()
        defer { unlink(socket) }
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--speed", "0.5", "--loop", "3", recording], socket: socket)
        defer { daemon.signal(SIGKILL); _ = daemon.waitForExit(timeout: 10) }
        try daemon.waitUntilListening(timeout: 30)

        let subscriber = try DaemonProcess(["subscribe", "--socket", socket, "--json", "--retry-seconds", "1"])
        let sawBegan = subscriber.waitForLine(timeout: 60) { $0.contains(#""type":"began""#) }
        try #require(sawBegan, "no began: \(subscriber.lines.suffix(5)); stderr: \(subscriber.stderr)")
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit(timeout: 10)

        // The daemon stays gone: subscribe closes the transition, retries for 1 s, gives up.
        let status = subscriber.waitForExit(timeout: 30)
        #expect(status == 69, "stderr: \(subscriber.stderr)")
        let messages = try decoded(subscriber.lines)
        let all = events(messages)
        let synthetic = all.filter(\.synthetic)
        #expect(synthetic.count == 1)
        let cancel = try #require(synthetic.first)
        #expect(cancel.kind == .cancelled)
        #expect(cancel.transition == "back")
        #expect(cancel.progress == 0)
        #expect(cancel.velocity == 0)
        #expect(all.last == cancel, "the synthetic cancelled is the last event")
        #expect(cancel.seq > all.dropLast().map(\.seq).max() ?? 0)
        // Same shape as a real line (only "synthetic" added).
        let line = try #require(subscriber.lines.last { $0.contains(#""synthetic":true"#) })
        #expect(line.hasPrefix(#"{"type":"cancelled","transition":"back","seq":"#))
        #expect(line.hasSuffix(#","synthetic":true}"#))
        let stderr = subscriber.stderr
        #expect(stderr.contains("transitiond: connection to \(socket) lost; reconnecting"), "\(stderr)")
        #expect(stderr.contains("gave up after 1 s"), "\(stderr)")
        #expect(stderr.contains("not running at \(socket)"), "\(stderr)")
    }

    @Test func unknownTransitionIsAUsageError() throws {
        let socket = temporarySocketPath()
        defer { unlink(socket) }
        let daemon = try DaemonProcess(["replay", "--socket", socket, "--speed", "0.5", "--loop", "3", recording], socket: socket)
        defer { daemon.signal(SIGKILL); _ = daemon.waitForExit(timeout: 10) }
        try daemon.waitUntilListening(timeout: 30)
        let subscriber = try DaemonProcess(["subscribe", "--socket", socket, "--json", "--transition", "nope"])
        let status = subscriber.waitForExit(timeout: 30)
        #expect(status == 64)
        #expect(subscriber.stderr.contains("no transition named 'nope'"), "\(subscriber.stderr)")
    }
}

/// `subscribe` failures that need no daemon.
@Suite("subscribe without a daemon")
struct SubscribeWithoutDaemonTests {
    @Test func givesUpAfterTheRetryTime() throws {
        let socket = temporarySocketPath()
        let started = Date()
        let subscriber = try DaemonProcess(["subscribe", "--socket", socket, "--retry-seconds", "0.5"])
        let status = subscriber.waitForExit(timeout: 30)
        let elapsed = Date().timeIntervalSince(started)
        #expect(status == 69)
        #expect(elapsed >= 0.5 && elapsed < 15, "\(elapsed) s")
        #expect(subscriber.stderr.contains("transitiond: the daemon is not running at \(socket) (no such socket); retrying"))
        #expect(subscriber.stderr.contains("gave up after 0.5 s"))
        #expect(subscriber.lines.isEmpty)
    }

    @Test func signalWhileRetryingExitsZero() throws {
        let subscriber = try DaemonProcess(["subscribe", "--socket", temporarySocketPath(), "--retry-seconds", "60"])
        // Retrying (its signal handlers are in place): it says so.
        #expect(waitUntil(timeout: 30) { subscriber.stderr.contains("; retrying") }, "\(subscriber.stderr)")
        subscriber.signal(SIGTERM)
        #expect(subscriber.waitForExit(timeout: 10) == 0)
    }

    @Test func badOptionsAreUsageErrors() throws {
        let negative = try DaemonProcess(["subscribe", "--retry-seconds=-1"])
        #expect(negative.waitForExit(timeout: 30) == 64)
        let empty = try DaemonProcess(["subscribe", "--socket", ""])
        #expect(empty.waitForExit(timeout: 30) == 64)
    }
}
