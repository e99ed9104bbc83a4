#if canImport(Glibc)
import Glibc
#endif

/// Watches directories with inotify for entries that appear (created, or
/// moved in: udev makes its links by renaming), change attributes (mode,
/// owner, ACL: udev granting access) or go away. Non-blocking: poll `fd`
/// and call `readChanges()`, or block in `wait(timeout:)`.
public final class DirectoryWatcher {
    /// What happened to an entry.
    public enum Kind: Sendable, Equatable {
        case created
        case attributesChanged
        case removed
        /// The watched directory itself went away (its watch is gone).
        case directoryGone
        /// The kernel's queue overflowed: anything may have changed.
        case overflow
    }

    /// One change in a watched directory.
    public struct Change: Sendable, Equatable {
        public var directory: String
        /// The entry's name ("" for the directory itself and overflows).
        public var name: String
        public var kind: Kind
        public var isDirectory: Bool

        public init(directory: String, name: String, kind: Kind, isDirectory: Bool = false) {
            self.directory = directory
            self.name = name
            self.kind = kind
            self.isDirectory = isDirectory
        }

        /// `directory/name`.
        public var path: String { name.isEmpty ? directory : directory + "/" + name }
    }

    /// The inotify descriptor (non-blocking, close-on-exec), for `poll(2)`.
    public let fd: Int32
    private var directories: [Int32: String] = [:]
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    public init() throws(DeviceOpenError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw DeviceOpenError.from(errno: errno) }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    // MARK: Watches

    /// Starts watching `directory`; false if it cannot (it does not exist).
    @discardableResult
    public func watch(_ directory: String) -> Bool {
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE | IN_MOVED_FROM
                          | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        let wd = inotify_add_watch(fd, directory, mask)
        guard wd >= 0 else { return false }
        directories[wd] = directory
        return true
    }

    /// Whether `directory` is being watched.
    public func isWatching(_ directory: String) -> Bool {
        directories.values.contains(directory)
    }

    // MARK: Reading

    /// Every change queued now (none when nothing happened).
    public func readChanges() -> [Change] {
        var changes: [Change] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return changes }
            buffer.withUnsafeBytes { parse(UnsafeRawBufferPointer(rebasing: $0[0..<n]), into: &changes) }
        }
    }

    /// Waits up to `timeout` seconds (negative: forever) for changes.
    public func wait(timeout: Double) -> [Change] {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout < 0 ? -1 : Int32(min(timeout * 1000, Double(Int32.max)).rounded(.up))
        _ = poll(&entry, 1, milliseconds)
        return readChanges()
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, into changes: inout [Change]) {
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= bytes.count {
            let wd = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameBytes = bytes[(offset + header)..<min(bytes.count, offset + header + length)]
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            offset += header + length
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                changes.append(Change(directory: "", name: "", kind: .overflow))
                continue
            }
            guard let directory = directories[wd] else { continue }
            let isDirectory = mask & UInt32(IN_ISDIR) != 0
            if mask & UInt32(IN_IGNORED) != 0 {
                directories[wd] = nil
                changes.append(Change(directory: directory, name: "", kind: .directoryGone, isDirectory: true))
            } else if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                if mask & UInt32(IN_MOVE_SELF) != 0 { inotify_rm_watch(fd, wd) }
            } else if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                changes.append(Change(directory: directory, name: name, kind: .created, isDirectory: isDirectory))
            } else if mask & UInt32(IN_ATTRIB) != 0 {
                changes.append(Change(directory: directory, name: name, kind: .attributesChanged, isDirectory: isDirectory))
            } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                changes.append(Change(directory: directory, name: name, kind: .removed, isDirectory: isDirectory))
            }
        }
    }
}
