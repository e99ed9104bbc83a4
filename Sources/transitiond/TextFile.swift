#if canImport(Glibc)
import Glibc
#endif

/// Writes a text the CLI made (a plot, a dump, an expectation file) to a
/// named output, as `OutputTarget` says: a regular file (or one a symlink
/// names) is replaced all at once; a device, a FIFO or a descriptor is
/// written where it is; stdout for nil or "-". A failed write is a
/// `Failure` (74) naming the path.
enum TextFile {
    static func write(_ text: String, to target: String?) throws {
        guard let target, target != "-" else {
            var out = StandardOutput()
            out.write(text)
            try out.checkWritten()
            return
        }
        guard !target.isEmpty else { throw Failure(.usage, "an output file needs a name (\"\" given)") }
        let bytes = Array(text.utf8)
        // A dangling link is followed once: the file it names is made, and
        // then it is a link to a regular file.
        for _ in 0..<2 {
            switch OutputTarget.plan(target, try OutputTarget.Facts.of(target)) {
            case .replace(let path, let mode):
                return try replace(path, mode: mode, with: bytes, named: target)
            case .writeInPlace(let path, let append):
                return try writeInPlace(path, append: append, bytes)
            case .createThroughLink(let path):
                let fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0o666)
                guard fd >= 0 else { throw failure(path, "create what the link names") }
                close(fd)
            case .refuse(let why):
                throw Failure(.ioError, "\(target): cannot write: \(why)")
            }
        }
        throw Failure(.ioError, "\(target): cannot write: the link names nothing that could be made")
    }

    private static func failure(_ path: String, _ what: String, _ code: Int32 = errno) -> Failure {
        Failure(.ioError, "\(path): cannot write (\(what): \(String(cString: strerror(code))))")
    }

    /// Writing into what is there: opened without `O_CREAT`/`O_TRUNC` (which
    /// mean nothing to a device and would make a file of a path that
    /// vanished since it was looked at) and non-blocking, so that a FIFO
    /// nothing reads is an error now rather than a wait for a reader that
    /// may never come; then blocking, as any writer to a pipe.
    private static func writeInPlace(_ path: String, append: Bool, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | (append ? O_APPEND : 0))
        guard fd >= 0 else {
            if errno == ENXIO { throw Failure(.ioError, "\(path): cannot write: it is a FIFO that nothing reads") }
            throw failure(path, "open")
        }
        var info = stat()
        if !append, fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            // Swapped for a file since it was looked at: writing it in place
            // would leave the old file's tail after the text.
            close(fd)
            throw Failure(.ioError, "\(path): cannot write: it changed while it was being written")
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        if let code = writeAll(fd, bytes) {
            close(fd)
            throw failure(path, "write", code)
        }
        // A device's close may report what its writes did not (a disk, a tape).
        guard close(fd) == 0 || errno == EINTR else { throw failure(path, "write") }
    }

    /// Replacing a file all at once: the text goes to a temporary file in
    /// the same directory (synced, with the old file's mode), which is then
    /// renamed over the file, so a reader sees the old file or the new one,
    /// never a part. `named`: the path as given (a link's), for messages.
    private static func replace(_ path: String, mode: mode_t?, with bytes: [UInt8], named: String) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let shown = named == path ? path : "\(named) (\(path))"
        func failure(_ what: String, _ code: Int32 = errno) -> Failure { TextFile.failure(shown, what, code) }

        // A name no one can have made ready for us (O_EXCL, not following
        // a link), a few tries if one is taken.
        var temporary = ""
        var fd: Int32 = -1
        for _ in 0..<8 {
            temporary = "\(directory).\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw failure("create \(temporary)") }
        if let mode { _ = fchmod(fd, mode) }
        if let code = writeAll(fd, bytes) {
            close(fd)
            unlink(temporary)
            throw failure("write \(temporary)", code)
        }
        let synced = fsync(fd) == 0 ? nil : failure("write \(temporary)")
        let closed = close(fd) == 0 ? nil : failure("write \(temporary)")
        if let error = synced ?? closed {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("rename \(temporary)")
            unlink(temporary)
            throw error
        }
    }

    /// Writes all of `bytes`; the errno of the first failed write, or nil.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n < 0 ? errno : EIO }
            offset += n
        }
        return nil
    }
}
