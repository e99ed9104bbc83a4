// Foundation is used here only to read the file's bytes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading a config file from disk as UTF-8 text.
enum ConfigFile {
    static func read(path: String) throws(ConfigError) -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigError(file: path, line: nil, message: "cannot read the file: \(reason(error))")
        }
        return try decode(Array(data), file: path)
    }

    /// The bytes as text, or an error at the line and column of the first
    /// invalid UTF-8.
    static func decode(_ bytes: [UInt8], file: String) throws(ConfigError) -> String {
        try TOMLReader.checkUTF8(bytes, file: file)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// "no such file", "permission denied", "is a directory", ...
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? CocoaError else { return String(describing: error) }
        switch error.code {
        case .fileReadNoSuchFile: return "no such file"
        case .fileReadNoPermission: return "permission denied"
        default: break
        }
        if let posix = error.userInfo["NSUnderlyingError"] as? POSIXError {
            switch posix.code {
            case .ENOENT: return "no such file"
            case .EACCES: return "permission denied"
            case .EISDIR: return "is a directory"
            default: return "system error \(posix.code.rawValue)"
            }
        }
        return "error \(error.code.rawValue)"
    }
}
