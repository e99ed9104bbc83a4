#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import NIOCore
import NIOPosix
import TestSupport
import Testing
@testable import Server
@testable import ServerCore

@Suite("Listening socket")
struct ListeningSocketTests {
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
}
