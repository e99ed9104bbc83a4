#if canImport(Glibc)
import Glibc
#endif

/// What a named output file (`replay --plot FILE`, `verify --write-expect`,
/// `dump -o FILE`) is replaced or written by: the rule, as a value, from
/// what the path names. Only a regular file is ever replaced (a temporary
/// renamed over it); a device, a FIFO or a descriptor is written where it
/// is, for renaming a file over `/dev/full` (as root) would leave a plain
/// file in its place and break every later writer of that device.
enum OutputTarget: Equatable {
    /// Write a new file at `path` by renaming a temporary over it, with
    /// `mode` (the old file's) or the default (nil, no file there).
    case replace(path: String, mode: mode_t?)
    /// Open `path` for writing without creating or truncating it (a
    /// device, a FIFO, a terminal, an open descriptor's link) and write.
    /// `append`: for a descriptor's link (`/dev/stdout`) to a regular
    /// file, which the shell opened: write after what is there (`>>`), as
    /// writing to the descriptor itself would.
    case writeInPlace(path: String, append: Bool)
    /// A dangling symlink: create what it names through it (so the link
    /// stays), then write that file as a regular one.
    case createThroughLink(path: String)
    /// Not something to write to; the message names why (the caller adds the path).
    case refuse(String)

    /// What a path names, as `stat` (following links) and `lstat` see it.
    struct Facts: Equatable {
        enum Kind: Equatable { case missing, regular(mode: mode_t), directory, fifo, characterDevice, blockDevice, socket }
        /// What the path names, links followed (`.missing`: nothing, or a dangling link).
        var kind: Kind
        /// Whether the path itself is a symlink.
        var isLink = false
        /// For a link to a regular file: the file it names, as a path (nil
        /// if it could not be worked out).
        var resolved: String? = nil
        /// Whether a link on the way is an open descriptor's
        /// (`/proc/PID/fd/N`, which `/dev/stdout` and `/dev/fd/N` lead to).
        var throughDescriptor = false
    }

    static func plan(_ path: String, _ facts: Facts) -> OutputTarget {
        switch facts.kind {
        case .missing:
            return facts.isLink ? .createThroughLink(path: path) : .replace(path: path, mode: nil)
        case .regular(let mode):
            if facts.throughDescriptor { return .writeInPlace(path: path, append: true) }
            guard facts.isLink else { return .replace(path: path, mode: mode) }
            // Replace what the link names, never the link itself.
            guard let resolved = facts.resolved else { return .refuse("cannot tell which file the link names") }
            return .replace(path: resolved, mode: mode)
        case .directory:
            return .refuse("is a directory")
        case .socket:
            return .refuse("is a socket, not a file to write")
        case .fifo, .characterDevice, .blockDevice:
            return .writeInPlace(path: path, append: false)
        }
    }
}

extension OutputTarget.Facts {
    /// The facts of `path` on this system. Links are followed by opening
    /// the path (`O_PATH`: no side effect on a device or a FIFO, no wait),
    /// so the kernel's rules for following them (`fs.protected_symlinks`
    /// in a sticky folder such as /tmp) apply as they would to the shell's
    /// `>`; the file a link names is read back from the descriptor.
    static func of(_ path: String) throws(Failure) -> Self {
        var own = stat()
        let isLink = lstat(path, &own) == 0 && own.st_mode & S_IFMT == S_IFLNK
        let fd = open(path, openPathOnly | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return Self(kind: .missing, isLink: isLink) }
            throw Failure(.ioError, "\(path): cannot write: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw Failure(.ioError, "\(path): cannot write: \(String(cString: strerror(errno)))")
        }
        var facts = Self(kind: kind(info.st_mode), isLink: isLink)
        if isLink {
            facts.throughDescriptor = linkChainPassesADescriptor(path)
            if case .regular = facts.kind { facts.resolved = readLink("/proc/self/fd/\(fd)") }
        }
        return facts
    }

    private static func kind(_ mode: mode_t) -> Kind {
        switch mode & S_IFMT {
        case S_IFREG: return .regular(mode: mode & 0o7777)
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFSOCK: return .socket
        default: return .characterDevice
        }
    }

    /// Whether following `path`'s links goes through `/proc/PID/fd/N`
    /// (or a task's): such a link names an open descriptor, not a file.
    private static func linkChainPassesADescriptor(_ path: String) -> Bool {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return false }
            let slash = current.lastIndex(of: "/")
            let folder = slash.map { String(current[..<$0]) } ?? "."
            let real = realpath(folder.isEmpty ? "/" : folder, nil)
            if let real {
                defer { free(real) }
                let parts = String(cString: real).split(separator: "/")
                if parts.first == "proc", parts.last == "fd" { return true }
            }
            guard let target = readLink(current) else { return false }
            current = target.hasPrefix("/") ? target : (folder.isEmpty ? "/" : folder + "/") + target
        }
        return false
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `O_PATH` (Linux ≥ 2.6.39), which Glibc declares only under
/// `_GNU_SOURCE` and so the module does not: its value on every
/// architecture Swift runs on.
private let openPathOnly: Int32 = 0o10_000_000
