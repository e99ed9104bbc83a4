/// Splits a client's byte stream into lines (design "Socket": NDJSON
/// commands, at most 64 KiB a line). A value-type state machine: bytes in,
/// lines or a "too long" verdict out; no I/O.
public struct LineFramer: Sendable {
    public enum Output: Sendable, Equatable {
        case line([UInt8])
        /// A line grew past the limit: the connection is to be closed.
        case tooLong
    }

    public let limit: Int
    private var pending: [UInt8] = []
    private var failed = false

    public init(limit: Int = 64 * 1024) {
        self.limit = limit
    }

    /// Takes a chunk of bytes; returns the complete lines in it (without
    /// their `\n`, and without a `\r` before it), then `.tooLong` if the
    /// unfinished line is over the limit.
    public mutating func feed<C: Collection>(_ bytes: C) -> [Output] where C.Element == UInt8 {
        guard !failed else { return [] }
        var out: [Output] = []
        for b in bytes {
            if b == UInt8(ascii: "\n") {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                out.append(.line(pending))
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(b)
                if pending.count > limit {
                    failed = true
                    pending = []
                    out.append(.tooLong)
                    return out
                }
            }
        }
        return out
    }

    /// Bytes of an unfinished line (dropped when the peer closes).
    public var unfinished: Int { pending.count }
}
