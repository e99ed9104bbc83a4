#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import ServerCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

// MARK: The WebSocket transport

/// WebSocket (RFC 6455, by swift-nio's HTTP/1 and WebSocket modules) as a
/// transport of the server, for kiosk UIs that are web pages. A connection
/// is plain HTTP until it asks to upgrade: `GET` serves the configured
/// pages (the demo page at `/`, the JavaScript client at `/transitiond.js`,
/// `/healthz`); an upgrade with an `Origin` that is not allowed gets 403.
/// An upgraded connection is one of the machine's clients like any other —
/// the same `hello`, stream, commands, coalescing, backlog limit and access
/// rules — with each line one text message: outgoing lines are split into
/// messages, an incoming message (fragmented or not) is one command line.
/// RFC 6455's frame rules are `WebSocketConnectionRules`'s, run by
/// `WebSocketMessageHandler` (1002 for a protocol error, 1007 for text
/// that is not UTF-8). A binary message closes with 1003, a message over
/// the line limit with 1009, a shutdown with 1001; the final `error` of a
/// refused or disconnected client comes before a close with 1008 (or 1013
/// when the daemon is full).
extension TransitionServer {
    /// Binds the listener (or adopts the passed one), not yet accepting:
    /// `startAcceptingWebSockets` starts it once the machine is listening.
    /// Returns what to log once every listener is bound.
    func bindWebSocket(_ options: WebSocketOptions) throws -> () -> Void {
        let bootstrap = ServerBootstrap(group: loop)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.autoRead, value: false)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 16 * 1024, high: 64 * 1024))
            // A fixed send buffer (about a Unix socket's), not loopback TCP's
            // autotuned megabytes: back-pressure, and so `backlog_limit`,
            // mean the same on both transports.
            .childChannelOption(.socketOption(.so_sndbuf), value: 128 * 1024)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture { try configureWebChannel(channel, options: options) }
            }
        let listener = try tcpListener(bootstrap, host: options.host, port: options.port, inherited: options.inheritedListener)
        var bound = options
        bound.port = listener.localAddress?.port ?? options.port
        let authority = bound.authority
        let port = bound.port
        try loop.submit { [self] in
            webSocketListener = listener
            webSocketPort = port
        }.wait()
        let how = options.inheritedListener == nil ? "" : " (passed by the service manager)"
        let logger = logger
        return {
            logger.info("serving ws://\(authority)/stream\(how); pages at http://\(authority)/")
            if options.inheritedListener == nil, !Self.isLoopbackAddress(options.host) {
                logger.warning("the WebSocket listens on \(authority), which is not loopback: other machines can read the stream (commands need a peer whose user is known)")
            }
        }
    }

    /// Starts accepting on the WebSocket listener (on the loop).
    func startAcceptingWebSockets() {
        startAccepting(webSocketListener)
    }

    /// Closes the listener and the connections still in plain HTTP.
    func stopAcceptingWebSockets() -> EventLoopFuture<Void> {
        loop.assertInEventLoop()
        webRequests.closeAll()
        return closeListener(webSocketListener.take())
    }

    // MARK: HTTP, then the upgrade

    /// Sets up an accepted connection: plain HTTP, able to upgrade. (Not
    /// private: the transport's tests configure `EmbeddedChannel`s with it.)
    func configureWebChannel(_ channel: Channel, options: WebSocketOptions) throws {
        loop.assertInEventLoop()
        // Bounded, with 5 s to ask (`PlainHTTPConnections`), until it upgrades.
        let key = webRequests.hold(channel)
        let upgrader = WebSocketMessageHandler.upgrader(
            maxMessageSize: machine.settings.lineLimit,
            shouldUpgrade: { [self] channel, head in
                channel.eventLoop.makeSucceededFuture(
                    originAllowed(head, options: options) ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { [self] channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    webRequests.release(key)
                    try webSocketUpgraded(channel)
                }
            })
        // swift-nio's HTTP/1 server pipeline, as `configureHTTPServerPipeline`
        // makes it, with the page handler among the HTTP handlers that the
        // upgrade removes.
        let encoder = HTTPResponseEncoder()
        let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
        let pipelining = HTTPServerPipelineHandler()
        let errors = HTTPServerProtocolErrorHandler()
        let pages = WebPageHandler(pages: options.pages, probes: probes,
                                   refusedOrigin: { [self] head in !originAllowed(head, options: options) })
        let upgrade = HTTPServerUpgradeHandler(upgraders: [upgrader], httpEncoder: encoder,
                                               extraHTTPHandlers: [decoder, pipelining, errors, pages],
                                               upgradeCompletionHandler: { _ in })
        try channel.pipeline.syncOperations.addHandlers([encoder, decoder, pipelining, errors, upgrade, pages])
    }

    /// An `Origin` the upgrade accepts: none (not a browser), one
    /// `allow_origins` names, or the listener's own page. "Own" is checked
    /// against this listener's port and an address, never a name: a page
    /// of another site whose name was re-pointed at this machine (DNS
    /// rebinding) sends its own name as `Host` and `Origin`, which match
    /// each other but are not an address.
    private func originAllowed(_ head: HTTPRequestHead, options: WebSocketOptions) -> Bool {
        guard let origin = head.headers.first(name: "origin") else { return true }
        let allowed = options.allowOrigins
        if allowed.contains("*") { return true }
        let lowered = origin.lowercased()
        if allowed.contains(where: { $0.lowercased() == lowered }) { return true }
        guard let host = head.headers.first(name: "host")?.lowercased(),
              lowered == "http://\(host)" || lowered == "https://\(host)" else { return false }
        return Self.isAddressAuthority(host, port: webSocketPort)
    }

    /// `host` is `ADDRESS:port` or `localhost:port` with this port (an IP
    /// literal, bracketed for IPv6, or `localhost`, which resolves here).
    static func isAddressAuthority(_ authority: String, port: Int) -> Bool {
        guard let colon = authority.lastIndex(of: ":"), authority[authority.index(after: colon)...] == "\(port)" else {
            return false
        }
        var name = String(authority[..<colon])
        if name == "localhost" { return true }
        var family = AF_INET
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
            family = AF_INET6
        }
        var buffer = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &buffer) { inet_pton(family, name, $0.baseAddress) == 1 }
    }

    /// The connection is a WebSocket now: it is admitted as a client (or
    /// refused with its final line and a close frame).
    private func webSocketUpgraded(_ channel: Channel) throws {
        let operations = channel.pipeline.syncOperations
        switch admit(.webSocket) {
        case .refuse(let line, let full):
            let handler = webSocketHandler(id: nil)
            try operations.addHandler(handler)
            handler.refuse(line: line, code: full ? .init(codeNumber: 1013) : .goingAway)
        case .admit(let id):
            connections[id] = ClientConnection(id: id)
            try operations.addHandler(webSocketHandler(id: id))
            let peer = LoopbackPeer.Endpoint(channel.remoteAddress).flatMap { remote in
                LoopbackPeer.Endpoint(channel.localAddress).flatMap { LoopbackPeer.credentials(peer: remote, local: $0) }
            }
            clientActive(id, channel: channel, peer: peer)
        }
    }

    /// The handler of an upgraded connection: messages up to the line
    /// limit, binary ones refused (1003), for client `id` (nil: refused).
    private func webSocketHandler(id: ClientID?) -> WebSocketMessageHandler {
        WebSocketMessageHandler(maxMessageSize: machine.settings.lineLimit, binaryMessages: .refuse,
                                delegate: WebSocketClientDelegate(server: self, id: id))
    }

    /// A listen address on loopback (127.0.0.0/8, `::1`), parsed.
    static func isLoopbackAddress(_ host: String) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, host, &bytes) == 1 { return bytes[0] == 127 }
        guard inet_pton(AF_INET6, host, &bytes) == 1 else { return false }
        return LoopbackPeer.Endpoint(address: bytes, port: 0).isLoopback
    }

    /// The code a close frame from the server carries: 1001 while the
    /// daemon stops (or a replay is over), else 1008 (after a final `error`).
    var webSocketCloseCode: WebSocketErrorCode {
        switch machine.phase {
        case .shuttingDown, .closed: return .goingAway
        case .starting, .waitingForClients, .serving: return .policyViolation
        }
    }
}

// MARK: The client

/// The server's part of an upgraded connection, for `WebSocketMessageHandler`
/// (which keeps RFC 6455's rules): a text message is one command line, the
/// connection's end is the client gone, and a close the server starts says
/// why (`webSocketCloseCode`). A refused connection has no client (`id` nil):
/// it only gets its final line and close.
final class WebSocketClientDelegate: WebSocketMessageDelegate {
    private let server: TransitionServer
    private let id: ClientID?

    init(server: TransitionServer, id: ClientID?) {
        self.server = server
        self.id = id
    }

    func webSocket(_ handler: WebSocketMessageHandler, received message: WebSocketMessage) {
        switch message {
        case .text(let text):
            guard let id else { return }
            // One message is one command: line breaks inside it are JSON
            // whitespace, not separators.
            var line = text
            if line.readableBytesView.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
                line = ByteBuffer(bytes: line.readableBytesView.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 })
            }
            line.writeInteger(UInt8(ascii: "\n"))
            server.received(id, line)
        case .binary:
            // The handler refuses binary messages for the daemon (1003)
            // before any is whole, so none arrives here.
            break
        }
    }

    func webSocketCloseCode(_ handler: WebSocketMessageHandler) -> WebSocketErrorCode {
        server.webSocketCloseCode
    }

    func webSocketClosed(_ handler: WebSocketMessageHandler) {
        if let id { server.clientGone(id) }
    }
}

/// The plain-HTTP side of a listener: `GET`/`HEAD` of the configured
/// pages, `/healthz` and `/metrics` (see `HTTPProbes`); 403 for a
/// WebSocket upgrade whose `Origin` is not allowed; 404, 405 otherwise.
/// Each response closes the connection.
final class WebPageHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let pages: [String: WebPage]
    private let probes: HTTPProbes
    private let refusedOrigin: (HTTPRequestHead) -> Bool
    private var head: HTTPRequestHead?
    /// A response has been sent (it said `Connection: close`): requests the
    /// client pipelined behind it are not answered (RFC 9112 9.6).
    private var answered = false

    init(pages: [String: WebPage], probes: HTTPProbes, refusedOrigin: @escaping (HTTPRequestHead) -> Bool) {
        self.pages = pages
        self.probes = probes
        self.refusedOrigin = refusedOrigin
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            guard !answered else { return }
            answered = true
            respond(to: head, context: context)
        }
    }

    /// A request swift-nio could not parse has had its 400: close. (Other
    /// errors, such as an upgrade refused, are answered by `respond`.)
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is HTTPParserError { context.close(promise: nil) }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(head.uri.prefix { $0 != "?" && $0 != "#" })
        let wantsUpgrade = head.headers.first(name: "upgrade")?.lowercased() == "websocket"
        if wantsUpgrade {
            if refusedOrigin(head) {
                send(.forbidden, "text/plain; charset=utf-8",
                     Array("transitiond: this Origin may not open the WebSocket (see [server] allow_origins)\n".utf8),
                     head: head, context: context)
            } else {
                send(.badRequest, "text/plain; charset=utf-8",
                     Array("transitiond: not a valid WebSocket upgrade (RFC 6455: version 13 and a key)\n".utf8),
                     head: head, context: context)
            }
            return
        }
        guard head.method == .GET || head.method == .HEAD else {
            send(.methodNotAllowed, "text/plain; charset=utf-8", Array("transitiond: only GET\n".utf8),
                 head: head, context: context, extra: [("Allow", "GET, HEAD")])
            return
        }
        if path == "/healthz" {
            if probes.healthy() {
                send(.ok, "text/plain; charset=utf-8", Array("ok\n".utf8), head: head, context: context)
            } else {
                send(.serviceUnavailable, "text/plain; charset=utf-8", Array("stopping\n".utf8), head: head, context: context)
            }
        } else if path == "/metrics", answerMetrics(head: head, context: context) {
            return
        } else if let page = pages[path] {
            send(.ok, page.contentType, page.body, head: head, context: context)
        } else {
            send(.notFound, "text/plain; charset=utf-8", Array("transitiond: no page at \(path)\n".utf8),
                 head: head, context: context)
        }
    }

    /// `/metrics`, rendered off the loop and sent when ready; false when the
    /// daemon has no metrics.
    private func answerMetrics(head: HTTPRequestHead, context: ChannelHandlerContext) -> Bool {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        return probes.metrics { contentType, body in
            let (handler, context) = bound.value
            guard context.channel.isActive else { return }
            handler.send(.ok, contentType, body, head: head, context: context)
        }
    }

    private func send(_ status: HTTPResponseStatus, _ type: String, _ body: [UInt8], head: HTTPRequestHead,
                      context: ChannelHandlerContext, extra: [(String, String)] = []) {
        var headers = HTTPHeaders([("Content-Type", type), ("Content-Length", String(body.count)),
                                   ("Connection", "close"), ("Cache-Control", "no-cache"),
                                   ("X-Content-Type-Options", "nosniff")])
        headers.add(contentsOf: extra)
        let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        if head.method != .HEAD {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

extension LoopbackPeer.Endpoint {
    /// The endpoint of a NIO socket address (nil for a Unix one).
    init?(_ address: SocketAddress?) {
        guard let address, let port = address.port else { return nil }
        switch address {
        case .v4(let v4):
            var raw = v4.address.sin_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(port))
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            self.init(address: withUnsafeBytes(of: &raw) { Array($0) }, port: UInt16(port))
        case .unixDomainSocket:
            return nil
        }
    }
}
