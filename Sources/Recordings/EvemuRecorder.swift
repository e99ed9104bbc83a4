#if canImport(Glibc)
import Glibc
#endif
import Engine

/// Streams a live device into an evemu 1.3 file (`transitiond record`):
/// the header from the device's description, then `E:` lines with times
/// relative to the first event — what `evemu-record` writes, so
/// `evemu-play` and `transitiond replay` read it. Each `flush()` writes
/// everything buffered, so the file is complete after every batch.
///
/// A resync after `SYN_DROPPED` is written as ordinary events (the state
/// delta libevdev computed, ending with its `SYN_REPORT`), without the
/// `SYN_DROPPED` marker: in a file, a `SYN_DROPPED` means "drop up to the
/// next report", which would throw the rebuilt state away.
public struct EvemuRecorder {
    /// Where the bytes go (a file, or stdout).
    public let fd: Int32
    private var writer = EvemuEventWriter()
    private var pending: [UInt8] = []
    /// Events written so far.
    public private(set) var eventCount = 0
    /// `SYN_DROPPED` markers met so far.
    public private(set) var resyncCount = 0

    /// A recorder writing to `fd`; the header is written by the first flush.
    public init(fd: Int32, description: DeviceDescription) {
        self.fd = fd
        pending.reserveCapacity(1 << 16)
        EvemuWriter.writeDescription(description, into: &pending)
    }

    /// Buffers events; returns how many resyncs they contained.
    @discardableResult
    public mutating func record(_ events: [InputEvent]) -> Int {
        var resyncs = 0
        for event in events {
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_DROPPED {
                resyncs += 1
                continue
            }
            writer.write(event, into: &pending)
            eventCount += 1
        }
        resyncCount += resyncs
        return resyncs
    }

    /// Writes everything buffered (retrying short writes and `EINTR`);
    /// throws the errno of a failed write.
    public mutating func flush() throws(RecorderError) {
        var offset = 0
        defer { pending.removeFirst(offset) }
        while offset < pending.count {
            let n = pending.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 {
                offset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                throw RecorderError(errno: n < 0 ? errno : EIO)
            }
        }
    }
}

/// A failed write of a recording.
public struct RecorderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var errno: Int32
    public init(errno: Int32) { self.errno = errno }
    public var description: String { String(cString: strerror(errno)) }
}
