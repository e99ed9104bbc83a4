import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads one pipe on a thread of its own as the data arrives, until end of
/// file, so that a child never blocks on a full pipe; what arrived so far is
/// readable at any time, and `waitForEnd` waits (bounded) for the end.
public final class PipeReader: @unchecked Sendable {
    private let pipe: Pipe
    private let condition = NSCondition()
    private var buffer = Data()
    private var ended = false

    /// Starts reading `pipe` at once.
    public init(_ pipe: Pipe) {
        self.pipe = pipe
        Thread.detachNewThread { [self] in readToEnd() }
    }

    private func readToEnd() {
        let fd = pipe.fileHandleForReading.fileDescriptor
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            condition.lock()
            if n <= 0 {
                ended = true
                condition.broadcast()
                condition.unlock()
                return
            }
            buffer.append(contentsOf: chunk[..<n])
            condition.unlock()
        }
    }

    /// The bytes read so far (all of them once `isAtEnd`).
    public var data: Data {
        condition.lock()
        defer { condition.unlock() }
        return buffer
    }

    /// The bytes read so far as UTF-8 text.
    public var text: String { String(decoding: data, as: UTF8.self) }

    /// Whether the writers have all closed the pipe and everything is read.
    public var isAtEnd: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    /// Waits until end of file (true) or `timeout` seconds (false).
    @discardableResult
    public func waitForEnd(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !ended {
            if !condition.wait(until: deadline) { return ended }
        }
        return true
    }
}
