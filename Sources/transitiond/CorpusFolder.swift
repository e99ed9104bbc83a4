#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// The recordings of a folder for `verify --corpus`: every regular file (or
/// link to one) whose name ends in a recording's extension, in the folder
/// and the folders under it, sorted by path in byte order; each path is the
/// folder as given joined with the names under it.
///
/// What is not a recording is named, never opened: another extension (a
/// README, a config, a `.desc` description), and anything that is not a
/// regular file — a FIFO or a device would block or stream forever when
/// read, so the type is checked with `stat` before anything is opened. Names
/// starting with `.` (`.git`, editor swap files) are passed over without a
/// word, and links to folders are not followed (a loop cannot hold the walk).
struct CorpusFolder {
    /// What `replay` reads: evemu (`.events`, `.evemu`) and `libinput record` YAML (`.yml`, `.yaml`).
    static let extensions = [".events", ".evemu", ".yml", ".yaml"]

    var recordings: [String] = []
    /// Paths passed over, with why.
    var skipped: [(path: String, why: String)] = []

    /// Scans `folder`: 66 when it (or a folder under it) cannot be read.
    init(scanning folder: String) throws {
        var info = stat()
        guard stat(folder, &info) == 0 else {
            throw Failure(.noInput, "\(folder): no such corpus folder")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Failure(.noInput, "\(folder): not a folder (--corpus takes a folder of recordings)")
        }
        try walk(folder)
        recordings.sort { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
        skipped.sort { Array($0.path.utf8).lexicographicallyPrecedes($1.path.utf8) }
    }

    private mutating func walk(_ folder: String) throws {
        guard let all = FolderNames.names(in: folder) else {
            throw Failure(.noInput, "\(folder): cannot read the folder: \(String(cString: strerror(errno)))")
        }
        for name in all where !name.hasPrefix(".") {
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var own = stat(), target = stat()
            guard lstat(path, &own) == 0 else { continue }  // gone since it was listed
            let isLink = own.st_mode & S_IFMT == S_IFLNK
            guard stat(path, &target) == 0 else {
                skipped.append((path, "a link to nothing"))
                continue
            }
            switch target.st_mode & S_IFMT {
            case S_IFDIR:
                if isLink { skipped.append((path, "a link to a folder, not followed")) } else { try walk(path) }
            case S_IFREG:
                if Self.extensions.contains(where: { name.hasSuffix($0) }) {
                    recordings.append(path)
                } else {
                    skipped.append((path, "not a recording (\(Self.extensions.joined(separator: ", ")))"))
                }
            default:
                // A C mode, not a project enum: FIFOs, sockets and devices alike.
                skipped.append((path, "not a regular file"))
            }
        }
    }
}
