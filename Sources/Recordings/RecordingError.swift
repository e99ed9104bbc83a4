/// What is wrong with a recording, and where: printed as `FILE:LINE: message`
/// (or `FILE: message` when the problem is not on one line, e.g. the file
/// cannot be opened). The message says what is wrong in plain words; the
/// line is 1-based.
public struct RecordingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file the problem is in, as it was named by the caller.
    public var file: String
    /// The 1-based line of the problem, if it is on one line.
    public var line: Int?
    /// What is wrong, in a person's words.
    public var message: String

    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line {
            return "\(file):\(line): \(message)"
        }
        return "\(file): \(message)"
    }
}
