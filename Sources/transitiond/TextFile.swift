#if canImport(Glibc)
import Glibc
#endif

/// Writes a text the CLI made (a plot, a dump) to a file, or to stdout for
/// nil or "-"; a failed write is a `Failure` (74) naming the file.
enum TextFile {
    static func write(_ text: String, to target: String?) throws {
        guard let target, target != "-" else {
            var out = StandardOutput()
            out.write(text)
            if out.closed && out.error != EPIPE { throw Failure(.ioError, "stdout: write failed (errno \(out.error))") }
            return
        }
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(.ioError, "\(target): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, $0.count) }
            if n > 0 {
                bytes = bytes.dropFirst(n)
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw Failure(.ioError, "\(target): \(String(cString: strerror(n < 0 ? errno : EIO)))")
            }
        }
    }
}
