/// How a client is connected. Each transport is an adapter that turns its
/// connections into the machine's inputs; nothing else is per transport.
public enum ClientTransport: String, Sendable, Equatable {
    case unixSocket = "unix"
    /// WebSocket text messages over TCP (one line a message: the
    /// channel's handler frames each line of what it is given).
    case webSocket = "websocket"
}
