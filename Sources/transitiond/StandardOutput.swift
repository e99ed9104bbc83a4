#if canImport(Glibc)
import Glibc
#endif
import EventStream
import WireProtocol

/// Buffered writes of bytes to stdout (or another descriptor, e.g. 2). The
/// first failed write (a reader that went away, a full disk) ends the
/// output; `checkWritten` turns it into exit 74, so a command stops there
/// rather than running on unread.
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

    /// Whether the reader of a pipe went away (or a terminal hung up)
    /// without a write to find out: `subscribe | head -n 1` ends once head
    /// has its line, not at the next event, which may be long in coming.
    var readerGone: Bool {
        var entry = pollfd(fd: fd, events: 0, revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// A write failed (the reader went away, the disk is full): the command
    /// has stopped writing at the first failure and exits 74 (sysexits
    /// EX_IOERR), saying why.
    func checkWritten() throws {
        guard closed else { return }
        let reason = error == EPIPE ? "the reader went away (broken pipe)" : String(cString: strerror(error))
        throw Failure(.ioError, "stdout: write failed: \(reason); stopped there")
    }
}
