#if canImport(Glibc)
import Glibc
#endif

/// Writes a text the CLI made (a plot, a dump, an expectation file) to a
/// file, replacing it all at once, or to stdout for nil or "-"; a failed
/// write is a `Failure` (74) naming the file.
enum TextFile {
    static func write(_ text: String, to target: String?) throws {
        guard let target, target != "-" else {
            var out = StandardOutput()
            out.write(text)
            try out.checkWritten()
            return
        }
        try replace(target, with: text)
    }

    /// Replacing a file all at once: the text goes to a temporary file in
    /// the same directory (synced, with the old file's mode), which is then
    /// renamed over the target, so a reader sees the old file or the new one,
    /// never a part.
    private static func replace(_ path: String, with text: String) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory).\(name).\(getpid()).tmp"
        func failure(_ what: String) -> Failure {
            Failure(.ioError, "\(path): cannot write (\(what): \(String(cString: strerror(errno))))")
        }

        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure("create \(temporary)") }
        var existing = stat()
        if stat(path, &existing) == 0 { _ = fchmod(fd, existing.st_mode & 0o7777) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let error = failure("write \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            offset += n
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
}
