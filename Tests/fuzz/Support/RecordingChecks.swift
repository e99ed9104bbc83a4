import Recordings
import Engine

/// What every reader of recordings promises about a refusal: it names the
/// file it was given, a line from 1 if any, and says what is wrong.
public func checkRefusal(_ error: RecordingError, paths: [String]) {
    fuzzCheck(paths.contains(error.file), "the error names \(error.file), not one of \(paths)")
    fuzzCheck(error.line.map { $0 >= 1 } ?? true, "the error names line \(error.line ?? 0)")
    fuzzCheck(!error.message.isEmpty, "the error says nothing")
}

/// What the evemu writer writes, the reader reads back: the same events
/// (type, code and value; times are written relative to the first).
public func checkRewrite(_ description: DeviceDescription, _ events: [InputEvent]) {
    let written = EvemuWriter.write(description: description, events: events, comments: false)
    let reread: (description: DeviceDescription?, events: [InputEvent])
    do {
        reread = try EvemuParser.parse(bytes: written, path: "rewritten.events")
    } catch {
        fuzzCheck(false, "the reader refuses what the writer wrote: \(error)")
        return
    }
    fuzzCheck(reread.description != nil, "the rewritten file has no description")
    fuzzCheck(reread.events.count == events.count, "\(events.count) events rewritten, \(reread.events.count) read back")
    for (a, b) in zip(events, reread.events) {
        fuzzCheck(a.type == b.type && a.code == b.code && a.value == b.value, "event \(a) read back as \(b)")
    }
}

/// Whether the events' times never go back (then neither may the engine's).
public func timesRise(_ events: [InputEvent]) -> Bool {
    zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }
}
