import NIOCore
import ServerCore
import NIOHTTP1
import NIOWebSocket

/// What an application does with a WebSocket connection that
/// `WebSocketMessageHandler` runs: the daemon's client (a message is a
/// command line) or the Autobahn harness's echo. Called on the channel's
/// event loop.
public protocol WebSocketMessageDelegate: AnyObject {
    /// A whole message (text is UTF-8, at most the size limit).
    func webSocket(_ handler: WebSocketMessageHandler, received message: WebSocketMessage)
    /// The code of the close frame when the application closes the channel.
    func webSocketCloseCode(_ handler: WebSocketMessageHandler) -> WebSocketErrorCode
    /// The connection is gone.
    func webSocketClosed(_ handler: WebSocketMessageHandler)
}

/// The executor of `WebSocketConnectionRules` on one upgraded channel,
/// after swift-nio's frame decoder and encoder: frames in → the rules →
/// messages to the delegate, pongs and close frames out. Outgoing, each
/// line written to the channel (a `ByteBuffer` of lines ending in `\n`)
/// is one text message; `send` writes one message as it is. When the
/// application closes the channel, a close frame with the delegate's code
/// goes first.
public final class WebSocketMessageHandler: ChannelDuplexHandler {
    public typealias InboundIn = WebSocketFrame
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = WebSocketFrame

    private var rules: WebSocketConnectionRules
    private let delegate: any WebSocketMessageDelegate
    private var context: ChannelHandlerContext?
    /// swift-nio's frame encoder's context, before this handler: lines'
    /// frames are made here and written past it (`writeLines`).
    private var encoder: ChannelHandlerContext?

    public init(maxMessageSize: Int, binaryMessages: WebSocketConnectionRules.BinaryMessages,
                delegate: any WebSocketMessageDelegate) {
        self.rules = WebSocketConnectionRules(maxMessageSize: maxMessageSize, binaryMessages: binaryMessages)
        self.delegate = delegate
    }

    /// swift-nio's upgrader as the daemon (and its harness) configure it:
    /// frames up to `maxMessageSize` (so no frame is held that the message
    /// limit would refuse), and its decoder's errors left to this handler
    /// rather than swift-nio's automatic one, so that one place — the
    /// rules — decides every close code and sends at most one close frame.
    public static func upgrader(
        maxMessageSize: Int,
        shouldUpgrade: @escaping @Sendable (Channel, HTTPRequestHead) -> EventLoopFuture<HTTPHeaders?>,
        upgradePipelineHandler: @escaping @Sendable (Channel, HTTPRequestHead) -> EventLoopFuture<Void>
    ) -> NIOWebSocketServerUpgrader {
        NIOWebSocketServerUpgrader(maxFrameSize: maxMessageSize, automaticErrorHandling: false,
                                   shouldUpgrade: shouldUpgrade, upgradePipelineHandler: upgradePipelineHandler)
    }

    public func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    public func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        encoder = nil
    }

    // MARK: Application

    /// One message as it is (the harness's echo); dropped once a close
    /// frame is out.
    public func send(_ message: WebSocketMessage) {
        guard let context, rules.isOpen else { return }
        let frame: WebSocketFrame
        switch message {
        case .text(let bytes): frame = WebSocketFrame(fin: true, opcode: .text, data: bytes)
        case .binary(let bytes): frame = WebSocketFrame(fin: true, opcode: .binary, data: bytes)
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    /// A refused connection: its line (if any) as a message, then a close
    /// frame with `code`.
    func refuse(line: ByteBuffer?, code: WebSocketErrorCode) {
        guard let context else { return }
        if let line { writeLines(line, context: context, promise: nil) }
        perform(rules.failConnection(code), context: context)
    }

    // MARK: Inbound

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(rules.frameReceived(unwrapInboundIn(data)), context: context)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        delegate.webSocketClosed(self)
        context.fireChannelInactive()
    }

    public func errorCaught(context: ChannelHandlerContext, error: Error) {
        if let error = error as? NIOWebSocketError {
            perform(rules.decodingFailed(error), context: context)
        } else if rules.transportFailed() {
            // The socket's error (or bytes after a decoding error, which
            // the rules have answered already): nothing more can be said.
            context.close(promise: nil)
        }
    }

    private func perform(_ action: WebSocketConnectionRules.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .deliver(let message):
            delegate.webSocket(self, received: message)
        case .pong(let payload):
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)))
                .whenComplete { _ in loopBound.value.rules.pongWritten() }
        case .close(let code):
            sendClose(code, context: context, promise: nil)
        }
    }

    // MARK: Outbound

    /// Lines (one or more, each ending in `\n`) → one text message each;
    /// the write's promise completes with the last.
    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard rules.isOpen else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        writeLines(unwrapOutboundIn(data), context: context, promise: promise)
    }

    private func writeLines(_ lines: ByteBuffer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        if encoder == nil { encoder = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self) }
        guard let encoder else {
            // No swift-nio frame encoder in the pipeline: a frame a line.
            guard lines.readableBytes > 0 else {
                promise?.succeed(())   // nothing to say
                return
            }
            var bytes = lines
            while bytes.readableBytes > 0 {
                let line = Self.nextLine(&bytes)
                let frame = WebSocketFrame(fin: true, opcode: .text, data: line)
                context.write(wrapOutboundOut(frame), promise: bytes.readableBytes == 0 ? promise : nil)
            }
            return
        }
        // The lines' frames (text, final, unmasked: a server's) in one
        // buffer, written past the encoder: one write a batch instead of
        // two a line (the encoder's header, then the line). An empty one
        // (nothing to say: a close with no last lines, or the server asking
        // when what the channel holds is written) sends nothing, and its
        // promise completes after everything written before it.
        var frames = context.channel.allocator.buffer(capacity: lines.readableBytes + lines.readableBytes / 4 + 16)
        var bytes = lines
        while bytes.readableBytes > 0 {
            let line = Self.nextLine(&bytes)
            frames.writeInteger(UInt8(0x81))   // FIN, text
            if line.readableBytes < 126 {
                frames.writeInteger(UInt8(line.readableBytes))
            } else if line.readableBytes <= 0xFFFF {
                frames.writeInteger(UInt8(126))
                frames.writeInteger(UInt16(line.readableBytes))
            } else {
                frames.writeInteger(UInt8(127))
                frames.writeInteger(UInt64(line.readableBytes))
            }
            frames.writeImmutableBuffer(line)
        }
        encoder.write(NIOAny(frames), promise: promise)
    }

    /// The next line of `bytes` (without its `\n`, which is consumed).
    private static func nextLine(_ bytes: inout ByteBuffer) -> ByteBuffer {
        let length = bytes.readableBytesView.firstIndex(of: UInt8(ascii: "\n")).map { $0 - bytes.readerIndex }
            ?? bytes.readableBytes
        let line = bytes.readSlice(length: length)!
        if bytes.readableBytes > 0 { bytes.moveReaderIndex(forwardBy: 1) }
        return line
    }

    /// The application closes: a close frame first (the delegate's code),
    /// then the connection.
    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // A peer that does not read (the reason a backlog closes it) would
        // never take a close frame: it is just closed.
        let frameCanGo = mode == .all && context.channel.isActive && context.channel.isWritable
        switch rules.applicationCloses(frameCanGo: frameCanGo) {
        case .sendCloseFrame:
            sendClose(delegate.webSocketCloseCode(self), context: context, promise: promise)
        case .closeNow:
            context.close(mode: mode, promise: promise)
        }
    }

    /// Writes a close frame with `code`, then closes once it is written, or
    /// after 1 s: a peer that reads nothing never takes it.
    private func sendClose(_ code: WebSocketErrorCode, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let written = context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
        let loopBound = NIOLoopBound((context: context, promise: promise, done: CloseOnce()), eventLoop: context.eventLoop)
        let close: @Sendable () -> Void = {
            let state = loopBound.value
            guard !state.done.value else { return }
            state.done.value = true
            state.context.close(mode: .all, promise: state.promise)
        }
        let deadline = context.eventLoop.scheduleTask(in: .seconds(1)) { close() }
        written.whenComplete { _ in
            deadline.cancel()
            close()
        }
    }
}

/// Whether one close has been done (by the write or the deadline, whichever
/// is first); loop-bound.
private final class CloseOnce {
    var value = false
}
