/// One line of the daemon's stream (docs/protocol.md "Daemon → client").
/// Types a client does not know decode as `unknown`, and unknown fields are
/// ignored, so a newer daemon never breaks an older client.
public enum StreamMessage: Sendable, Equatable {
    /// The first line on every connection, and again after a reload.
    case hello(StreamSnapshot)
    /// A transition event: `began`, `changed`, `ended`, `animating`,
    /// `finished` or `cancelled`.
    case event(TransitionUpdate)
    /// The reply to `ping`.
    case pong(id: RequestID?)
    /// The reply to `clock`: the daemon's monotonic time, in seconds.
    case clock(monotonic: Double, id: RequestID?)
    /// The reply to `state`: the same snapshot as `hello`.
    case state(StreamSnapshot, id: RequestID?)
    /// The reply to `dump`: each panel's flight recording.
    case dump([DumpRecording], id: RequestID?)
    /// A command was carried out (`cmd` is its name).
    case ok(cmd: String, id: RequestID?)
    /// A command was refused, or the daemon is closing the connection
    /// (`line-too-long`, `too-many-clients`, `backlog`: no `cmd`, no `id`).
    /// `code` stays text: a code a newer daemon adds still reads.
    case error(code: String, message: String, cmd: String?, id: RequestID?)
    /// A line with a `type` this client does not know.
    case unknown(type: String)
}

/// One panel's recording in a `dump` reply: evemu 1.3 text and how many
/// events it holds.
public struct DumpRecording: Sendable, Equatable {
    public var source: Int
    public var path: String
    public var events: Int
    public var evemu: String

    public init(source: Int, path: String, events: Int, evemu: String) {
        (self.source, self.path, self.events, self.evemu) = (source, path, events, evemu)
    }
}
