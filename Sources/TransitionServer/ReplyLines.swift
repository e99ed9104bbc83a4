import EventStream
import NIOCore
import TransitionEngine

/// The `error` codes the server sends (docs/protocol.md "Replies"); the
/// wire spelling is the raw value.
public enum ErrorCode: String, Sendable, Equatable {
    case badJSON = "bad-json"
    case badUTF8 = "bad-utf8"
    case unknownCommand = "unknown-command"
    case badField = "bad-field"
    case unknownTransition = "unknown-transition"
    case busy
    case notActive = "not-active"
    case forbidden
    case lineTooLong = "line-too-long"
    case tooManyClients = "too-many-clients"
    case backlog
    /// A `reload` found the config unusable; the old one stays.
    case badConfig = "bad-config"
    /// The daemon cannot do it here (a `dump` of a replay, or with the flight recorder off).
    case unavailable

    /// The engine's refusal of a command, as the client is told.
    public init(_ refusal: CommandRefusal) {
        switch refusal {
        case .busy: self = .busy
        case .notActive: self = .notActive
        case .unknownTransition: self = .unknownTransition
        }
    }
}

/// The daemon's own lines on the wire (docs/protocol.md "Replies"):
/// `pong`, `ok`, `error`, and a request's `id` added to a line. Pure
/// functions of their arguments.
public enum ReplyLines {
    /// `{"type":"pong"}` or `{"type":"ok","cmd":…}`, with the request's id.
    public static func simple(_ type: StaticString, cmd: String?, id: RequestID?) -> ByteBuffer {
        let w = JSONWriter(capacity: 64)
        w.raw("{\"type\":\"")
        w.raw(type)
        w.raw("\"")
        if let cmd {
            w.raw(",\"cmd\":")
            w.string(cmd)
        }
        appendID(id, w)
        w.raw("}\n")
        return buffer(w)
    }

    /// `{"type":"error","code":…,"message":…}`, with the command's name
    /// (`"cmd":…`, where known) and the request's id: a client with several
    /// commands under way can tell which one it answers.
    public static func error(_ code: ErrorCode, _ message: String, cmd: String? = nil, id: RequestID?) -> ByteBuffer {
        let w = JSONWriter(capacity: 128)
        w.raw("{\"type\":\"error\",\"code\":")
        w.string(code.rawValue)
        w.raw(",\"message\":")
        w.string(message)
        if let cmd {
            w.raw(",\"cmd\":")
            w.string(cmd)
        }
        appendID(id, w)
        w.raw("}\n")
        return buffer(w)
    }

    /// The line with `"id":…` added before its closing brace.
    public static func withID(_ line: ByteBuffer, _ id: RequestID?) -> ByteBuffer {
        guard let id, line.readableBytes >= 2 else { return line }
        var copy = line
        copy.moveWriterIndex(to: line.writerIndex - 2)
        let w = JSONWriter(capacity: 32)
        appendID(id, w)
        w.raw("}\n")
        w.withBytes { copy.writeBytes($0) }
        return copy
    }

    /// The writer's bytes as a buffer.
    public static func buffer(_ w: JSONWriter) -> ByteBuffer {
        var line = ByteBuffer()
        line.reserveCapacity(w.count)
        w.withBytes { line.writeBytes($0) }
        return line
    }

    private static func appendID(_ id: RequestID?, _ w: JSONWriter) {
        guard let id else { return }
        w.raw(",\"id\":")
        switch id {
        case .number(let n): w.integer(n)
        case .text(let s): w.string(s)
        }
    }
}
