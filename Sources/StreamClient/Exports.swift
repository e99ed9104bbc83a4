// The messages a client reads and the commands it sends are WireProtocol's
// types: one `import StreamClient` gives a client both, as the library
// product it ships in.
@_exported import WireProtocol
