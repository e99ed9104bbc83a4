#if canImport(Glibc)
import Glibc
#endif

/// Buffered writes of bytes to stdout. A reader that goes away (EPIPE) ends
/// the output quietly; other errors are reported once.
struct StandardOutput {
    private(set) var closed = false
    private(set) var error: Int32 = 0

    static var isTerminal: Bool { isatty(1) == 1 }

    init() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes all of `bytes` (retrying short writes and EINTR).
    mutating func write(_ bytes: [UInt8]) {
        guard !closed, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    closed = true
                    error = n < 0 ? errno : EIO
                    return
                }
            }
        }
    }

    mutating func write(_ text: String) {
        write(Array(text.utf8))
    }
}
