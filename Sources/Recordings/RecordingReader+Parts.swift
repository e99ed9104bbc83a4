import Engine

extension RecordingReader {
    /// Reads the recording at `path` as `read(path:descriptionPath:)` does,
    /// handing its events over in parts while it reads, so that a caller on
    /// another thread can start on them before the file is read whole.
    ///
    /// `begin` is called once, with the recording (its description and the
    /// first events) as soon as the description is known; `more` with every
    /// further part, in file order. An evemu file is handed over a read
    /// chunk at a time; a `libinput record` file, or an evemu file with no
    /// description of its own and none given, once read whole (so that its
    /// errors are exactly those of `read`). Throws what `read` would throw,
    /// possibly after parts were handed over: the caller must then drop
    /// them.
    public static func read(path: String, descriptionPath: String? = nil,
                            begin: (Recording) -> Void, more: ([InputEvent]) -> Void) throws(RecordingError) {
        var separate: Parsed? = nil
        if let descriptionPath {
            guard let given = try? readFile(path: descriptionPath), given.description != nil else {
                // Whatever `read` says, in its order (the recording's own
                // errors first), before any part.
                begin(try read(path: path, descriptionPath: descriptionPath))
                return
            }
            separate = (given.description, descriptionPath)
        }
        let file = try InputFile(path: path)
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        let filled = try file.fill(&buffer, from: 0)
        let format = buffer.withUnsafeBufferPointer { whole in
            detectFormat(UnsafeBufferPointer(rebasing: whole[0..<filled]), path: path)
        }
        guard format == .evemu else {
            let bytes = filled < buffer.count ? Array(buffer[0..<filled]) : try file.readAll(after: buffer)
            let parsed = try LibinputRecordReader.parse(bytes: bytes, path: path)
            begin(try recording((parsed.description, parsed.events), path: path, separate: separate))
            return
        }
        var begun = false
        let parsed = try EvemuParser.parse(file: file, buffer: &buffer, filled: filled) { parser in
            // Only once the events have started is the description complete
            // (the parser refuses description lines after the first event).
            guard parser.firstEventLine != 0, !parser.events.isEmpty else { return }
            if begun {
                more(parser.takeEvents())
                return
            }
            let description = separate?.description ?? (try? parser.finish()) ?? nil
            guard let description else { return }   // an error at the end, as `read` gives it
            begun = true
            begin(Recording(path: path, description: description, events: parser.takeEvents()))
        }
        if begun {
            if !parsed.events.isEmpty { more(parsed.events) }
        } else {
            begin(try recording(parsed, path: path, separate: separate))
        }
    }
}

extension EvemuFileParser {
    /// The events parsed so far up to the last `SYN_REPORT` among them,
    /// leaving the rest (a frame not yet complete) for the next part: a
    /// replay then plays each part to its end and keeps nothing of it.
    mutating func takeEvents() -> [InputEvent] {
        var end = events.count
        while end > 0 && !(events[end - 1].type == EventCode.EV_SYN && events[end - 1].code == EventCode.SYN_REPORT) {
            end -= 1
        }
        if end == 0 { end = events.count }   // no frame ends here: all of it
        var rest: [InputEvent] = []
        rest.reserveCapacity(RecordingReader.chunkSize / 16)
        rest.append(contentsOf: events[end...])
        events.removeSubrange(end...)
        swap(&rest, &events)
        return rest
    }
}
