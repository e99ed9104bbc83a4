import Recordings
import Replay

/// A recording for an in-process replay (`replay`, `verify`): the file at
/// `path` (with `description` for an events-only evemu file), or a
/// `Failure` naming it: 66 when a file is missing, 65 when it cannot be read.
func loadReplayInput(_ path: String, description: String?) throws -> ReplayInput {
    guard fileExists(path) else { throw Failure(.noInput, "\(path): no such recording") }
    if let description, !fileExists(description) {
        throw Failure(.noInput, "\(description): no such description file")
    }
    do {
        let recording = try RecordingReader.read(path: path, descriptionPath: description)
        guard let device = recording.description else {
            throw Failure(.dataError, "\(path): no device description; pass one with --description FILE.desc")
        }
        return ReplayInput(path: path, device: device, events: recording.events)
    } catch let error as RecordingError {
        throw Failure(.dataError, error.description)
    }
}
