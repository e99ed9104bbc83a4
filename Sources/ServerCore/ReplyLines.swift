import NIOCore
import Engine
import WireProtocol

extension ErrorCode {
    /// The engine's refusal of a command, as the client is told.
    public init(_ refusal: CommandRefusal) {
        switch refusal {
        case .busy: self = .busy
        case .notActive: self = .notActive
        case .unknownTransition: self = .unknownTransition
        case .noSuchPoint: self = .badField
        }
    }
}

/// The daemon's own lines as buffers to write: WireProtocol's messages
/// (`pong`, `ok`, `error`, …), encoded there. Pure functions of their arguments.
public enum ReplyLines {
    /// `{"type":"pong"}`, with the request's id.
    public static func pong(id: RequestID?) -> ByteBuffer {
        line(.pong(id: id))
    }

    /// `{"type":"ok","cmd":…}`, with the request's id.
    public static func ok(_ cmd: String, id: RequestID?) -> ByteBuffer {
        line(.ok(cmd: cmd, id: id))
    }

    /// `{"type":"error","code":…,"message":…}`, with the command's name
    /// (`"cmd":…`, where known) and the request's id: a client with several
    /// commands under way can tell which one it answers.
    public static func error(_ code: ErrorCode, _ message: String, cmd: String? = nil, id: RequestID?) -> ByteBuffer {
        line(.error(code: code.rawValue, message: message, cmd: cmd, id: id))
    }

    /// A message's line.
    public static func line(_ message: StreamMessage) -> ByteBuffer {
        let w = JSONWriter(capacity: 128)
        message.encode(into: w)
        return buffer(w)
    }

    /// The writer's bytes as a buffer.
    public static func buffer(_ w: JSONWriter) -> ByteBuffer {
        var line = ByteBuffer()
        line.reserveCapacity(w.count)
        w.withBytes { line.writeBytes($0) }
        return line
    }
}
