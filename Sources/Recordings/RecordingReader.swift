import Glibc
import Engine
import SystemSupport

/// Reads a recording in either format, evemu (`.events`, `.desc`, any
/// version) or `libinput record` YAML, with an optional separate device
/// description. Every failure is a `RecordingError` naming the file, the line
/// when there is one, and what is wrong.
public enum RecordingReader {
    /// The two recording formats.
    public enum Format: Sendable, Equatable {
        case evemu
        case libinputRecord
    }

    // MARK: Files

    /// Reads the recording at `path`. The description comes from
    /// `descriptionPath` when given (it wins over one in the recording),
    /// else from the recording itself; with neither, this fails with a hint
    /// to pass `--description`, naming a `.desc` file beside the recording
    /// when there is one that fits.
    public static func read(path: String, descriptionPath: String? = nil) throws(RecordingError) -> Recording {
        let parsed = try readFile(path: path)
        var separate: Parsed? = nil
        if let descriptionPath {
            separate = (try readFile(path: descriptionPath).description, descriptionPath)
        }
        return try recording(parsed, path: path, separate: separate)
    }

    /// A file's description and events, as read.
    typealias Contents = (description: DeviceDescription?, events: [InputEvent])
    /// A separate description file's description, and its path.
    typealias Parsed = (description: DeviceDescription?, path: String)

    /// The recording of `parsed` with the separate description, if any (it
    /// wins), else its own; an error when the separate file has none, or
    /// there is neither.
    static func recording(_ parsed: Contents, path: String, separate: Parsed?) throws(RecordingError) -> Recording {
        var description = parsed.description
        if let separate {
            guard let separateDescription = separate.description else {
                throw RecordingError(file: separate.path,
                                     message: "has no device description (no 'N:' line); a description file "
                                         + "is what evemu-describe writes")
            }
            description = separateDescription
        } else if description == nil {
            if parsed.events.isEmpty {
                throw RecordingError(file: path, message: "has no device description and no events")
            }
            throw RecordingError(file: path, line: 1, message: missingDescriptionMessage(for: path))
        }
        return Recording(path: path, description: description, events: parsed.events)
    }

    /// The bytes of a large evemu file are read and parsed in chunks of this
    /// size, which stay in the processor's cache.
    static let chunkSize = 256 * 1024

    /// One file in either format: evemu is parsed as it is read, `libinput
    /// record` once read whole.
    static func readFile(path: String) throws(RecordingError)
        -> (description: DeviceDescription?, events: [InputEvent]) {
        let file = try InputFile(path: path)
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        let filled = try file.fill(&buffer, from: 0)
        let format = buffer.withUnsafeBufferPointer { whole in
            detectFormat(UnsafeBufferPointer(rebasing: whole[0..<filled]), path: path)
        }
        switch format {
        case .evemu:
            return try EvemuParser.parse(file: file, buffer: &buffer, filled: filled)
        case .libinputRecord:
            let bytes = filled < buffer.count ? Array(buffer[0..<filled]) : try file.readAll(after: buffer)
            let parsed = try LibinputRecordReader.parse(bytes: bytes, path: path)
            return (parsed.description, parsed.events)
        }
    }

    // MARK: Bytes

    /// Parses a recording held in memory, in the format `detectFormat` finds.
    /// `path` names the recording in errors (and its extension may decide the
    /// format). The description is nil for an events-only evemu file.
    public static func parse(bytes: [UInt8], path: String) throws(RecordingError)
        -> (description: DeviceDescription?, events: [InputEvent]) {
        switch detectFormat(bytes: bytes, path: path) {
        case .evemu:
            return try EvemuParser.parse(bytes: bytes, path: path)
        case .libinputRecord:
            let parsed = try LibinputRecordReader.parse(bytes: bytes, path: path)
            return (parsed.description, parsed.events)
        }
    }

    /// A recording and its separate description file, both held in memory
    /// (`read(path:descriptionPath:)` without the files): the description
    /// comes from `descriptionBytes`, which must have one.
    public static func parse(bytes: [UInt8], path: String, descriptionBytes: [UInt8],
                             descriptionPath: String) throws(RecordingError) -> Recording {
        let parsed = try parse(bytes: bytes, path: path)
        let separate = try parse(bytes: descriptionBytes, path: descriptionPath)
        return try recording(parsed, path: path, separate: (separate.description, descriptionPath))
    }

    /// `libinput record` when the path ends in `.yml`/`.yaml`, the first
    /// non-blank line is `# libinput record`, or the first line that is not a
    /// comment starts a top-level `version:`/`devices:` mapping (or a `---`
    /// document); evemu otherwise.
    public static func detectFormat(bytes: [UInt8], path: String) -> Format {
        bytes.withUnsafeBufferPointer { detectFormat($0, path: path) }
    }

    static func detectFormat(_ buffer: UnsafeBufferPointer<UInt8>, path: String) -> Format {
        let lowercased = path.lowercased()
        if lowercased.hasSuffix(".yml") || lowercased.hasSuffix(".yaml") {
            return .libinputRecord
        }
        var index = 0
        // A UTF-8 byte order mark.
        if buffer.count >= 3 && buffer[0] == 0xef && buffer[1] == 0xbb && buffer[2] == 0xbf {
            index = 3
        }
        var firstLine = true
        while index < buffer.count {
            var end = index
            while end < buffer.count && buffer[end] != ByteFields.newline { end += 1 }
            var start = index
            while start < end && ByteFields.isBlank(buffer[start]) { start += 1 }
            index = end + 1
            if start == end { continue }
            let line = UnsafeBufferPointer(rebasing: buffer[start..<end])
            if firstLine && line.starts(with: "# libinput record".utf8) {
                return .libinputRecord
            }
            firstLine = false
            if line[0] == ByteFields.hash { continue }
            let yamlStarts = ["version:", "devices:", "ndevices:", "---"]
            return yamlStarts.contains { line.starts(with: $0.utf8) } ? .libinputRecord : .evemu
        }
        return .evemu
    }

    // MARK: Missing description

    /// What to say about an events-only evemu file read without
    /// `--description`.
    static func missingDescriptionMessage(for path: String) -> String {
        var message = "the file has events but no device description (no N:, I:, A: lines): "
            + "pass the device's description with --description FILE.desc"
        if let sibling = siblingDescription(for: path) {
            message += "; this one looks like it: --description \(shellQuoted(sibling))"
        }
        return message
    }

    /// A `.desc` file in the same folder as `path` whose name without
    /// `.desc` begins `path`'s file name (the longest such), as a path
    /// written the way `path` was.
    static func siblingDescription(for path: String) -> String? {
        let folder: String
        let fileName: String
        if let slash = path.lastIndex(of: "/") {
            folder = String(path[...slash])
            fileName = String(path[path.index(after: slash)...])
        } else {
            folder = ""
            fileName = path
        }
        let listed = FolderNames.names(in: folder.isEmpty ? "." : folder) ?? []
        let matches = listed.filter { candidate in
            guard candidate.hasSuffix(".desc"), candidate != fileName else { return false }
            let stem = String(candidate.dropLast(".desc".count))
            return !stem.isEmpty && fileName.hasPrefix(stem)
        }
        guard let best = matches.max(by: { ($0.count, $1) < ($1.count, $0) }) else { return nil }
        return folder + best
    }

    /// `text` as one shell word.
    static func shellQuoted(_ text: String) -> String {
        let plain = text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./+,:@%".contains($0)) }
        if plain && !text.isEmpty { return text }
        return "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
