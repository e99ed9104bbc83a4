#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import Engine

/// The misfire spool's executor (`[input] keep_misfires`): writes a kept
/// misfire's flight recordings into the spool's folder and trims it to its
/// bounds (`MisfireSpoolPlan`), on a queue of its own so that neither the
/// input nor the stream waits on the disk. A file is written under a
/// temporary name and linked to its own, which never replaces a file;
/// only the spool's own files are ever removed. A folder that cannot be
/// used is said once per misfire kept (at most one a `misfire_interval`).
final class MisfireSpool: @unchecked Sendable {
    let folder: String
    let maxFiles: Int
    let maxBytes: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "transitiond.misfire-spool")

    init(folder: String, maxFiles: Int, maxBytes: Int, logger: Logger) {
        self.folder = folder
        self.maxFiles = maxFiles
        self.maxBytes = maxBytes
        self.logger = logger
    }

    /// Writes the misfire's recordings (one per panel snapshot that holds
    /// events) and trims the spool; `done` (tests) after, on the queue.
    func keep(_ misfire: MisfireWatch.Misfire, _ snapshots: [FlightRecorders.Snapshot], header: [String],
              done: (@Sendable () -> Void)? = nil) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = now.tv_sec
        queue.async { [self] in
            write(misfire, snapshots.filter { !$0.dump.events.isEmpty }, header: header, at: seconds)
            done?()
        }
    }

    /// Waits for what was handed over so far to be written (tests, shutdown).
    func drain() { queue.sync {} }

    private func write(_ misfire: MisfireWatch.Misfire, _ snapshots: [FlightRecorders.Snapshot], header: [String],
                       at seconds: Int) {
        let what = "misfire \(misfire.kind.rawValue) of \(misfire.transition)"
        guard !snapshots.isEmpty else {
            logger.notice("\(what): the flight recorder holds nothing to keep")
            return
        }
        if let problem = prepareFolder() {
            logger.error("\(what) not kept: [input] misfire_spool \(folder): \(problem)")
            return
        }
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let stem = MisfireSpoolPlan.stem(kind: misfire.kind, transition: misfire.transition,
                                         utc: (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                                               Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)))
        var written: [String] = []
        for (k, snapshot) in snapshots.enumerated() {
            var lines = header
            lines.append("misfire: kind=\(misfire.kind.rawValue) transition=\(misfire.transition) \(misfire.detail)"
                         + " panel=\(snapshot.path)" + (misfire.suppressed > 0 ? " suppressed=\(misfire.suppressed)" : ""))
            let recording = FlightRecorders.recording(of: snapshot, header: lines)
            let suffix = snapshots.count > 1 ? ".\(k).events" : ".events"
            switch store(Array(recording.evemu.utf8), stem: stem, suffix: suffix) {
            case .success(let name): written.append(name)
            case .failure(let problem):
                logger.error("\(what) not kept: \(folder): \(problem)")
                return
            }
        }
        trim()
        let others = misfire.suppressed > 0 ? " (\(misfire.suppressed) more since the last one not kept: misfire_interval)" : ""
        logger.notice("\(what) (\(misfire.detail)) kept in \(folder): \(written.joined(separator: ", "))\(others)")
    }

    /// Makes the folder if it is missing (its parent must be there); a
    /// path that is not a folder is refused.
    private func prepareFolder() -> String? {
        var info = stat()
        if stat(folder, &info) == 0 {
            return info.st_mode & S_IFMT == S_IFDIR ? nil : "not a folder"
        }
        guard errno == ENOENT else { return Self.errorText() }
        if mkdir(folder, 0o750) == 0 || errno == EEXIST { return nil }
        return "cannot be made: " + Self.errorText()
    }

    /// Writes `bytes` to `stem + suffix` (or `stem-2 + suffix`, … when a
    /// file has that name): under a temporary name first, then linked.
    private func store(_ bytes: [UInt8], stem: String, suffix: String) -> Result<String, SpoolError> {
        let temporary = folder + "/." + stem + suffix + ".partial"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return .failure(SpoolError("cannot create a file: " + Self.errorText())) }
        defer { unlink(temporary) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let problem = Self.errorText()
                close(fd)
                return .failure(SpoolError("cannot write: " + problem))
            }
            offset += n
        }
        // A kiosk loses power: what was kept should be on the disk.
        fsync(fd)
        close(fd)
        for attempt in 1...100 {
            let name = stem + (attempt == 1 ? "" : "-\(attempt)") + suffix
            if link(temporary, folder + "/" + name) == 0 { return .success(name) }
            guard errno == EEXIST else { return .failure(SpoolError("cannot name the file: " + Self.errorText())) }
        }
        return .failure(SpoolError("100 files named \(stem)…\(suffix) already"))
    }

    /// Removes the spool's oldest files beyond its bounds.
    private func trim() {
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        let fd = dirfd(directory)
        var files: [(name: String, bytes: Int)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard MisfireSpoolPlan.isSpooled(name) else { continue }
            var info = stat()
            guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            files.append((name, Int(info.st_size)))
        }
        for name in MisfireSpoolPlan.removals(files, maxFiles: maxFiles, maxBytes: maxBytes) {
            unlinkat(fd, name, 0)
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    struct SpoolError: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }
}

extension MisfireSpool.SpoolError: CustomStringConvertible {
    var description: String { text }
}
