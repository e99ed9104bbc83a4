// A Swift client of transitiond with the `StreamClient` library product
// (which also exports WireProtocol, the messages' types): connects to the
// daemon's socket, keeps a mirror of every transition, and
// prints one line per event with where the transition comes from (the
// hello's edge or direction) and what a UI would draw.
//
//   swift run stream-client-example [SOCKET] [--count N]
//
// In a package of your own:
//   .package(url: "https://github.com/OWNER/transitiond", from: "0.1.0")
//   .product(name: "StreamClient", package: "transitiond")
#if canImport(Glibc)
import Glibc
#endif
import StreamClient

var arguments = Array(CommandLine.arguments.dropFirst())
var limit = Int.max
if let i = arguments.firstIndex(of: "--count"), i + 1 < arguments.count, let n = Int(arguments[i + 1]) {
    limit = n
    arguments.removeSubrange(i...(i + 1))
}
let path = StreamConnection.resolveSocketPath(explicit: arguments.first,
                                              environment: StreamConnection.socketEnvironment())
let connection: StreamConnection
do {
    connection = try StreamConnection(path: path)
} catch {
    FileHandleOutput.error("stream-client-example: \(path): \(error)")
    exit(69)
}
defer { connection.close() }

var mirror = StreamMirror()
var events = 0
while events < limit {
    let line: [UInt8]?
    do {
        line = try connection.readLine()
    } catch {
        FileHandleOutput.error("stream-client-example: \(error)")
        exit(74)
    }
    guard let line else { break }   // the daemon closed the connection
    guard let message = try? StreamMessage.decode(line: line) else { continue }
    mirror.apply(message)
    switch message {
    case .hello(let snapshot):
        for info in snapshot.transitions {
            let from = info.edge.map { "from the \($0) edge" } ?? info.direction.map { "direction \($0)" } ?? ""
            print("\(info.name): \(info.gesture ?? "?") with \(info.fingers ?? 0) finger(s) \(from)")
        }
    case .event(let update):
        events += 1
        let values = update.values.map { "\($0.property)=\($0.value)" }.joined(separator: " ")
        print("\(update.transition) \(update.kind) progress \(update.progress) \(values)")
    case .pong, .clock, .state, .ok, .error, .dump, .unknown:
        break
    }
}
let settled = mirror.inFlight.isEmpty ? "nothing in flight" : "\(mirror.inFlight.count) in flight"
print("\(events) events; \(settled)")

/// Standard error without Foundation.
enum FileHandleOutput {
    static func error(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
