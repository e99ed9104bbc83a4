import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing
import TransitionEngine
import TransitionServer
@testable import EvdevInput
@testable import LiveInput

/// The socket server with a device host: `hello` and `state` say whether
/// the input waits or which device is attached.
@Suite("Input status in hello")
struct ServerStatusTests {
    @Test func helloAndStateCarryTheInputStatus() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let socketPath = tree.path + "/s.sock"
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let source = FakeSource()
        let logs = LogLines()
        let host = DeviceHost(loop: loop, configuration: .standard, source: source, logger: logs.logger())
        let server = TransitionServer(loop: loop, options: ServerOptions(socketPath: socketPath), host: host,
                                      logger: logs.logger())
        try server.start()
        defer { _ = try? server.shutdown().wait() }
        source.push(.waiting("waiting for a touchscreen"))
        usleep(50_000)

        let client = try LineClient(path: socketPath)
        defer { client.close() }
        let hello = try #require(client.readLine())
        #expect(hello.hasPrefix("{\"type\":\"hello\""))
        #expect(hello.hasSuffix(",\"seq\":0,\"input\":\"waiting\",\"waiting_for\":\"a touchscreen\"}"))

        source.push(.attached(AttachedDevice(path: "/dev/input/event3", description: SampleDevices.touchscreen(), grabbed: false)))
        usleep(50_000)
        client.send("{\"cmd\":\"state\"}\n")
        let state = try #require(client.readLine())
        #expect(state.hasPrefix("{\"type\":\"state\""))
        #expect(state.hasSuffix(",\"input\":\"attached\",\"device\":\"/dev/input/event3\",\"device_name\":\"Test Panel\"}"))
        let runningBefore = !source.stopped.load(ordering: .relaxed)
        #expect(runningBefore)
        _ = try server.shutdown().wait()
        let stoppedAfter = source.stopped.load(ordering: .relaxed)
        #expect(stoppedAfter)
    }
}

/// A blocking line reader on a Unix socket.
final class LineClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The next line without its newline; nil on end of file or timeout.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0a) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            buffer += chunk[..<n]
        }
    }

    func close() {
        _ = Glibc.close(fd)
    }
}
