import Dispatch
import Recordings
import Replay
import SystemSupport
import Engine

/// Reads one recording on a thread of its own for `replay --fast`, handing
/// its events over in parts as they are parsed, so that reading overlaps
/// with the engine (docs/benchmarks.md, "Replay throughput"). The replay
/// starts on the first part; the rest come through `next()`.
///
/// What a user sees is what loading the recording whole gives: the same
/// errors with the same exit codes, and nothing on stdout when the file
/// turns out to be bad (the caller holds its output until `next()` has said
/// the file ended well, see `BackgroundEncoder`).
final class RecordingReadAhead: @unchecked Sendable {
    private enum Part {
        case begin(Recording)
        case events([InputEvent])
        case end
        case failed(RecordingError)
    }

    private let parts = Locked<[Part]>([])
    /// Counts the parts waiting in `parts`.
    private let available = DispatchSemaphore(value: 0)
    private var thread: NativeThread?
    let path: String
    /// The error that ended the reading, once `next()` returned nil for it.
    private(set) var failure: RecordingError?
    /// Whether the file has been read (and read well), and who to tell.
    private let ending = Locked<(readWell: Bool?, handler: (@Sendable (Bool) -> Void)?)>((nil, nil))

    /// Starts reading `path` (with the description file `description` for
    /// an events-only evemu file). Fails as `loadReplayInput` does when a
    /// file is missing; nil when no thread could be started (the caller
    /// then loads the recording whole).
    init?(path: String, description: String?) throws {
        guard fileExists(path) else { throw Failure(.noInput, "\(path): no such recording") }
        if let description, !fileExists(description) {
            throw Failure(.noInput, "\(description): no such description file")
        }
        self.path = path
        let parts = self.parts, available = self.available, ending = self.ending
        let post = { (part: Part) in
            parts.withLock { $0.append(part) }
            available.signal()
        }
        let end = { (readWell: Bool) in
            let handler = ending.withLock { state in
                state.readWell = readWell
                return state.handler
            }
            handler?(readWell)
        }
        guard let thread = try? NativeThread(name: "reader", {
            do throws(RecordingError) {
                try RecordingReader.read(path: path, descriptionPath: description,
                                         begin: { post(.begin($0)) }, more: { post(.events($0)) })
                end(true)
                post(.end)
            } catch {
                end(false)
                post(.failed(error))
            }
        }) else { return nil }
        self.thread = thread
    }

    deinit { thread?.join() }

    /// Calls `handler` once the file has been read, on the reading thread
    /// (or at once if it has been), with whether it read well: before the
    /// last part is taken, so that it can let output go that waits on it.
    func whenRead(_ handler: @escaping @Sendable (Bool) -> Void) {
        let readWell = ending.withLock { state -> Bool? in
            if state.readWell == nil { state.handler = handler }
            return state.readWell
        }
        if let readWell { handler(readWell) }
    }

    private func take() -> Part {
        available.wait()
        return parts.withLock { $0.removeFirst() }
    }

    /// The recording with its first events, once they are read; throws the
    /// error that `loadReplayInput` would when the file cannot be read.
    func first() throws -> ReplayInput {
        switch take() {
        case .begin(let recording):
            guard let device = recording.description else {
                throw Failure(.dataError, "\(path): no device description; pass one with --description FILE.desc")
            }
            return ReplayInput(path: path, device: device, events: recording.events)
        case .failed(let error):
            failure = error
            throw Failure(.dataError, error.description)
        case .events, .end:
            throw Failure(.software, "\(path): BUG: events before the recording began")
        }
    }

    /// The next events, or nil when the file has ended (`failure` says
    /// whether it ended well).
    func next() -> [InputEvent]? {
        guard failure == nil else { return nil }
        switch take() {
        case .events(let events):
            return events
        case .end:
            return nil
        case .failed(let error):
            failure = error
            return nil
        case .begin:
            failure = RecordingError(file: path, message: "BUG: the recording began twice")
            return nil
        }
    }
}
