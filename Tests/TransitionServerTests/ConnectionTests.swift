#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import NIOCore
import NIOPosix
import TestSupport
import Testing
@testable import TransitionServer

/// A connected pair of Unix stream sockets: `ours` wrapped as the server's
/// write descriptor, `peer` the client's end.
private func connectedPair() throws -> (ours: ConnectionDescriptor, peer: CInt) {
    var fds: [CInt] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
        throw Failure("socketpair: \(errno)")
    }
    return (ConnectionDescriptor(fds[0]), fds[1])
}

private struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads everything the peer has, without blocking; the byte count.
private func drain(_ fd: CInt) -> Int {
    var total = 0
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if n <= 0 { return total }
        total += n
    }
}

@Suite("Client write descriptor")
struct ConnectionDescriptorTests {
    @Test func writesWholeLinesThenReportsAFullSocketThenRecovers() throws {
        let (ours, peer) = try connectedPair()
        defer { ours.close(); close(peer) }
        let chunk = ByteBuffer(repeating: 0x41, count: 16 * 1024)
        var written = 0
        var last = ConnectionDescriptor.Sent.all
        // Fill the socket: whole writes, then a part or nothing.
        for _ in 0..<10_000 {
            last = ours.send(chunk)
            guard last == .all else { break }
            written += chunk.readableBytes
        }
        switch last {
        case .all: Issue.record("the socket never filled")
        case .some(let n): #expect(n > 0 && n < chunk.readableBytes); written += n
        case .none: break
        }
        #expect(ours.send(chunk) == .none, "a full socket takes nothing and does not block")
        #expect(drain(peer) == written, "the peer gets exactly what was reported written")
        #expect(ours.send(ByteBuffer(string: "{\"type\":\"ping\"}\n")) == .all)
        #expect(drain(peer) == 16)
    }

    @Test func aGonePeerIsReportedNotSignalled() throws {
        let (ours, peer) = try connectedPair()
        defer { ours.close() }
        close(peer)
        // MSG_NOSIGNAL: EPIPE instead of SIGPIPE (which would end the test run).
        #expect(ours.send(ByteBuffer(string: "x\n")) == .none)
    }

    @Test func closeIsOnceAndSendAfterItWritesNothing() throws {
        let (ours, peer) = try connectedPair()
        defer { close(peer) }
        #expect(ours.isOpen)
        ours.close()
        ours.close()
        #expect(!ours.isOpen)
        #expect(ours.send(ByteBuffer(string: "x\n")) == .none)
        #expect(ours.peerCredentials() == nil)
    }

    @Test func peerCredentialsAreTheKernels() throws {
        let (ours, peer) = try connectedPair()
        defer { ours.close(); close(peer) }
        let credentials = try #require(ours.peerCredentials())
        #expect(credentials.pid == getpid())
        #expect(credentials.uid == getuid())
        #expect(credentials.gid == getgid())
    }
}

@Suite("Listening socket and acceptor")
struct ConnectionAcceptorTests {
    private func connect(_ path: String) -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let rc = SocketFile.withAddress(path) { Glibc.connect(fd, $0, $1) }
        if rc != 0 { close(fd); return -1 }
        return fd
    }

    @Test func theSocketFileGetsItsModeAndABusyPathIsAnError() throws {
        let path = temporarySocketPath()
        let fd = try ListeningSocket.open(path: path, mode: 0o640, backlog: 16)
        defer { close(fd); unlink(path) }
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(throws: SocketPathError.self) { try ListeningSocket.open(path: path, mode: 0o640, backlog: 16) }
    }

    @Test func theModeComesFromTheUmaskAtBindNotAChmodThatFollowsLinks() throws {
        // Every mode the config allows: the file has it from its creation.
        for mode: UInt32 in [0o600, 0o620, 0o660, 0o666, 0o777] {
            let path = temporarySocketPath()
            let fd = try ListeningSocket.open(path: path, mode: mode, backlog: 4)
            defer { close(fd); unlink(path) }
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == mode_t(mode), "\(String(mode, radix: 8))")
        }
        // The process's own umask is back as it was.
        let before = umask(0o022)
        umask(before)
        let path = temporarySocketPath()
        let fd = try ListeningSocket.open(path: path, mode: 0o666, backlog: 4)
        defer { close(fd); unlink(path) }
        let after = umask(0o022)
        umask(after)
        #expect(after == before)
    }

    @Test func aFolderEveryoneMayWriteIsRefusedUnlessSticky() throws {
        let folder = TemporaryDirectory(prefix: "open")
        defer { folder.remove() }
        chmod(folder.path, 0o777)
        let path = folder.path + "/t.sock"
        do {
            try SocketFile.prepare(path)
            Issue.record("a world-writable, non-sticky folder was accepted")
        } catch {
            #expect(error.kind == .unsafeFolder && error.message.contains("not sticky"), "\(error)")
        }
        chmod(folder.path, 0o1777)
        #expect(throws: Never.self) { try SocketFile.prepare(path) }
    }

    @Test func connectionsAreHandedOverAtMostALimitAtATimeAndStopEndsAccepting() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let path = temporarySocketPath()
        defer { unlink(path) }
        let listening = try ListeningSocket.open(path: path, mode: 0o600, backlog: 128)
        let delivered = LockedDescriptors()
        let arrived = DispatchSemaphore(value: 0)
        let acceptor = try ConnectionAcceptor(listening: listening, path: path, logger: Logger(label: "test")) { fds in
            delivered.withLock { $0.append(contentsOf: fds) }
            for _ in fds { arrived.signal() }
        }
        try acceptor.start(on: loop)
        let limit = ConnectionAcceptor.inFlightLimit
        let count = limit + 44
        var clients: [CInt] = []
        for _ in 0..<count {
            let fd = connect(path)
            #expect(fd >= 0)
            clients.append(fd)
        }
        func waitFor(_ n: Int) {
            for i in 0..<n where arrived.wait(timeout: .now() + 10) != .success {
                Issue.record("only \(i) of \(n) connections handed over within 10 s")
                return
            }
        }
        // Nothing registered yet: it stops at the limit; the rest wait in
        // the listen queue until the server says it dealt with some.
        waitFor(limit)
        #expect(arrived.wait(timeout: .now() + 0.3) == .timedOut, "no more than \(limit) in flight")
        #expect(delivered.withLock { $0.count } == limit)
        acceptor.registered(limit)
        waitFor(count - limit)
        let accepted = delivered.withLock { $0 }
        #expect(accepted.count == count)
        #expect(Set(accepted).count == count)
        for fd in accepted {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "close-on-exec")
            close(fd)
        }
        clients.forEach { close($0) }
        try acceptor.stop(on: loop).wait()
        // (Descriptor numbers are reused by tests running in parallel: ask
        // the path instead.) The listening socket is closed.
        #expect(connect(path) == -1, "nobody listens after stop")
    }

    @Test func anAcceptorNeverStartedStopsToo() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let path = temporarySocketPath()
        defer { unlink(path) }
        let listening = try ListeningSocket.open(path: path, mode: 0o600, backlog: 4)
        let acceptor = try ConnectionAcceptor(listening: listening, path: path, logger: Logger(label: "test")) { _ in }
        let before = connect(path)
        #expect(before >= 0, "the kernel queues a connection even before anyone accepts")
        close(before)
        try acceptor.stop(on: group.next()).wait()
        #expect(connect(path) == -1, "nobody listens after stop")
    }
}

/// A lock around an array of descriptors (the acceptor delivers on its own thread).
private final class LockedDescriptors: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var value: [CInt] = []
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<T>(_ body: (inout [CInt]) -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body(&value)
    }
}
