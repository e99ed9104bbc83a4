import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import TestSupport
import Testing

/// A named output (`replay --plot FILE`, `verify --write-expect`) that is
/// not a regular file is written where it is, never replaced (issue 26: as
/// root, `--plot /dev/full` once replaced /dev/full with a plain file); a
/// symlink is followed and what it names replaced, the link kept. Real
/// processes, a real FIFO and a real device node (a copy of /dev/full made
/// with mknod in a scratch folder, never the system's).
@Suite struct OutputTargetTests {
    static let recording = ProjectPaths.file("Recordings/back-drag-finish.events")

    private func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test(.enabled(if: getuid() == 0, "mknod needs root"))
    func aDeviceIsWrittenInPlaceAndItsErrorsAreExit74() throws {
        let folder = TemporaryDirectory(prefix: "out-device")
        defer { folder.remove() }
        let full = folder.path + "/full"
        // /dev/full is character device 1,7: every write fails with ENOSPC.
        try #require(mknod(full, S_IFCHR | 0o666, dev_t((1 << 8) | 7)) == 0, "mknod: errno \(errno)")
        let plot = try runTransitiond(["replay", Self.recording, "--plot", full])
        #expect(plot.status == 74, "\(plot.stderr)")
        #expect(plot.stderr.contains(full) && plot.stderr.contains("No space left on device"), "\(plot.stderr)")
        let expect = try runTransitiond(["verify", Self.recording, "--expect", full, "--write-expect"])
        #expect(expect.status == 74, "\(expect.stderr)")
        #expect(expect.stderr.contains(full) && expect.stderr.contains("No space left on device"), "\(expect.stderr)")
        var info = stat()
        #expect(lstat(full, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFCHR, "still a character device")
        #expect(info.st_rdev == dev_t((1 << 8) | 7), "still 1,7")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["full"], "no temporary left behind")
    }

    @Test func aFIFOIsWrittenToItsReader() throws {
        let folder = TemporaryDirectory(prefix: "out-fifo")
        defer { folder.remove() }
        let fifo = folder.path + "/plot.svg"
        try #require(mkfifo(fifo, 0o644) == 0)
        let reader = try FIFOReader(fifo)
        let result = try runTransitiond(["replay", Self.recording, "--plot", fifo], timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let text = reader.finish(timeout: 20)
        #expect(text?.hasPrefix("<svg") == true || text?.hasPrefix("<?xml") == true, "\(text?.prefix(80) ?? "nothing came")")
        #expect(text?.contains("</svg>") == true, "the whole plot came through")
        #expect(kind(fifo) == S_IFIFO, "still a FIFO")
    }

    /// Nothing reads it: an error now, naming it, rather than a wait for a
    /// reader that may never come (or a file renamed over it).
    @Test func aFIFONothingReadsIsAnErrorNotAWait() throws {
        let folder = TemporaryDirectory(prefix: "out-fifo")
        defer { folder.remove() }
        let fifo = folder.path + "/plot.svg"
        try #require(mkfifo(fifo, 0o644) == 0)
        let result = try runTransitiond(["replay", Self.recording, "--plot", fifo], timeout: 20)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("\(fifo): cannot write: it is a FIFO that nothing reads"), "\(result.stderr)")
        #expect(kind(fifo) == S_IFIFO, "still a FIFO")
    }

    @Test func aSymlinkIsFollowedAndWhatItNamesReplacedWithItsMode() throws {
        let folder = TemporaryDirectory(prefix: "out-link")
        defer { folder.remove() }
        let real = folder.file("real.svg", "old")
        chmod(real, 0o640)
        folder.link("plot.svg", to: "real.svg")
        let link = folder.path + "/plot.svg"
        let result = try runTransitiond(["replay", Self.recording, "--plot", link])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(kind(link) == S_IFLNK, "the link is still a link")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "real.svg")
        let text = (try? String(contentsOfFile: real, encoding: .utf8)) ?? ""
        #expect(text.contains("</svg>"), "\(text.prefix(80))")
        var info = stat()
        #expect(lstat(real, &info) == 0 && info.st_mode & 0o7777 == 0o640, "the file keeps its mode")

        // A dangling link: the file it names is made, the link stays.
        folder.link("expect.toml", to: "made.toml")
        let expect = try runTransitiond(["verify", Self.recording, "--expect", folder.path + "/expect.toml", "--write-expect"])
        #expect(expect.status == 0, "\(expect.stderr)")
        #expect(kind(folder.path + "/expect.toml") == S_IFLNK)
        #expect(kind(folder.path + "/made.toml") == S_IFREG)
        #expect(((try? String(contentsOfFile: folder.path + "/made.toml", encoding: .utf8)) ?? "").contains("[[recording]]"))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
                == ["real.svg", "plot.svg", "expect.toml", "made.toml"], "no temporary left behind")
    }

    /// `/dev/fd/1` names the command's own stdout (a pipe here): the plot
    /// goes down it.
    @Test func aDescriptorsLinkIsWrittenToTheDescriptor() throws {
        for path in ["/dev/fd/1", "/proc/self/fd/1"] {
            let result = try runTransitiond(["replay", Self.recording, "--plot", path])
            #expect(result.status == 0, "\(path): \(result.stderr)")
            #expect(result.stdoutText.contains("</svg>"), "\(path): \(result.stdoutText.prefix(80))")
        }
    }

    @Test func aDirectoryIsRefusedByName() throws {
        let folder = TemporaryDirectory(prefix: "out-dir")
        defer { folder.remove() }
        let result = try runTransitiond(["replay", Self.recording, "--plot", folder.path])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("\(folder.path): cannot write: is a directory"), "\(result.stderr)")
    }
}

/// Reads a FIFO on a thread until its end: opened for reading first (so
/// a writer's non-blocking open finds a reader), with a writer of its own
/// held open so the reads wait for the command's rather than end at once.
/// `finish` lets go of that writer and waits (bounded) for the end.
final class FIFOReader: @unchecked Sendable {
    private let fd: Int32
    private var keeper: Int32
    private let text = Locked<[UInt8]>([])
    private let ended = DispatchSemaphore(value: 0)
    private var finished = false

    init(_ path: String) throws {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw HarnessError("open \(path) for reading: errno \(errno)") }
        keeper = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard keeper >= 0 else { throw HarnessError("open \(path) for writing: errno \(errno)") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let fd = self.fd, text = self.text, ended = self.ended
        _ = try NativeThread(name: "FIFO reader", detached: true) {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                text.withLock { $0 += chunk[..<n] }
            }
            ended.signal()
        }
    }

    /// What came through, or nil if the end did not come within `timeout`.
    func finish(timeout: Double) -> String? {
        if keeper >= 0 { close(keeper); keeper = -1 }
        guard finished || ended.wait(timeout: .now() + timeout) == .success else { return nil }
        finished = true
        return String(decoding: text.withLock { $0 }, as: UTF8.self)
    }

    deinit {
        if keeper >= 0 { close(keeper) }
        // The thread owns the reading end until it has seen the end.
        if finished || ended.wait(timeout: .now() + 5) == .success { close(fd) }
    }
}
