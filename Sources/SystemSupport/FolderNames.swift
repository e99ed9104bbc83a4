#if canImport(Glibc)
import Glibc
#endif

/// The names in a folder, as `readdir(3)` gives them, without `.` and `..`:
/// one home for reading `dirent` names (their bytes up to the first NUL).
public enum FolderNames {
    /// The names in the folder at `path`; nil if it cannot be read (errno says why).
    public static func names(in path: String) -> [String]? {
        guard let stream = opendir(path) else { return nil }
        defer { closedir(stream) }
        return names(of: stream)
    }

    /// The names in an open folder (its descriptor stays open, and the
    /// caller's: it is read through a copy), for work relative to a folder
    /// opened once (`openat`, `fstatat`); nil if it cannot be read.
    public static func names(inOpenFolder descriptor: CInt) -> [String]? {
        let copy = dup(descriptor)
        guard copy >= 0 else { return nil }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return nil
        }
        defer { closedir(stream) }
        // A copy shares the reading position: read from the start.
        rewinddir(stream)
        return names(of: stream)
    }

    private static func names(of stream: OpaquePointer) -> [String] {
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
