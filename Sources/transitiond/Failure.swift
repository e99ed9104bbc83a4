#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser

/// A failure the CLI reports as `transitiond: WHAT` on stderr and exits
/// with a sysexits code.
struct Failure: Error {
    enum Code: Int32 {
        case usage = 64
        case dataError = 65
        case noInput = 66
        case unavailable = 69
        /// An internal error: a bug, reported rather than trapped on.
        case software = 70
        case ioError = 74
    }

    var code: Code
    var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ParsableCommand {
    /// Runs `body`, turning a `Failure` into its message and exit code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as Failure {
            StandardError.write("transitiond: \(failure.message)\n")
            throw ExitCode(failure.code.rawValue)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardError.write("transitiond: internal error (please report it): \(error)\n")
            throw ExitCode(Failure.Code.software.rawValue)
        }
    }
}

/// Writes to stderr, unbuffered.
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// Whether a file exists (for telling "no input" from "bad data").
func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// An option given an empty value (`--socket ""`) is a usage error (64)
/// naming it: an empty path would otherwise read as no option at all and
/// quietly serve, read or write the default, which is not what was asked.
func requireNames(_ options: KeyValuePairs<String, String?>) throws {
    for (option, value) in options where value?.isEmpty == true {
        throw ValidationError("\(option) needs a path (\"\" given)")
    }
}
