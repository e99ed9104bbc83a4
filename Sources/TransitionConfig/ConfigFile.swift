#if canImport(Glibc)
import Glibc
#endif

/// Reading a config file from disk as UTF-8 text.
enum ConfigFile {
    /// The most a config file may hold: 4 MiB (a config is a few KB; this
    /// bounds what a FIFO that never ends can cost).
    static let largest = 4 << 20

    /// The file's text: a regular file, or a pipe (`--config <(…)`); a
    /// folder or a device is refused, as is more than `largest` bytes.
    static func read(path: String) throws(ConfigError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ConfigError(file: path, line: nil, message: "cannot read the file: \(reason(errno))") }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR: throw ConfigError(file: path, line: nil, message: "cannot read the file: is a directory")
            case S_IFCHR, S_IFBLK: throw ConfigError(file: path, line: nil, message: "is a device, not a config file")
            default: break
            }
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw ConfigError(file: path, line: nil, message: "cannot read the file: \(reason(errno))")
            }
            if got == 0 { break }
            bytes.append(contentsOf: chunk[0..<got])
            guard bytes.count <= largest else {
                throw ConfigError(file: path, line: nil, message: "is larger than \(largest >> 20) MiB, the most a config file may be")
            }
        }
        return try decode(bytes, file: path)
    }

    /// The bytes as text, or an error at the line and column of the first
    /// invalid UTF-8.
    static func decode(_ bytes: [UInt8], file: String) throws(ConfigError) -> String {
        try TOMLReader.checkUTF8(bytes, file: file)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// "no such file", "permission denied", ...
    private static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES: return "permission denied"
        case EISDIR: return "is a directory"
        default: return String(cString: strerror(code))
        }
    }
}
