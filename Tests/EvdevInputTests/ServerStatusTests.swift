import Foundation
import Logging
import NIOCore
import NIOPosix
import TestSupport
import Testing
import Engine
import Server
import ServerCore
@testable import EvdevInput
@testable import Inputs

/// The socket server with a device host: `hello` and `state` say whether
/// the input waits or which device is attached.
@Suite("Input status in hello")
struct ServerStatusTests {
    @Test func helloAndStateCarryTheInputStatus() throws {
        let socketPath = temporarySocketPath()
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
        // The host's input status values, read on its loop.
        func status() -> [String] { (try? loop.submit { host.inputStatus.fields.map(\.value) }.wait()) ?? [] }
        source.push(.waiting("waiting for a touchscreen"))
        #expect(waitUntil(timeout: 5) { status() == ["waiting", "a touchscreen"] })

        let client = try LineClient(path: socketPath)
        defer { client.close() }
        let hello = try #require(client.readLine())
        #expect(hello.hasPrefix("{\"type\":\"hello\""))
        #expect(hello.hasSuffix(",\"seq\":0,\"input\":\"waiting\",\"waiting_for\":\"a touchscreen\"}"))

        source.push(.attached(AttachedDevice(path: "/dev/input/event3", description: SampleDevices.touchscreen(), grabbed: false)))
        #expect(waitUntil(timeout: 5) { status() == ["attached", "/dev/input/event3", "Test Panel"] })
        try client.send("{\"cmd\":\"state\"}\n")
        let state = try #require(client.readLine())
        #expect(state.hasPrefix("{\"type\":\"state\""))
        // Live, each attached panel's health comes last (no interval measured yet: no rates).
        #expect(state.hasSuffix(",\"input\":\"attached\",\"device\":\"/dev/input/event3\",\"device_name\":\"Test Panel\","
            + "\"panels\":[{\"source\":0,\"path\":\"/dev/input/event3\",\"degraded\":false,\"samples\":0,"
            + "\"resyncs\":0,\"ghost_touches\":0,\"stuck_contacts\":0}]}"))
        let runningBefore = !source.stopped.load(ordering: .relaxed)
        #expect(runningBefore)
        _ = try server.shutdown().wait()
        let stoppedAfter = source.stopped.load(ordering: .relaxed)
        #expect(stoppedAfter)
    }
}
