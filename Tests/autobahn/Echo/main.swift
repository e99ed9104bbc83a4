// websocket-echo: the Autobahn|Testsuite harness (Tests/autobahn/run.sh).
// A WebSocket server on 127.0.0.1 whose upgraded connections run the
// daemon's own frame code — `WebSocketMessageHandler.upgrader` and
// `WebSocketMessageHandler` with `WebSocketConnectionRules` — with an echo
// in place of the daemon's client: each message goes back as one message.
//
//   websocket-echo [--port N] [--max-message-size BYTES] [--binary echo|refuse]
//
// Prints "listening on PORT" once bound (port 0: the kernel picks), then
// serves until killed. The HTTP side is swift-nio's plain server pipeline,
// not the daemon's pages: only the WebSocket part is under test.
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Server

#if canImport(Glibc)
import Glibc
#endif

/// Sends every message back as it came.
final class Echo: WebSocketMessageDelegate {
    func webSocket(_ handler: WebSocketMessageHandler, received message: WebSocketMessage) {
        handler.send(message)
    }

    func webSocketCloseCode(_ handler: WebSocketMessageHandler) -> WebSocketErrorCode { .goingAway }

    func webSocketClosed(_ handler: WebSocketMessageHandler) {}
}

struct Options {
    var port = 9001
    /// The daemon's line limit by default; run.sh raises it for Autobahn's
    /// large messages (cases 9.x, up to 16 MiB).
    var maxMessageSize = 64 * 1024
    /// The daemon refuses binary (1003); `echo` lets Autobahn check the
    /// framing of binary messages too.
    var binary = WebSocketConnectionRules.BinaryMessages.refuse

    init(_ arguments: [String]) {
        var rest = arguments[...]
        func value(_ flag: String) -> String {
            guard let next = rest.popFirst() else { fail("\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--port":
                guard let port = Int(value(flag)), (0...65535).contains(port) else { fail("--port: 0–65535") }
                self.port = port
            case "--max-message-size":
                guard let size = Int(value(flag)), size > 0, size <= Int(UInt32.max) else {
                    fail("--max-message-size: 1–\(UInt32.max) bytes")
                }
                maxMessageSize = size
            case "--binary":
                switch value(flag) {
                case "echo": binary = .accept
                case "refuse": binary = .refuse
                default: fail("--binary: echo or refuse")
                }
            default:
                fail("unknown option \(flag) (--port N, --max-message-size BYTES, --binary echo|refuse)")
            }
        }
    }
}

/// A line on a descriptor at once (no stdio buffer: run.sh waits for the
/// port, and a pipe would hold the line back).
func say(_ line: String, to descriptor: CInt) {
    let bytes = Array("\(line)\n".utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    say("websocket-echo: \(message)", to: 2)
    exit(2)
}

func serve(_ options: Options) throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let size = options.maxMessageSize
    let binary = options.binary
    let bootstrap = ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 256)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
            let upgrader = WebSocketMessageHandler.upgrader(
                maxMessageSize: size,
                shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            WebSocketMessageHandler(maxMessageSize: size, binaryMessages: binary, delegate: Echo()))
                    }
                })
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
            }
        }
    let listener = try bootstrap.bind(host: "127.0.0.1", port: options.port).wait()
    say("listening on \(listener.localAddress?.port ?? options.port)", to: 1)
    try listener.closeFuture.wait()
}

do {
    try serve(Options(Array(CommandLine.arguments.dropFirst())))
} catch {
    fail("\(error)")
}
