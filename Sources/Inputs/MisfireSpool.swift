#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import Engine
import SystemSupport

/// The misfire spool's executor (`[input] keep_misfires`): writes a kept
/// misfire's flight recordings into the spool's folder and trims it to its
/// bounds (`MisfireSpoolPlan`), on a queue of its own so that neither the
/// input nor the stream waits on the disk.
///
/// The folder is opened once per misfire without following a symlink and
/// must be the daemon's own, writable by no one else: then no one else can
/// put a name in it, and every file is made, linked and removed relative to
/// that open folder. A file is written under a temporary name, synced and
/// linked to its own, which never replaces a file; only the spool's own
/// files are removed. One misfire is written at a time: one that comes
/// while the disk is still busy with the last is counted, not queued. A
/// folder that cannot be used is logged when that begins and when it ends.
final class MisfireSpool: @unchecked Sendable {
    let folder: String
    let maxFiles: Int
    let maxBytes: Int
    private let logger: Logger
    private let queue = DispatchQueue(label: "transitiond.misfire-spool")
    /// Confined to `queue`, except `busy`, which the loop reads too.
    private let state = Locked(State())

    private struct State {
        /// A misfire is being written.
        var busy = false
        /// Misfires not written because one was.
        var dropped = 0
        /// The folder's last problem, logged once until it is gone.
        var problem: String?
        /// Stale temporary files swept (once, at the first use).
        var swept = false
    }

    init(folder: String, maxFiles: Int, maxBytes: Int, logger: Logger) {
        self.folder = folder
        self.maxFiles = maxFiles
        self.maxBytes = maxBytes
        self.logger = logger
    }

    /// Whether a misfire handed over now would be written (the last one is
    /// done); else it is counted. Called on the loop before the rings are copied.
    func accepts() -> Bool {
        state.withLock { state in
            if state.busy { state.dropped += 1 }
            return !state.busy
        }
    }

    /// Writes the misfire's recordings (one per panel snapshot that holds
    /// events) and trims the spool; `done` (tests) after, on the queue.
    func keep(_ misfire: MisfireWatch.Misfire, _ snapshots: [FlightRecorders.Snapshot], header: [String],
              done: (@Sendable () -> Void)? = nil) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = now.tv_sec
        state.withLock { $0.busy = true }
        queue.async { [self] in
            write(misfire, snapshots.filter { !$0.dump.events.isEmpty }, header: header, at: seconds)
            state.withLock { $0.busy = false }
            done?()
        }
    }

    /// Waits for what was handed over to be written (shutdown, tests).
    func drain() { queue.sync {} }

    private func write(_ misfire: MisfireWatch.Misfire, _ snapshots: [FlightRecorders.Snapshot], header: [String],
                       at seconds: Int) {
        let what = "misfire \(misfire.kind.rawValue) of \(misfire.transition)"
        guard !snapshots.isEmpty else {
            logger.notice("\(what): the flight recorder holds nothing to keep")
            return
        }
        let directory: CInt
        switch openFolder() {
        case .failure(let problem):
            report(problem, what)
            return
        case .success(let fd):
            directory = fd
        }
        defer { close(directory) }
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let stem = MisfireSpoolPlan.stem(kind: misfire.kind, transition: misfire.transition,
                                         utc: (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                                               Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)))
        let dropped = state.withLock { state in
            defer { state.dropped = 0 }
            return state.dropped
        }
        let notKept = misfire.suppressed + dropped
        var written: [String] = []
        for (k, snapshot) in snapshots.enumerated() {
            var lines = header
            lines.append("misfire: kind=\(misfire.kind.rawValue) transition=\(misfire.transition) \(misfire.detail)"
                         + " panel=\(snapshot.path)" + (notKept > 0 ? " suppressed=\(notKept)" : ""))
            let recording = FlightRecorders.recording(of: snapshot, header: lines)
            let suffix = snapshots.count > 1 ? ".\(k).events" : ".events"
            switch store(Array(recording.evemu.utf8), in: directory, stem: stem, suffix: suffix) {
            case .success(let name):
                written.append(name)
            case .failure(let problem):
                for name in written { unlinkat(directory, name, 0) }
                report(problem, what)
                return
            }
        }
        report(nil as String?, what)
        let over = trim(directory, keeping: Set(written))
        let others = notKept > 0 ? " (\(notKept) more since the last one not kept: misfire_interval, or the disk was busy)" : ""
        logger.notice("\(what) (\(misfire.detail)) kept in \(folder): \(written.joined(separator: ", "))\(others)")
        if over {
            logger.warning("[input] misfire_spool \(folder): this misfire alone is over misfire_spool_files or misfire_spool_bytes; only it is kept")
        }
    }

    /// Logs a problem when it begins (or changes) and when it is gone, not on every misfire.
    private func report(_ problem: SpoolError?, _ what: String) {
        report(problem?.description, what)
    }

    private func report(_ problem: String?, _ what: String) {
        let before = state.withLock { state in
            defer { state.problem = problem }
            return state.problem
        }
        if let problem, problem != before {
            logger.error("\(what) not kept: [input] misfire_spool \(folder): \(problem) (said once until it changes)")
        } else if problem == nil, before != nil {
            logger.notice("[input] misfire_spool \(folder): usable again")
        }
    }

    /// The folder, opened without following a symlink (made if it is
    /// missing; its parent must be there): it must be the daemon's own and
    /// writable by no one else, so no one else can name a file in it.
    private func openFolder() -> Result<CInt, SpoolError> {
        if mkdir(folder, 0o750) != 0 && errno != EEXIST {
            return .failure(SpoolError("cannot be made: " + Self.errorText()))
        }
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOTDIR || errno == ELOOP { return .failure(SpoolError("not a folder (a symlink is not followed)")) }
            return .failure(SpoolError("cannot be opened: " + Self.errorText()))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let problem = Self.errorText()
            close(fd)
            return .failure(SpoolError("cannot be read: " + problem))
        }
        if info.st_uid != geteuid() {
            close(fd)
            return .failure(SpoolError("owned by uid \(info.st_uid), not the daemon's (\(geteuid()))"))
        }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            close(fd)
            return .failure(SpoolError("writable by others (mode \(String(info.st_mode & 0o777, radix: 8))): only the daemon may write there"))
        }
        let sweep = state.withLock { state in
            defer { state.swept = true }
            return !state.swept
        }
        if sweep { sweepPartials(fd) }
        return .success(fd)
    }

    /// Writes `bytes` to `stem + suffix` (or `stem-2 + suffix`, … when a
    /// file has that name): under a temporary name first, synced, then linked.
    private func store(_ bytes: [UInt8], in directory: CInt, stem: String, suffix: String) -> Result<String, SpoolError> {
        let temporary = MisfireSpoolPlan.partial(stem + suffix)
        unlinkat(directory, temporary, 0)
        let fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return .failure(SpoolError("cannot create a file: " + Self.errorText())) }
        defer { unlinkat(directory, temporary, 0) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let problem = n == 0 ? "nothing written" : Self.errorText()
                close(fd)
                return .failure(SpoolError("cannot write: " + problem))
            }
            offset += n
        }
        // A kiosk loses power: what was kept should be on the disk, whole.
        if fsync(fd) != 0 {
            let problem = Self.errorText()
            close(fd)
            return .failure(SpoolError("cannot write: " + problem))
        }
        guard close(fd) == 0 else { return .failure(SpoolError("cannot write: " + Self.errorText())) }
        for attempt in 1...100 {
            let name = stem + (attempt == 1 ? "" : "-\(attempt)") + suffix
            if linkat(directory, temporary, directory, name, 0) == 0 { return .success(name) }
            guard errno == EEXIST else { return .failure(SpoolError("cannot name the file: " + Self.errorText())) }
        }
        return .failure(SpoolError("100 files named \(stem)…\(suffix) already"))
    }

    /// The spool's files now: name and size (regular files only, symlinks not followed).
    private func listing(_ directory: CInt) -> (spooled: [(name: String, bytes: Int)], partial: [String]) {
        var files: [(name: String, bytes: Int)] = []
        var partial: [String] = []
        for name in FolderNames.names(inOpenFolder: directory) ?? [] {
            if MisfireSpoolPlan.isPartial(name) { partial.append(name) }
            guard MisfireSpoolPlan.isSpooled(name) else { continue }
            var info = stat()
            guard fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            files.append((name, Int(info.st_size)))
        }
        return (files, partial)
    }

    /// Removes the spool's oldest misfires beyond its bounds, never
    /// `keeping`; true when `keeping` alone is over them.
    private func trim(_ directory: CInt, keeping: Set<String>) -> Bool {
        let files = listing(directory).spooled
        let removals = MisfireSpoolPlan.removals(files, maxFiles: maxFiles, maxBytes: maxBytes, keeping: keeping)
        for name in removals { unlinkat(directory, name, 0) }
        let left = files.filter { !removals.contains($0.name) }
        return left.reduce(0) { $0 + $1.bytes } > maxBytes || Set(left.map { MisfireSpoolPlan.misfire(of: $0.name) }).count > maxFiles
    }

    /// Temporary files a daemon stopped mid-write left.
    private func sweepPartials(_ directory: CInt) {
        for name in listing(directory).partial { unlinkat(directory, name, 0) }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }

    struct SpoolError: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ text: String) { description = text }
    }
}
