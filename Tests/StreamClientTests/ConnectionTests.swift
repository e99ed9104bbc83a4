import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import StreamClient
import TestSupport

/// `StreamConnection` against a real listening socket.
@Suite("Stream: connection")
struct ConnectionTests {
    private func text(_ line: [UInt8]?) -> String? { line.map { String(decoding: $0, as: UTF8.self) } }

    @Test func readsLinesAcrossPartialWrites() throws {
        let server = try TestSocketServer()
        let lines = [#"{"type":"hello","protocol":1}"#, #"{"type":"pong","id":7}"#, "", "é😀 bytes", #"{"type":"ok","cmd":"subscribe"}"#]
        let stream = Array((lines.joined(separator: "\n") + "\n").utf8)
        server.serve { fd in
            // Dribble the bytes in pieces of 1…7 bytes, then two lines at once.
            var offset = 0
            var size = 1
            while offset < stream.count {
                let end = min(stream.count, offset + size)
                writeAll(fd, Array(stream[offset..<end]))
                offset = end
                size = size % 7 + 1
                usleep(1000)
            }
            writeAll(fd, "x\ny\n")
        }
        let connection = try StreamConnection(path: server.path)
        for line in lines { #expect(text(try connection.readLine(timeout: 5)) == line) }
        #expect(text(try connection.readLine(timeout: 5)) == "x")
        #expect(text(try connection.readLine(timeout: 5)) == "y")
        #expect(try connection.readLine(timeout: 5) == nil)
        #expect(try connection.readLine(timeout: 5) == nil)   // EOF stays EOF
        #expect(connection.discardedAtEOF == 0)
        #expect(server.finish())
    }

    @Test func unterminatedLastLineIsDroppedAtEOF() throws {
        let server = try TestSocketServer()
        server.serve { fd in writeAll(fd, "{\"type\":\"pong\"}\n{\"type\":\"be") }
        let connection = try StreamConnection(path: server.path)
        #expect(text(try connection.readLine(timeout: 5)) == #"{"type":"pong"}"#)
        #expect(try connection.readLine(timeout: 5) == nil)
        #expect(connection.discardedAtEOF == 11)
        #expect(server.finish())
    }

    @Test func bufferedLinesAreVisible() throws {
        let server = try TestSocketServer()
        let release = DispatchSemaphore(value: 0)
        server.serve { fd in
            writeAll(fd, "a\nb\nc")
            _ = release.wait(timeout: .now() + 5)
        }
        let connection = try StreamConnection(path: server.path)
        #expect(!connection.hasBufferedLine)
        #expect(text(try connection.readLine(timeout: 5)) == "a")
        #expect(connection.hasBufferedLine)
        #expect(text(try connection.readLine(timeout: 5)) == "b")
        #expect(!connection.hasBufferedLine)
        release.signal()
        #expect(try connection.readLine(timeout: 5) == nil)
        #expect(server.finish())
    }

    @Test func lineOverTheLimitFails() throws {
        let server = try TestSocketServer()
        server.serve { fd in writeAll(fd, [UInt8](repeating: 0x61, count: 5000)) }
        let connection = try StreamConnection(path: server.path, lineLimit: 1024)
        #expect(throws: StreamConnectionError.lineTooLong(limit: 1024)) { try connection.readLine(timeout: 5) }
        #expect(server.finish())

        // A complete line over the limit fails too; one exactly at it does not.
        let second = try TestSocketServer()
        second.serve { fd in
            writeAll(fd, [UInt8](repeating: 0x62, count: 1024) + [0x0A] + [UInt8](repeating: 0x63, count: 1025) + [0x0A])
        }
        let other = try StreamConnection(path: second.path, lineLimit: 1024)
        #expect(try other.readLine(timeout: 5)?.count == 1024)
        #expect(throws: StreamConnectionError.lineTooLong(limit: 1024)) { try other.readLine(timeout: 5) }
        #expect(second.finish())
    }

    @Test func largeLinesWithinTheDefaultLimit() throws {
        let server = try TestSocketServer()
        let big = [UInt8](repeating: 0x7A, count: 900_000)
        server.serve { fd in
            writeAll(fd, big + [0x0A] + Array("tail\n".utf8))
        }
        let connection = try StreamConnection(path: server.path)
        #expect(connection.lineLimit == 1 << 20)
        #expect(try connection.readLine(timeout: 10) == big)
        #expect(text(try connection.readLine(timeout: 5)) == "tail")
        #expect(try connection.readLine(timeout: 5) == nil)
        #expect(server.finish())
    }

    @Test func timeoutLeavesTheConnectionUsable() throws {
        let server = try TestSocketServer()
        let go = DispatchSemaphore(value: 0)
        server.serve { fd in
            _ = go.wait(timeout: .now() + 5)
            writeAll(fd, "late\n")
        }
        let connection = try StreamConnection(path: server.path)
        let started = Date()
        #expect(throws: StreamConnectionError.timedOut) { try connection.readLine(timeout: 0.05) }
        #expect(Date().timeIntervalSince(started) < 2)
        go.signal()
        #expect(text(try connection.readLine(timeout: 5)) == "late")
        #expect(server.finish())
    }

    @Test func sendsCommandLines() throws {
        let server = try TestSocketServer()
        let received = ReceivedBytes()
        server.serve { fd in received.bytes = readBytes(fd, count: 40) }
        let connection = try StreamConnection(path: server.path)
        try connection.send(#"{"cmd":"ping","id":1}"#)
        try connection.send("{\"cmd\":\"state\"}\n")
        connection.close()
        #expect(server.finish())
        #expect(String(decoding: received.bytes, as: UTF8.self) == "{\"cmd\":\"ping\",\"id\":1}\n{\"cmd\":\"state\"}\n")
        #expect(throws: StreamConnectionError.closed) { try connection.send("x") }
        #expect(throws: StreamConnectionError.closed) { try connection.readLine(timeout: 0) }
    }

    @Test func noDaemonIsNotRunning() throws {
        let path = temporarySocketPath()
        #expect(throws: StreamConnectionError.notRunning(path: path, errno: ENOENT)) { try StreamConnection(path: path) }
        let described = "\(StreamConnectionError.notRunning(path: path, errno: ENOENT))"
        #expect(described == "the daemon is not running at \(path) (no such socket)")
        #expect(StreamConnectionError.notRunning(path: path, errno: ENOENT).isRetryable)

        // A stale socket file (nobody listening) is "not running" too.
        let stale = try TestSocketServer()
        let stalePath = stale.path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let other = temporarySocketPath()
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(other.utf8)) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(fd)   // bound, never listened: connect is refused
        defer { unlink(other) }
        #expect(throws: StreamConnectionError.notRunning(path: other, errno: ECONNREFUSED)) { try StreamConnection(path: other) }
        #expect("\(StreamConnectionError.notRunning(path: other, errno: ECONNREFUSED))".hasSuffix("(connection refused)"))
        _ = stalePath
    }

    @Test func badPaths() {
        let long = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: StreamConnectionError.pathTooLong(path: long, limit: 107)) { try StreamConnection(path: long) }
        #expect(throws: StreamConnectionError.pathTooLong(path: "", limit: 107)) { try StreamConnection(path: "") }
        #expect(!StreamConnectionError.pathTooLong(path: long, limit: 107).isRetryable)
        #expect(!StreamConnectionError.permissionDenied(path: "/x").isRetryable)
    }
}

/// Bytes a server thread read, handed to the test after `finish`.
final class ReceivedBytes: @unchecked Sendable {
    var bytes: [UInt8] = []
}
