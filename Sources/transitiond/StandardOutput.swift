#if canImport(Glibc)
import Glibc
#endif
import EventStream

/// Buffered writes of bytes to stdout (or another descriptor, e.g. 2). A
/// reader that goes away (EPIPE) ends the output quietly; other errors are
/// reported once.
struct StandardOutput {
    private(set) var closed = false
    private(set) var error: Int32 = 0
    private let fd: Int32

    static var isTerminal: Bool { isatty(1) == 1 }

    init(fd: Int32 = 1) {
        self.fd = fd
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes what `writer` holds and empties it.
    mutating func write(_ writer: JSONWriter) {
        writer.withBytes { write($0) }
        writer.reset()
    }

    /// Writes all of `bytes` (retrying short writes and EINTR).
    mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes all of `buffer` (retrying short writes and EINTR).
    mutating func write(_ buffer: UnsafeRawBufferPointer) {
        guard !closed, buffer.count > 0 else { return }
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
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

    mutating func write(_ text: String) {
        write(Array(text.utf8))
    }
}
