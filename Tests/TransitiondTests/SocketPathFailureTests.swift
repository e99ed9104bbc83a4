import Foundation
import Testing
import TestSupport

/// A socket path the daemon cannot bind (here: a "folder" that is a file,
/// as an unset `$XDG_RUNTIME_DIR` makes of `--socket "$XDG_RUNTIME_DIR/x"`
/// where `/` is not writable): exit 69 with the path and why, and nothing
/// said about serving the WebSocket bound before it.
@Suite struct SocketPathFailureTests {
    @Test func aPathThatCannotBeBoundIsUnavailableAndNothingIsSaidToBeServed() throws {
        let notAFolder = try temporaryFile("not-a-folder-\(UInt32.random(in: 0...UInt32.max))", "")
        let socket = notAFolder + "/demo.sock"
        let result = try runTransitiond(["replay", "--socket", socket, "--websocket", "127.0.0.1:0",
                                         "Recordings/back-drag-finish.events"])
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains(socket), "\(result.stderr)")
        #expect(!result.stderr.contains("serving"), "\(result.stderr)")
    }
}
