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

    /// `--socket ""` once read as no `--socket` at all and served (or
    /// dialled) the default path: a usage error naming the option instead.
    @Test(arguments: [
        ["run", "--input-root", "/nonexistent"],
        ["replay", "Recordings/back-drag-finish.events"],
        ["subscribe", "--retry-seconds", "0"],
        ["dump"],
    ])
    func anEmptySocketPathIsAUsageError(_ arguments: [String]) throws {
        let result = try runTransitiond(arguments + ["--socket", ""], timeout: 20)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("--socket needs a path"), "\(arguments): \(result.stderr)")
    }

    @Test(arguments: [
        (["replay", "Recordings/back-drag-finish.events", "--plot", ""], "--plot"),
        (["verify", "Recordings/back-drag-finish.events", "--expect", ""], "--expect"),
        (["replay", "Recordings/back-drag-finish.events", "--config", ""], "--config"),
        (["check-config", ""], "FILE"),
        (["dump", "-o", ""], "--output"),
    ])
    func anEmptyFileNameIsAUsageError(_ arguments: [String], _ option: String) throws {
        let result = try runTransitiond(arguments, timeout: 20)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("\(option) needs a path"), "\(arguments): \(result.stderr)")
    }
}
