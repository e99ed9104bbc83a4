import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import Testing
@testable import Server
@testable import ServerCore

// The handler on an EmbeddedChannel, through the very upgrade the daemon
// uses (`WebSocketMessageHandler.upgrader`): bytes in as a client sends
// them, frames out as a client would read them. No sockets, no processes,
// no clocks (issue 26).

/// What the application saw; echoes messages back when asked to.
/// (Unchecked: an EmbeddedChannel runs on the test's thread only.)
private final class Recorder: WebSocketMessageDelegate, @unchecked Sendable {
    var messages: [WebSocketMessage] = []
    var closed = 0
    var echo = false
    var closeCode: WebSocketErrorCode = .goingAway

    func webSocket(_ handler: WebSocketMessageHandler, received message: WebSocketMessage) {
        messages.append(message)
        if echo { handler.send(message) }
    }

    func webSocketCloseCode(_ handler: WebSocketMessageHandler) -> WebSocketErrorCode { closeCode }
    func webSocketClosed(_ handler: WebSocketMessageHandler) { closed += 1 }
}

/// The socket's side of the pipeline: while `stalled`, flushes wait (the
/// writes stay in the channel, as a full socket holds them) until `resume()`.
private final class StalledSocket: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var stalled = false
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func flush(context: ChannelHandlerContext) {
        if !stalled { context.flush() }
    }

    func resume() {
        stalled = false
        context?.flush()
    }
}

/// An upgraded connection on an EmbeddedChannel.
private final class Connection {
    let channel = EmbeddedChannel()
    let recorder = Recorder()
    private var reader = FrameReader()

    init(limit: Int = 64 * 1024, binary: WebSocketConnectionRules.BinaryMessages = .refuse) throws {
        let recorder = recorder
        let upgrader = WebSocketMessageHandler.upgrader(
            maxMessageSize: limit,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        WebSocketMessageHandler(maxMessageSize: limit, binaryMessages: binary, delegate: recorder))
                }
            })
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let request = "GET /stream HTTP/1.1\r\nHost: 127.0.0.1:8765\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try channel.writeInbound(ByteBuffer(string: request))
        channel.embeddedEventLoop.run()
        var response = ""
        while let part = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = part else { continue }
            response += String(buffer: buffer)
        }
        guard response.hasPrefix("HTTP/1.1 101"), response.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") else {
            throw UpgradeFailed(response: response)
        }
    }

    struct UpgradeFailed: Error { var response: String }

    func send(_ bytes: [UInt8]) throws {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        channel.embeddedEventLoop.run()
    }

    /// The frames written so far (`read`: buffers of it read already).
    func frames(read: [ByteBuffer] = []) throws -> [Frame] {
        for buffer in read { reader.add(buffer.readableBytesView) }
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { reader.add(buffer.readableBytesView) }
        return reader.frames()
    }

    var isOpen: Bool { channel.isActive }
}

@Suite("WebSocket handler on an EmbeddedChannel")
struct WebSocketMessageHandlerTests {
    @Test func aTextMessageGoesToTheApplication() throws {
        let c = try Connection()
        try c.send(wire(0x1, "{\"cmd\":\"ping\"}"))
        #expect(c.recorder.messages == [.text(ByteBuffer(string: "{\"cmd\":\"ping\"}"))])
        #expect(try c.frames() == [])
        #expect(c.isOpen)
    }

    /// Issue 26 (a): a fragmented message used to be closed with 1002.
    @Test func aFragmentedMessageWithAPingAndACloseBetweenIsWhole() throws {
        let c = try Connection()
        c.recorder.echo = true
        try c.send(wire(0x1, "{\"cmd\":", fin: false))
        try c.send(wire(0x9, "are you there"))
        try c.send(wire(0x0, "\"ping\"", fin: false) + wire(0xA, "ignored") + wire(0x0, "}"))
        #expect(c.recorder.messages == [.text(ByteBuffer(string: "{\"cmd\":\"ping\"}"))])
        #expect(try c.frames() == [.pong("are you there"), .text("{\"cmd\":\"ping\"}")])
        try c.send(wire(0x1, "a", fin: false))
        try c.send(wire(0x8, closeBody(1000)))
        #expect(try c.frames() == [.close(1000)])
        #expect(!c.isOpen)
        #expect(c.recorder.closed == 1)
    }

    @Test func aFrameSplitAcrossReadsIsOneFrame() throws {
        let c = try Connection()
        let bytes = wire(0x1, "split")
        for byte in bytes { try c.send([byte]) }
        #expect(c.recorder.messages == [.text(ByteBuffer(string: "split"))])
    }

    @Test func aContinuationWithoutAStartIs1002() throws {
        let c = try Connection()
        try c.send(wire(0x0, "x"))
        #expect(try c.frames() == [.close(1002)])
        #expect(!c.isOpen)
    }

    @Test func aNewMessageInsideAnotherIs1002() throws {
        let c = try Connection()
        try c.send(wire(0x1, "a", fin: false) + wire(0x1, "b"))
        #expect(try c.frames() == [.close(1002)])
        #expect(c.recorder.messages == [])
    }

    /// Issue 26 (b): invalid UTF-8 fails the connection (RFC 6455 8.1); it
    /// used to get an error line and stay open.
    @Test func invalidUTF8Is1007() throws {
        let c = try Connection()
        try c.send(wire(0x1, [0x7B, 0xFF, 0x7D]))
        #expect(try c.frames() == [.close(1007)])
        #expect(!c.isOpen)
        #expect(c.recorder.messages == [])
    }

    @Test func invalidUTF8FailsAtItsFragment() throws {
        let c = try Connection()
        try c.send(wire(0x1, [0xCE, 0xBA], fin: false))
        #expect(try c.frames() == [])
        try c.send(wire(0x0, [0xED, 0xA0, 0x80], fin: false))   // a surrogate
        #expect(try c.frames() == [.close(1007)])
    }

    /// Issue 26 (c): a close reason that is not UTF-8 was echoed with 1000.
    @Test func aCloseReasonThatIsNotUTF8Is1007() throws {
        let c = try Connection()
        try c.send(wire(0x8, closeBody(1000, [0x61, 0xC0, 0xAF])))
        #expect(try c.frames() == [.close(1007)])
        #expect(!c.isOpen)
    }

    @Test func closeCodes() throws {
        let answers: [([UInt8], UInt16)] = [
            ([], 1000), (closeBody(1001, Array("bye".utf8)), 1001), (closeBody(4000), 4000),
            ([0x03], 1002), (closeBody(1005), 1002), (closeBody(1006), 1002), (closeBody(1015), 1002),
            (closeBody(999), 1002), (closeBody(1012), 1002), (closeBody(2999), 1002),
        ]
        for (body, answer) in answers {
            let c = try Connection()
            try c.send(wire(0x8, body))
            #expect(try c.frames() == [.close(answer)], "\(body)")
            #expect(!c.isOpen)
        }
    }

    /// Swift-nio's decoder refuses these by their headers; the handler
    /// answers (swift-nio's own error handler is off).
    @Test func longOrFragmentedControlFramesAre1002() throws {
        let long = try Connection()
        try long.send(wire(0x9, [UInt8](repeating: 0x61, count: 126)))
        #expect(try long.frames() == [.close(1002)])
        #expect(!long.isOpen)
        let fragmented = try Connection()
        try fragmented.send(wire(0x9, "p", fin: false))
        #expect(try fragmented.frames() == [.close(1002)])
        // bytes after a decoding error get no second close
        try? fragmented.send(wire(0x1, "x"))
        #expect(try fragmented.frames() == [])
    }

    @Test func unmaskedOrReservedBitsAre1002() throws {
        let unmasked = try Connection()
        try unmasked.send(wire(0x1, Array("{}".utf8), masked: false))
        #expect(try unmasked.frames() == [.close(1002)])
        let reserved = try Connection()
        try reserved.send(wire(0x1, Array("{}".utf8), rsv: 0b100))
        #expect(try reserved.frames() == [.close(1002)])
        let opcode = try Connection()
        try opcode.send(wire(0x3, "x"))
        #expect(try opcode.frames() == [.close(1002)])
    }

    @Test func binaryIs1003() throws {
        let c = try Connection()
        try c.send(wire(0x2, [1, 2, 3]))
        #expect(try c.frames() == [.close(1003)])
        #expect(c.recorder.messages == [])
    }

    @Test func binaryIsEchoedWhenAccepted() throws {
        let c = try Connection(binary: .accept)
        c.recorder.echo = true
        try c.send(wire(0x2, [0xFF], fin: false) + wire(0x0, [0x00]))
        #expect(try c.frames() == [Frame(opcode: 0x2, payload: [0xFF, 0x00])])
    }

    @Test func oversizeIs1009AsAFrameOrAsFragments() throws {
        let frame = try Connection(limit: 100)
        try frame.send(wire(0x1, String(repeating: "x", count: 101)))
        #expect(try frame.frames() == [.close(1009)])
        #expect(!frame.isOpen)
        let fragments = try Connection(limit: 100)
        try fragments.send(wire(0x1, String(repeating: "x", count: 60), fin: false))
        try fragments.send(wire(0x0, String(repeating: "x", count: 41)))
        #expect(try fragments.frames() == [.close(1009)])
        let exact = try Connection(limit: 100)
        try exact.send(wire(0x1, String(repeating: "x", count: 60), fin: false) + wire(0x0, String(repeating: "x", count: 40)))
        #expect(exact.recorder.messages == [.text(ByteBuffer(repeating: UInt8(ascii: "x"), count: 100))])
    }

    @Test func aPingIsAnsweredWithItsPayload() throws {
        let c = try Connection()
        try c.send(wire(0x9, "1") + wire(0x9, "") + wire(0xA, "x"))
        #expect(try c.frames() == [.pong("1"), .pong("")])
    }

    @Test func linesWrittenAreOneTextMessageEach() throws {
        let c = try Connection()
        try c.channel.writeAndFlush(ByteBuffer(string: "{\"type\":\"a\"}\n{\"type\":\"b\"}\n")).wait()
        #expect(try c.frames() == [.text("{\"type\":\"a\"}"), .text("{\"type\":\"b\"}")])
    }

    /// An empty write (the server asking when what the channel holds is
    /// written) sends no frame, and its promise completes only once the
    /// frames before it are written.
    @Test func anEmptyWriteCompletesAfterTheFramesBeforeItAndSendsNothing() throws {
        let c = try Connection()
        let socket = StalledSocket()
        try c.channel.pipeline.syncOperations.addHandler(socket, position: .first)
        socket.stalled = true
        c.channel.writeAndFlush(ByteBuffer(string: "{\"type\":\"a\"}\n"), promise: nil)
        let written = c.channel.embeddedEventLoop.makePromise(of: Void.self)
        var done = false
        written.futureResult.whenComplete { _ in done = true }
        c.channel.writeAndFlush(ByteBuffer(), promise: written)
        #expect(!done, "the frame before it is still held")
        #expect(try c.frames() == [])
        socket.resume()
        #expect(done)
        #expect(try c.frames() == [.text("{\"type\":\"a\"}")], "no frame of its own")
    }

    /// A batch of lines is one write of one text frame a line, whatever
    /// each line's length takes to say (7 bits, 16 or 64).
    @Test func aBatchOfLinesIsOneWriteOfAFrameALine() throws {
        let c = try Connection()
        let short = "{\"type\":\"a\"}", medium = String(repeating: "m", count: 200), long = String(repeating: "l", count: 70_000)
        try c.channel.writeAndFlush(ByteBuffer(string: short + "\n" + medium + "\n" + long + "\n")).wait()
        var buffers: [ByteBuffer] = []
        while let buffer = try c.channel.readOutbound(as: ByteBuffer.self) { buffers.append(buffer) }
        #expect(buffers.count == 1, "one write")
        #expect(buffers.first.map { Array($0.readableBytesView.prefix(4)) } == [0x81, UInt8(short.utf8.count)] + Array("{\"".utf8))
        #expect(try c.frames(read: buffers) == [.text(short), .text(medium), .text(long)])
    }

    @Test func theApplicationsCloseSendsItsCodeFirst() throws {
        let c = try Connection()
        c.recorder.closeCode = .policyViolation
        try c.channel.close().wait()
        #expect(try c.frames() == [.close(1008)])
        #expect(!c.isOpen)
        #expect(c.recorder.closed == 1)
    }

    /// A refused client (the daemon full): its final line, then 1013.
    @Test func aRefusalSendsItsLineThenItsClose() throws {
        let channel = EmbeddedChannel()
        let handler = WebSocketMessageHandler(maxMessageSize: 1024, binaryMessages: .refuse, delegate: Recorder())
        try channel.pipeline.syncOperations.addHandlers([WebSocketFrameEncoder(), handler])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        handler.refuse(line: ByteBuffer(string: "{\"type\":\"error\",\"code\":\"too-many-clients\"}\n"),
                       code: WebSocketErrorCode(codeNumber: 1013))
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        let line = Array("{\"type\":\"error\",\"code\":\"too-many-clients\"}".utf8)
        #expect(bytes == [0x81, UInt8(line.count)] + line + [0x88, 0x02, 0x03, 0xF5])
        #expect(!channel.isActive)
    }

    /// A peer that reads nothing (its writes back up) is closed without a
    /// close frame, which it would never take.
    @Test func aStalledPeerIsClosedWithoutAFrame() throws {
        let c = try Connection()
        c.channel.isWritable = false
        try c.channel.close().wait()
        #expect(try c.frames() == [])
        #expect(!c.isOpen)
        #expect(c.recorder.closed == 1)
    }

    @Test func nothingIsWrittenAfterAClose() throws {
        let c = try Connection()
        try c.send(wire(0x2, [1]))
        #expect(try c.frames() == [.close(1003)])
        #expect(throws: (any Error).self) { try c.channel.writeAndFlush(ByteBuffer(string: "late\n")).wait() }
        #expect(try c.frames() == [])
    }
}
