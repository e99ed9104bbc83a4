import Testing
import StreamClient

/// design "Socket": --socket, $TRANSITIOND_SOCKET, $XDG_RUNTIME_DIR, /run.
@Suite("Stream: socket path")
struct SocketPathTests {
    private func resolve(_ explicit: String?, _ environment: [String: String]) -> String {
        StreamConnection.resolveSocketPath(explicit: explicit, environment: environment)
    }

    @Test func order() {
        let all = ["TRANSITIOND_SOCKET": "/tmp/env.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(resolve("/tmp/flag.sock", all) == "/tmp/flag.sock")
        #expect(resolve(nil, all) == "/tmp/env.sock")
        #expect(resolve(nil, ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/transitiond.sock")
        #expect(resolve(nil, ["XDG_RUNTIME_DIR": "/run/user/1000/"]) == "/run/user/1000/transitiond.sock")
        #expect(resolve(nil, [:]) == "/run/transitiond/transitiond.sock")
        #expect(resolve("relative.sock", [:]) == "relative.sock")
    }

    @Test func emptyValuesCountAsUnset() {
        #expect(resolve("", ["TRANSITIOND_SOCKET": "", "XDG_RUNTIME_DIR": "/x"]) == "/x/transitiond.sock")
        #expect(resolve(nil, ["TRANSITIOND_SOCKET": "", "XDG_RUNTIME_DIR": ""]) == "/run/transitiond/transitiond.sock")
    }
}
