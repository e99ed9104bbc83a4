#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file read with plain `read(2)` calls: in chunks into a reused
/// buffer (the fast way through a large recording: no big allocation to
/// fault in, and the bytes are still in the cache when parsed), or whole.
/// Errors carry the system's reason.
struct InputFile: ~Copyable {
    let path: String
    let descriptor: Int32
    /// The size `fstat` reported, for a regular file.
    let size: Int?

    init(path: String) throws(RecordingError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw RecordingError(file: path, message: "cannot open the file: \(Self.reason(errno))")
        }
        var info = stat()
        var size: Int?
        if fstat(descriptor, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                close(descriptor)
                throw RecordingError(file: path, message: "is a folder, not a recording")
            }
            if (info.st_mode & S_IFMT) == S_IFCHR || (info.st_mode & S_IFMT) == S_IFBLK {
                close(descriptor)
                throw RecordingError(file: path, message: "is a device, not a recording file (to replay what an input device sends, record it first: transitiond record --device \(path) -o FILE)")
            }
            if (info.st_mode & S_IFMT) == S_IFREG && info.st_size >= 0 && info.st_size < Int.max / 2 {
                size = Int(info.st_size)
            }
        }
        self.path = path
        self.descriptor = descriptor
        self.size = size
    }

    deinit {
        close(descriptor)
    }

    /// Reads into `buffer[from...]` until it is full or the file ends;
    /// returns how many bytes were read (fewer than asked means the end).
    func fill(_ buffer: inout [UInt8], from start: Int) throws(RecordingError) -> Int {
        var failure: Int32 = 0
        let total = buffer.withUnsafeMutableBytes { bytes -> Int in
            guard let base = bytes.baseAddress else { return 0 }
            var count = 0
            while start + count < bytes.count {
                let got = systemRead(descriptor, base + start + count, bytes.count - start - count)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return count
                }
                if got == 0 { break }
                count += got
            }
            return count
        }
        if failure != 0 {
            throw RecordingError(file: path, message: "cannot read the file: \(Self.reason(failure))")
        }
        return total
    }

    /// The most a file read whole may hold (a `libinput record` YAML file,
    /// a description): 256 MiB, far beyond any recording of that kind.
    static let largestWhole = 256 << 20

    /// The rest of the file, after `prefix` (bytes already read); more than
    /// `largestWhole` in all is an error (a pipe or FIFO that never ends).
    func readAll(after prefix: [UInt8] = []) throws(RecordingError) -> [UInt8] {
        var bytes = prefix
        var chunk = [UInt8](repeating: 0, count: min(Self.largestWhole + 1, max(64 * 1024, (size ?? 0) - prefix.count + 1)))
        while true {
            let got = try fill(&chunk, from: 0)
            bytes.append(contentsOf: chunk[0..<got])
            if bytes.count > Self.largestWhole {
                throw RecordingError(file: path, message: "is larger than \(Self.largestWhole >> 20) MiB, the most a file read whole may be")
            }
            if got < chunk.count { return bytes }
        }
    }

    /// A whole file's bytes.
    static func read(path: String) throws(RecordingError) -> [UInt8] {
        try InputFile(path: path).readAll()
    }

    /// The system's words for an errno value.
    static func reason(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// `read(2)`, named apart from the methods called `read`.
@inline(__always)
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.read(descriptor, buffer, count)
    #elseif canImport(Musl)
    return Musl.read(descriptor, buffer, count)
    #else
    return Glibc.read(descriptor, buffer, count)
    #endif
}
