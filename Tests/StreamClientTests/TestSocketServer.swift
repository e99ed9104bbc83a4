import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A one-client Unix stream socket server for tests: it listens at a fresh
/// path, and `serve` accepts one connection on a thread and runs a script
/// with the accepted descriptor.
final class TestSocketServer: @unchecked Sendable {
    let path: String
    private let listener: Int32
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        path = temporarySocketPath()
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXFailure(call: "socket", code: errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw POSIXFailure(call: "bind", code: errno) }
        guard listen(listener, 4) == 0 else { throw POSIXFailure(call: "listen", code: errno) }
    }

    deinit {
        close(listener)
        unlink(path)
    }

    /// Accepts one client on a thread and runs `script` with its descriptor;
    /// the client is closed when the script returns.
    func serve(_ script: @escaping @Sendable (Int32) -> Void) {
        let listener = self.listener
        let done = self.done
        Thread.detachNewThread {
            let client = accept(listener, nil, nil)
            if client >= 0 {
                script(client)
                close(client)
            }
            done.signal()
        }
    }

    /// Waits for the script to finish (bounded).
    func finish(timeout: Double = 10) -> Bool {
        done.wait(timeout: .now() + timeout) == .success
    }
}

/// Writes all of `bytes` to `fd`.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { return }
        offset += n
    }
}

func writeAll(_ fd: Int32, _ text: String) { writeAll(fd, Array(text.utf8)) }

/// Reads from `fd` until `count` bytes or EOF.
func readBytes(_ fd: Int32, count: Int) -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while result.count < count {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, count - result.count)) }
        if n <= 0 { break }
        result += chunk[0..<n]
    }
    return result
}

struct POSIXFailure: Error {
    var call: String
    var code: Int32
}
