#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import StreamClient
import WireProtocol

/// `transitiond dump`: fetches the flight recorder of a running daemon —
/// the last seconds of each panel's raw input — and writes it as evemu
/// recordings that `replay` turns into the transitions the daemon streamed.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Write a running daemon's flight recorder (the last seconds of raw input) as evemu recordings.",
        discussion: """
        Asks the daemon on --socket (else $TRANSITIOND_SOCKET, else \
        $XDG_RUNTIME_DIR/transitiond.sock, else /run/transitiond/transitiond.sock) \
        for its flight recorder ([input] flight_recorder, 30 seconds by default) \
        with the dump command, which only allowed peers may send. With one panel \
        the recording goes to -o FILE (default: stdout); with several, each to \
        FILE with its panel number before the extension (dump.events -> \
        dump.0.events, dump.1.events). A recording starts at the first moment no \
        finger was down, so a gesture that began before the window is left out, \
        and `transitiond replay --fast FILE` gives the transitions the daemon \
        streamed for the rest.
        """
    )

    @OptionGroup var daemon: DaemonSocketOption

    @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the recording (default: stdout).", valueName: "FILE"))
    var output: String?

    func validate() throws {
        try requireNames(["--output": output])
    }

    func run() throws {
        try reportingFailures {
            let path = daemon.path
            let connection: StreamConnection
            do {
                connection = try StreamConnection(path: path, lineLimit: 1 << 28)
            } catch {
                throw Failure(.unavailable, "\(path): \(error)")
            }
            defer { connection.close() }
            let recordings = try fetch(connection, path: path)
            guard !recordings.isEmpty else {
                throw Failure(.unavailable, "\(path): the flight recorder holds no panel yet")
            }
            for (k, recording) in recordings.enumerated() {
                let target = Self.target(output, index: recordings.count > 1 ? k : nil)
                try TextFile.write(recording.evemu, to: target)
                StandardError.write("transitiond: \(recording.path): \(recording.events) events\(target.map { " to \($0)" } ?? "")\n")
            }
        }
    }

    /// One panel's recording as the daemon sent it.
    struct Recording {
        var path: String
        var events: Int
        var evemu: String
    }

    private func fetch(_ connection: StreamConnection, path: String) throws -> [Recording] {
        var sent = false
        while true {
            let line: [UInt8]?
            do {
                line = try connection.readLine(timeout: 30)
            } catch {
                throw Failure(.unavailable, "\(path): \(error)")
            }
            guard let line else { throw Failure(.unavailable, "\(path): the daemon closed the connection") }
            guard let message = try? StreamMessage.decode(line: line) else { continue }
            switch message {
            case .hello where !sent:
                do {
                    try connection.send(bytes: ClientCommand.dump.encodedLine())
                } catch {
                    throw Failure(.unavailable, "\(path): \(error)")
                }
                sent = true
            case .error(_, let text, _, _) where sent:
                throw Failure(.unavailable, "\(path): dump: \(text.isEmpty ? "refused" : text)")
            case .dump(let recordings, _):
                return recordings.map { Recording(path: $0.path, events: $0.events, evemu: $0.evemu) }
            default:
                continue
            }
        }
    }

    /// FILE, or FILE with `.N` before its extension; nil for stdout.
    static func target(_ output: String?, index: Int?) -> String? {
        guard let output, output != "-" else { return nil }
        guard let index else { return output }
        let slash = output.lastIndex(of: "/").map { output.index(after: $0) } ?? output.startIndex
        if let dot = output[slash...].lastIndex(of: "."), dot > slash {
            return String(output[..<dot]) + ".\(index)" + String(output[dot...])
        }
        return output + ".\(index)"
    }
}
