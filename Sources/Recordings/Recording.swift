import Engine

/// A recorded gesture: the device it came from and its evdev events in file
/// order, with times in microseconds exactly as the file wrote them (absolute
/// or relative to the start, whichever the recorder used).
public struct Recording: Sendable {
    /// The recording's path, as given to the reader.
    public var path: String
    /// The device's description, from the recording itself or from the
    /// separate description file. `RecordingReader.read` always fills it (it
    /// fails when there is none); it is optional for recordings built in code.
    public var description: DeviceDescription?
    /// The events, in file order.
    public var events: [InputEvent]

    public init(path: String, description: DeviceDescription?, events: [InputEvent]) {
        self.path = path
        self.description = description
        self.events = events
    }
}
