import Logging
import NIOCore
import NIOEmbedded
import Testing
@testable import Server
@testable import ServerCore

// The WebSocket transport's HTTP side, in-process: a real `TransitionServer`
// on an `EmbeddedEventLoop` (listening without a socket, with the scripted
// engine host), and each accepted TCP connection an `EmbeddedChannel` set up
// by `configureWebChannel` as the listener sets up its children. Bytes in
// as a client sends them, bytes out as a client reads them: the HTTP
// response, then (after an upgrade) the server's frames. No sockets, no
// processes, no clocks but the embedded loop's.

/// The bundled pages, as the daemon serves them (`[server] websocket`).
private let bundledPages = Dictionary(uniqueKeysWithValues: BundledPages.files.map {
    ($0.path, WebPage(contentType: $0.contentType, body: $0.body))
})

/// The listener's port as `bindWebSocket` records it (the page's own origin
/// names it).
private let port = 8765

/// RFC 6455 1.3's example key, and its accept value.
private let key = "dGhlIHNhbXBsZSBub25jZQ=="
private let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

/// The server, with the WebSocket transport on, and its connections as
/// `EmbeddedChannel`s.
private struct WebRig {
    let loop = EmbeddedEventLoop()
    let host = ScriptedHost()
    let server: TransitionServer
    let webSocket: WebSocketOptions

    init(maxWebSocketClients: Int = 16, maxClientsPerPeer: Int? = nil,
         allowOrigins: [String] = ["http://localhost:3000"]) {
        webSocket = WebSocketOptions(host: "127.0.0.1", port: port, allowOrigins: allowOrigins, pages: bundledPages)
        let options = ServerOptions(socketPath: "/nonexistent/transitiond-test.sock",
                                    maxWebSocketClients: maxWebSocketClients, maxClientsPerPeer: maxClientsPerPeer,
                                    webSocket: webSocket)
        server = TransitionServer(loop: loop, options: options, host: host, logger: Logger(label: "test"))
        server.listenWithoutSocket()
        server.webSocketPort = port
    }

    /// A TCP connection the listener accepted, from `peer`. (No local
    /// address: the peer's uid is never asked of the kernel.)
    func accept(from peer: String = "127.0.0.1", port peerPort: Int = 40000) throws -> WebClient {
        let channel = EmbeddedChannel(loop: loop)
        let remote = try SocketAddress(ipAddress: peer, port: peerPort)
        channel.remoteAddress = remote
        try server.configureWebChannel(channel, options: webSocket)
        try channel.connect(to: remote).wait()
        return WebClient(channel: channel)
    }

    /// The line a Unix-socket client gets first (`hello`), with its newline.
    func unixHello() throws -> String {
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandler(UnixClientHandler(server: server))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/peer")).wait()
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        _ = try? channel.close().wait()
        return text
    }

    var webSocketClients: Int { server.machine.clientCount(on: .webSocket) }
}

/// One connection, as its client sees it.
private final class WebClient {
    let channel: EmbeddedChannel
    /// What the server has written, not yet taken.
    private var unread: [UInt8] = []
    private var reader = FrameReader()

    init(channel: EmbeddedChannel) {
        self.channel = channel
    }

    var isOpen: Bool { channel.isActive }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        channel.embeddedEventLoop.run()
    }

    private func read() throws {
        while let part = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = part else {
                Issue.record("a file region was written")
                continue
            }
            unread += buffer.readableBytesView
        }
    }

    /// Everything written so far, as text (a plain-HTTP response, whole).
    func everything() throws -> String {
        try read()
        defer { unread = [] }
        return String(decoding: unread, as: UTF8.self)
    }

    /// The response's head (status line and headers, through the blank
    /// line); what follows it is left for `frames`.
    func responseHead() throws -> String {
        try read()
        let end = Array("\r\n\r\n".utf8)
        guard let at = unread.indices.first(where: { unread[$0...].starts(with: end) }) else {
            Issue.record("no whole response head in \(String(decoding: unread, as: UTF8.self).debugDescription)")
            return ""
        }
        defer { unread.removeFirst(at + end.count) }
        return String(decoding: unread[..<(at + end.count)], as: UTF8.self)
    }

    /// The frames written since the last call.
    func frames() throws -> [Frame] {
        try read()
        reader.add(unread)
        unread = []
        return reader.frames()
    }
}

private func upgradeRequest(path: String = "/stream", host: String = "127.0.0.1:\(port)", origin: String?,
                            key: String? = key) -> String {
    "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + (key.map { "Sec-WebSocket-Key: \($0)\r\n" } ?? "") + "Sec-WebSocket-Version: 13\r\n"
        + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n"
}

/// The response `WebPageHandler.send` makes: its headers in order, the
/// body unless the request was `HEAD`.
private func response(_ status: String, _ type: String, _ body: [UInt8], head: Bool = false,
                      extra: String = "") -> String {
    "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        + "Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\n\(extra)\r\n"
        + (head ? "" : String(decoding: body, as: UTF8.self))
}

private func response(_ status: String, _ text: String, extra: String = "") -> String {
    response(status, "text/plain; charset=utf-8", Array(text.utf8), extra: extra)
}

/// The connection got the 101 of an upgrade, exactly.
private func expectSwitching(_ client: WebClient, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let head = try client.responseHead()
    #expect(head == switching, "\(head.debugDescription)", sourceLocation: sourceLocation)
}

/// The payloads of text frames.
private func texts(_ frames: [Frame]) -> [String] {
    frames.filter { $0.opcode == 0x1 }.map { String(decoding: $0.payload, as: UTF8.self) }
}

/// The 101 for RFC 6455 1.3's key, as swift-nio writes it (its header order).
private let switching = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
    + "Sec-WebSocket-Accept: \(accept)\r\nConnection: upgrade\r\n\r\n"

// MARK: Cases

/// An upgrade request's `Origin` (and `Host`) and the listener's `allow_origins`.
struct OriginCase: Sendable, CustomTestStringConvertible {
    var origin: String?
    var host: String
    var allowOrigins: [String]
    var testDescription: String

    init(_ description: String, origin: String?, host: String = "127.0.0.1:\(port)",
         allowOrigins: [String] = ["http://localhost:3000"]) {
        self.origin = origin
        self.host = host
        self.allowOrigins = allowOrigins
        testDescription = description
    }

    /// protocol.md, "WebSocket": none, the listener's own page (an address
    /// or `localhost` with its port, as `Host` says), or one listed
    /// (`"*"` any, `"null"` a page opened from a file).
    static let accepted: [OriginCase] = [
        OriginCase("no Origin (not a browser)", origin: nil),
        OriginCase("its own page, by IPv4 address", origin: "http://127.0.0.1:\(port)"),
        OriginCase("its own page over https", origin: "https://127.0.0.1:\(port)"),
        OriginCase("its own page, as localhost", origin: "http://localhost:\(port)", host: "localhost:\(port)"),
        OriginCase("its own page, by IPv6 address", origin: "http://[::1]:\(port)", host: "[::1]:\(port)"),
        OriginCase("listed in allow_origins", origin: "http://localhost:3000"),
        OriginCase("any, with \"*\"", origin: "http://elsewhere.example", allowOrigins: ["*"]),
        OriginCase("a file's page, with \"null\" listed", origin: "null", allowOrigins: ["null"]),
    ]

    static let refused: [OriginCase] = [
        OriginCase("another site", origin: "http://elsewhere.example"),
        OriginCase("a name re-pointed here (DNS rebinding)", origin: "http://kiosk.example:\(port)",
                   host: "kiosk.example:\(port)"),
        OriginCase("this address, another port", origin: "http://127.0.0.1:3000"),
        OriginCase("Host and Origin agree on a port that is not the listener's", origin: "http://127.0.0.1:3000",
                   host: "127.0.0.1:3000"),
        OriginCase("a file's page, \"null\" not listed", origin: "null"),
    ]
}

@Suite("WebSocket transport: HTTP and the upgrade (in-process, EmbeddedChannel)")
struct WebSocketTransportTests {
    // MARK: (1) The upgrade

    @Test(arguments: OriginCase.accepted)
    func anAcceptedUpgradeGets101ThenHelloThenOneTextMessagePerReply(_ origin: OriginCase) throws {
        let rig = WebRig(allowOrigins: origin.allowOrigins)
        let hello = try rig.unixHello()
        #expect(hello.hasPrefix("{\"type\":\"hello\",\"protocol\":1,") && hello.hasSuffix("}\n"), "\(hello)")
        let client = try rig.accept()
        try client.send(upgradeRequest(host: origin.host, origin: origin.origin))
        try expectSwitching(client)
        // The same `hello` as on the Unix socket, as one text message.
        #expect(try client.frames() == [.text(String(hello.dropLast()))])
        #expect(rig.webSocketClients == 1)
        try client.send(wire(0x1, "{\"cmd\":\"ping\"}"))
        #expect(try client.frames() == [.text("{\"type\":\"pong\"}")])
        try client.send(wire(0x1, "{\"cmd\":\"ping\",\"id\":7}"))
        #expect(try client.frames() == [.text("{\"type\":\"pong\",\"id\":7}")])
        // An event of the stream is one text message too.
        let seq = rig.host.emit(.began)[0]
        let event = try client.frames()
        #expect(event.count == 1 && event.first?.opcode == 0x1, "\(event)")
        #expect(texts(event).first?.hasPrefix("{\"type\":\"began\",\"transition\":\"back\",\"seq\":\(seq),") == true,
                "\(event)")
        #expect(client.isOpen)
        // Upgraded, it is no longer held as plain HTTP: the 5 s to ask is over.
        rig.loop.advanceTime(by: .seconds(6))
        #expect(client.isOpen)
        // The client closes: answered with its code, and the slot is free.
        try client.send(wire(0x8, closeBody(1000)))
        #expect(try client.frames() == [.close(1000)])
        #expect(!client.isOpen)
        #expect(rig.webSocketClients == 0)
    }

    /// "Any path upgrades."
    @Test func anUpgradeOnAnyPathIsTheStream() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send(upgradeRequest(path: "/", origin: nil))
        try expectSwitching(client)
        #expect(try texts(client.frames()).first?.hasPrefix("{\"type\":\"hello\",") == true)
        #expect(rig.webSocketClients == 1)
    }

    // MARK: (2) Origins refused

    @Test(arguments: OriginCase.refused)
    func aForeignOriginGets403AndNoUpgrade(_ origin: OriginCase) throws {
        let rig = WebRig(allowOrigins: origin.allowOrigins)
        let client = try rig.accept()
        try client.send(upgradeRequest(host: origin.host, origin: origin.origin))
        #expect(try client.everything() == response(
            "403 Forbidden", "transitiond: this Origin may not open the WebSocket (see [server] allow_origins)\n"))
        #expect(!client.isOpen)
        #expect(rig.webSocketClients == 0)
        #expect(rig.server.machine.statistics.admitted[.webSocket, default: 0] == 0)
    }

    /// Not an RFC 6455 upgrade (no key): 400, from the page handler.
    @Test func anUpgradeWithoutAKeyGets400() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send(upgradeRequest(origin: nil, key: nil))
        #expect(try client.everything() == response(
            "400 Bad Request", "transitiond: not a valid WebSocket upgrade (RFC 6455: version 13 and a key)\n"))
        #expect(!client.isOpen)
        #expect(rig.webSocketClients == 0)
    }

    // MARK: (3) Plain HTTP

    @Test(arguments: BundledPages.files.map(\.path))
    func getServesEachBundledPageWithItsTypeThenCloses(_ path: String) throws {
        let rig = WebRig()
        let file = try #require(BundledPages.files.first { $0.path == path })
        #expect(!file.body.isEmpty)
        let client = try rig.accept()
        try client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try client.everything() == response("200 OK", file.contentType, file.body))
        #expect(!client.isOpen, "each response closes its connection")
    }

    @Test func theDemoPageAndTheClientHaveTheirTypes() {
        #expect(bundledPages["/"]?.contentType == "text/html; charset=utf-8")
        #expect(bundledPages["/transitiond.js"]?.contentType == "text/javascript; charset=utf-8")
        #expect(bundledPages["/transitiond.d.ts"]?.contentType == "application/typescript; charset=utf-8")
        let index = String(decoding: bundledPages["/"]?.body ?? [], as: UTF8.self)
        #expect(index.contains("<html"))
    }

    @Test func headGetsTheHeadersWithoutTheBody() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send("HEAD /transitiond.js HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let page = try #require(bundledPages["/transitiond.js"])
        #expect(try client.everything() == response("200 OK", page.contentType, page.body, head: true))
        #expect(!client.isOpen)
    }

    @Test func aQueryIsNotPartOfThePath() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send("GET /?kiosk=1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let page = try #require(bundledPages["/"])
        #expect(try client.everything() == response("200 OK", page.contentType, page.body))
    }

    @Test func anUnknownPathIs404() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send("GET /nothing/here HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try client.everything() == response("404 Not Found", "transitiond: no page at /nothing/here\n"))
        #expect(!client.isOpen)
    }

    /// Without metrics (`TransitionServer(metrics: nil)`) `/metrics` is a
    /// path like any other.
    @Test func metricsOffIs404() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try client.everything() == response("404 Not Found", "transitiond: no page at /metrics\n"))
    }

    @Test func healthzIs200WhileServing() throws {
        let rig = WebRig()
        #expect(rig.server.isHealthy)
        let client = try rig.accept()
        try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try client.everything() == response("200 OK", "ok\n"))
        #expect(!client.isOpen)
    }

    /// The code's answer to any method but GET and HEAD (protocol.md says
    /// only "anything else is 404").
    @Test func anotherMethodIs405WithAllow() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send("POST / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 2\r\n\r\n{}")
        #expect(try client.everything() == response("405 Method Not Allowed", "transitiond: only GET\n",
                                                    extra: "Allow: GET, HEAD\r\n"))
        #expect(!client.isOpen)
    }

    /// "Each response closes its connection": a request pipelined behind
    /// the first (in the same read) is not answered after the response that
    /// said `Connection: close` (RFC 9112 9.6).
    @Test func aPipelinedSecondRequestIsNotAnswered() throws {
        let rig = WebRig()
        let client = try rig.accept()
        try client.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            + "GET /nothing HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try client.everything() == response("200 OK", "ok\n"))
        #expect(!client.isOpen)
    }

    /// "A connection that has not asked for anything within 5 s is closed."
    @Test func aConnectionThatAsksNothingIsClosedAfter5s() throws {
        let rig = WebRig()
        let client = try rig.accept()
        rig.loop.advanceTime(by: .milliseconds(4999))
        #expect(client.isOpen)
        rig.loop.advanceTime(by: .milliseconds(1))
        #expect(!client.isOpen)
        #expect(try client.everything() == "")
    }

    // MARK: (4) max_websocket_clients

    /// One over `max_websocket_clients`: upgraded, then its `too-many-clients`
    /// error as a text message and a close with 1013. The Unix socket's
    /// clients do not count against it.
    @Test func oneOverMaxWebSocketClientsGetsTooManyClientsThen1013() throws {
        let rig = WebRig(maxWebSocketClients: 1)
        _ = try rig.unixHello()   // a Unix client came and went
        let unix = EmbeddedChannel(loop: rig.loop)
        try unix.pipeline.syncOperations.addHandler(UnixClientHandler(server: rig.server))
        try unix.connect(to: SocketAddress(unixDomainSocketPath: "/peer")).wait()
        #expect(rig.server.machine.clientCount(on: .unixSocket) == 1)

        let first = try rig.accept(from: "127.0.0.1", port: 40001)
        try first.send(upgradeRequest(origin: nil))
        try expectSwitching(first)
        #expect(try first.frames().count == 1)
        #expect(rig.webSocketClients == 1)

        // Another address: the transport's limit, not the per-peer one.
        let second = try rig.accept(from: "127.0.0.2", port: 40002)
        try second.send(upgradeRequest(origin: nil))
        try expectSwitching(second)
        #expect(try second.frames() == [
            .text("{\"type\":\"error\",\"code\":\"too-many-clients\",\"message\":\"the daemon serves at most 1 clients on this transport (max_websocket_clients)\"}"),
            .close(1013),
        ])
        #expect(!second.isOpen)
        #expect(rig.webSocketClients == 1)
        #expect(first.isOpen)

        // The first one leaves: its slot is free for the next.
        try first.send(wire(0x8, closeBody(1001)))
        #expect(try first.frames() == [.close(1001)])
        #expect(rig.webSocketClients == 0)
        let third = try rig.accept(from: "127.0.0.3", port: 40003)
        try third.send(upgradeRequest(origin: nil))
        try expectSwitching(third)
        #expect(try texts(third.frames()).first?.hasPrefix("{\"type\":\"hello\",") == true)
        #expect(rig.webSocketClients == 1)
    }

    /// Over `max_clients_per_peer` (a WebSocket peer whose uid is not known
    /// is its address): the error, then 1008.
    @Test func oneOverMaxClientsPerPeerGetsTooManyClientsThen1008() throws {
        let rig = WebRig(maxWebSocketClients: 8, maxClientsPerPeer: 1)
        let first = try rig.accept(from: "127.0.0.1", port: 40001)
        try first.send(upgradeRequest(origin: nil))
        try expectSwitching(first)
        #expect(try first.frames().count == 1)
        let second = try rig.accept(from: "127.0.0.1", port: 40002)
        try second.send(upgradeRequest(origin: nil))
        try expectSwitching(second)
        #expect(try second.frames() == [
            .text("{\"type\":\"error\",\"code\":\"too-many-clients\",\"message\":\"the daemon serves at most 1 clients of one user (or address) on this transport (max_clients_per_peer)\"}"),
            .close(1008),
        ])
        #expect(!second.isOpen)
        #expect(rig.webSocketClients == 1)
        #expect(first.isOpen)
    }
}
