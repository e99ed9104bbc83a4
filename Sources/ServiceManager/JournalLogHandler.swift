#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Log records in the form journald reads from a service's stderr
/// (`sd-daemon(3)`): one line a record, a `<N>` syslog priority prefix and
/// no timestamp of the daemon's own (the journal stamps each line). Used
/// when `$JOURNAL_STREAM` says stderr is connected to the journal.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String, logLevel: Logger.Level = .info) {
        self.label = label
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The syslog priority of a level.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// One record's line: `<N>text`, with newlines in the text escaped so
    /// that a record never spans lines.
    public static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var text = "<\(priority(level))>\(message)"
        if !metadata.isEmpty {
            text += " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        if text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
            var escaped = String.UnicodeScalarView()
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\n": escaped.append(contentsOf: "\\n".unicodeScalars)
                case "\r": escaped.append(contentsOf: "\\r".unicodeScalars)
                default: escaped.append(scalar)
                }
            }
            text = String(escaped)
        }
        return text + "\n"
    }

    public func log(event: LogEvent) {
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        let bytes = Array(Self.line(level: event.level, message: "\(event.message)", metadata: merged).utf8)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(STDERR_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    /// Whether stderr is the journal's stream: `$JOURNAL_STREAM` is
    /// `DEVICE:INODE` of stderr's file (systemd sets it for a service whose
    /// output goes to the journal; a redirected stderr no longer matches).
    public static func stderrIsJournal(_ journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
