import NIOCore
import ServerCore
import NIOWebSocket

/// A message a WebSocket peer sent, whole: its fragments joined, its text
/// checked to be UTF-8.
public enum WebSocketMessage: Sendable, Equatable {
    case text(ByteBuffer)
    case binary(ByteBuffer)
}

/// The server's side of one WebSocket connection (RFC 6455) as a value:
/// frames, as swift-nio's decoder reads them, in; whole messages and what
/// to answer out. No I/O: each input is a `mutating func` that returns
/// what the executor (`WebSocketMessageHandler`) must do.
///
/// The rules are checked on every frame as it arrives, before fragments
/// are joined — a frame's mask and reserved bits are its own, and a joined
/// message has neither (swift-nio's `NIOWebSocketFrameAggregator` emits it
/// unmasked, which is why fragmented messages used to be taken for
/// unmasked frames). The connection is failed with a close code on the
/// first frame that breaks them:
///
/// - 1002: an unmasked frame, a reserved bit, a reserved opcode, a
///   control frame that is fragmented or over 125 bytes, a continuation
///   with no message open, a new message while one is open, a close
///   frame of 1 byte or with a code that may not be sent;
/// - 1007: text that is not UTF-8 — checked fragment by fragment, so a
///   message fails at the fragment that makes it invalid (RFC 6455 8.1),
///   and a close frame's reason that is not UTF-8;
/// - 1003: a binary message, unless binary messages are accepted;
/// - 1009: a message over the size limit (a frame over it is the
///   decoder's, see `decodingFailed`).
///
/// Once a close frame is due (ours or the answer to the peer's), every
/// later frame is ignored: the executor closes the connection after it.
public struct WebSocketConnectionRules: Sendable {
    /// What a binary message means to the application.
    public enum BinaryMessages: Sendable, Equatable {
        /// The daemon speaks text only: a binary message fails the
        /// connection with 1003 at its first frame.
        case refuse
        /// Joined and delivered like text (the Autobahn harness echoes them).
        case accept
    }

    /// What the executor must do after a frame.
    public enum Action: Sendable, Equatable {
        /// Nothing (a fragment kept, a pong from the peer, a frame after the close).
        case none
        /// A whole message for the application.
        case deliver(WebSocketMessage)
        /// Answer a ping with this payload.
        case pong(ByteBuffer)
        /// Send a close frame with this code, then close the connection.
        case close(WebSocketErrorCode)
    }

    /// What the executor must do when the application closes the channel.
    public enum ApplicationClose: Sendable, Equatable {
        /// Send a close frame with the application's code, then close.
        case sendCloseFrame
        /// Close at once: a close frame is already out or cannot go out.
        case closeNow
    }

    /// A message whose first fragments have come.
    private struct OpenMessage: Sendable {
        var binary: Bool
        var bytes: ByteBuffer
        var utf8: WebSocketUTF8Validator
    }

    private enum State: Sendable {
        /// Frames are read; a fragmented message may be open.
        case open(OpenMessage?)
        /// A close frame has gone out (or the connection is being cut):
        /// the peer's frames no longer matter.
        case closing
    }

    /// A frame's opcode as the rules name it: RFC 6455 5.2's table,
    /// indexed by the opcode's 4 bits (so the `switch` below needs no
    /// `default` for the values it does not know).
    private enum Opcode: Sendable {
        case continuation, text, binary, close, ping, pong, reserved
        static let table: [Opcode] = [
            .continuation, .text, .binary, .reserved, .reserved, .reserved, .reserved, .reserved,
            .close, .ping, .pong, .reserved, .reserved, .reserved, .reserved, .reserved,
        ]
    }

    /// The longest message, in bytes (the daemon's line limit).
    public let maxMessageSize: Int
    public let binaryMessages: BinaryMessages
    private var state: State = .open(nil)
    /// A pong is being written: pings until it is done get none (RFC 6455
    /// 5.5.3 allows answering only the latest), so a client that pings and
    /// never reads gets at most one queued.
    private var pongPending = false

    public init(maxMessageSize: Int, binaryMessages: BinaryMessages) {
        self.maxMessageSize = maxMessageSize
        self.binaryMessages = binaryMessages
    }

    /// Whether outgoing messages may still be written (no close frame is out).
    public var isOpen: Bool {
        switch state {
        case .open: return true
        case .closing: return false
        }
    }

    // MARK: Inputs

    /// A frame from the peer.
    public mutating func frameReceived(_ frame: WebSocketFrame) -> Action {
        guard case .open(let open) = state else { return .none }
        // RFC 6455 5.1 and 5.2: a client masks every frame; no extension
        // was agreed, so the reserved bits are 0.
        guard frame.maskKey != nil, !frame.rsv1, !frame.rsv2, !frame.rsv3 else { return fail(.protocolError) }
        switch Opcode.table[Int(UInt8(webSocketOpcode: frame.opcode))] {
        case .continuation:
            guard let open else { return fail(.protocolError) }
            return append(frame, to: open)
        case .text, .binary:
            guard open == nil else { return fail(.protocolError) }
            let binary = frame.opcode == .binary
            if binary {
                switch binaryMessages {
                case .refuse: return fail(.unacceptableData)
                case .accept: break
                }
            }
            let empty = ByteBuffer()
            return append(frame, to: OpenMessage(binary: binary, bytes: empty, utf8: WebSocketUTF8Validator()))
        case .close:
            guard isWholeControlFrame(frame) else { return fail(.protocolError) }
            return closeReceived(frame.unmaskedData)
        case .ping:
            guard isWholeControlFrame(frame) else { return fail(.protocolError) }
            guard !pongPending else { return .none }
            pongPending = true
            return .pong(frame.unmaskedData)
        case .pong:
            guard isWholeControlFrame(frame) else { return fail(.protocolError) }
            return .none
        case .reserved:
            return fail(.protocolError)
        }
    }

    /// swift-nio's decoder refused a frame by its header (the connection's
    /// bytes can no longer be read as frames).
    public mutating func decodingFailed(_ error: NIOWebSocketError) -> Action {
        switch error {
        case .invalidFrameLength:
            // A frame over the size limit (which is the message limit).
            return fail(.messageTooLarge)
        case .fragmentedControlFrame, .multiByteControlFrameLength:
            return fail(.protocolError)
        }
    }

    /// The application fails the connection with `code` (a refused client).
    public mutating func failConnection(_ code: WebSocketErrorCode) -> Action {
        fail(code)
    }

    /// The application closes the channel; `frameCanGo`: the channel is
    /// active and writable and the whole connection closes (a peer that
    /// reads nothing would never take a close frame).
    public mutating func applicationCloses(frameCanGo: Bool) -> ApplicationClose {
        switch state {
        case .open:
            state = .closing
            return frameCanGo ? .sendCloseFrame : .closeNow
        case .closing:
            return .closeNow
        }
    }

    /// An error that is not the decoder's (the socket's): whether the
    /// connection must be closed now (not when a close is already under way).
    public mutating func transportFailed() -> Bool {
        switch state {
        case .open:
            state = .closing
            return true
        case .closing:
            return false
        }
    }

    /// The pong has been written (or failed): the next ping is answered.
    public mutating func pongWritten() {
        pongPending = false
    }

    // MARK: Rules

    /// A data frame added to its message: the message if it is whole now.
    private mutating func append(_ frame: WebSocketFrame, to message: OpenMessage) -> Action {
        // Out of `state` while it grows, so its buffer is not shared (no copy).
        state = .open(nil)
        var message = message
        let payload = frame.unmaskedData
        guard message.bytes.readableBytes + payload.readableBytes <= maxMessageSize else {
            return fail(.messageTooLarge)
        }
        if !message.binary {
            // Fail fast: the fragment that makes the text invalid fails it,
            // without waiting for the rest of the message.
            guard message.utf8.validate(payload) else { return fail(.dataInconsistentWithMessage) }
        }
        if message.bytes.readableBytes == 0 {
            message.bytes = payload   // the first bytes (all of a one-frame message): no copy
        } else {
            message.bytes.writeImmutableBuffer(payload)
        }
        guard frame.fin else {
            state = .open(message)
            return .none
        }
        if message.binary { return .deliver(.binary(message.bytes)) }
        // A message may not end inside a character.
        guard message.utf8.isComplete else { return fail(.dataInconsistentWithMessage) }
        return .deliver(.text(message.bytes))
    }

    /// The peer closes: answered with its code when that is one a peer may
    /// send (RFC 6455 7.4.1, and 7.4.2's reserved ranges), 1000 for none.
    private mutating func closeReceived(_ payload: ByteBuffer) -> Action {
        var payload = payload
        guard let code = payload.readInteger(as: UInt16.self) else {
            // 0 bytes: no code (answered with 1000); 1 byte: not a code.
            return fail(payload.readableBytes == 0 ? .normalClosure : .protocolError)
        }
        guard Self.mayBeSent(code) else { return fail(.protocolError) }
        var reason = WebSocketUTF8Validator()
        guard reason.validate(payload), reason.isComplete else { return fail(.dataInconsistentWithMessage) }
        return fail(WebSocketErrorCode(codeNumber: Int(code)))
    }

    /// A close code a peer may put in a close frame: RFC 6455's own
    /// (1000–1003, 1007–1011), and the ranges for libraries and
    /// applications (3000–4999). 1004–1006 and 1015 are never sent; the
    /// rest of 1000–2999 is reserved (1012–1014, which IANA registered
    /// later, included: the rules stay those of the RFC); below 1000 is
    /// unused.
    static func mayBeSent(_ code: UInt16) -> Bool {
        (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code)
    }

    /// RFC 6455 5.5: a control frame is never fragmented and carries at
    /// most 125 bytes. (swift-nio's decoder checks both already; the rules
    /// hold on their own.)
    private func isWholeControlFrame(_ frame: WebSocketFrame) -> Bool {
        frame.fin && frame.length <= 125
    }

    /// The connection fails (or closes) with `code`: a close frame is due,
    /// the open message is dropped, and later frames are ignored.
    private mutating func fail(_ code: WebSocketErrorCode) -> Action {
        switch state {
        case .open:
            state = .closing
            return .close(code)
        case .closing:
            return .none
        }
    }
}

/// An incremental UTF-8 check (RFC 3629, as RFC 6455 8.1 requires of
/// text): bytes in any pieces, a character may be split between them.
/// Rejects overlong forms, surrogates and code points over U+10FFFF at the
/// first byte that makes them so.
public struct WebSocketUTF8Validator: Sendable, Equatable {
    /// Continuation bytes still expected in the current character.
    private var needed = 0
    /// The range of the next continuation byte (narrower than 80–BF only
    /// for the second byte of E0, ED, F0 and F4 sequences).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    public init() {}

    /// No character is left unfinished.
    public var isComplete: Bool { needed == 0 }

    /// Takes the next bytes; false once they are not UTF-8 (the validator
    /// is then not to be used again).
    public mutating func validate(_ bytes: ByteBuffer) -> Bool {
        bytes.withUnsafeReadableBytes { validate($0) }
    }

    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let count = bytes.count
        while i < count {
            if needed == 0 {
                // ASCII eight bytes at a time: most of a command is.
                while i + 8 <= count, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                }
                guard i < count else { break }
                let byte = bytes[i]
                i += 1
                if byte < 0x80 { continue }
                guard start(byte) else { return false }
            } else {
                let byte = bytes[i]
                i += 1
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    /// The first byte of a multi-byte character (RFC 3629 4's table).
    private mutating func start(_ byte: UInt8) -> Bool {
        if byte >= 0xC2, byte <= 0xDF {
            needed = 1
        } else if byte >= 0xE0, byte <= 0xEF {
            needed = 2
            if byte == 0xE0 { lower = 0xA0 }   // overlong
            if byte == 0xED { upper = 0x9F }   // surrogates
        } else if byte >= 0xF0, byte <= 0xF4 {
            needed = 3
            if byte == 0xF0 { lower = 0x90 }   // overlong
            if byte == 0xF4 { upper = 0x8F }   // over U+10FFFF
        } else {
            return false   // a continuation byte, C0/C1 (overlong) or F5–FF
        }
        return true
    }
}
