import Testing

// A WebSocket client's side of the wire, for the tests that drive the
// server's WebSocket on EmbeddedChannels: the frames a client sends (masked)
// and those it reads from the server.

/// A frame as the client reads it from the server (never masked).
struct Frame: Equatable, CustomStringConvertible {
    var fin = true
    var opcode: UInt8
    var payload: [UInt8]

    static func text(_ s: String) -> Frame { Frame(opcode: 0x1, payload: Array(s.utf8)) }
    static func close(_ code: UInt16) -> Frame { Frame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)]) }
    static func pong(_ s: String) -> Frame { Frame(opcode: 0xA, payload: Array(s.utf8)) }

    var description: String {
        opcode == 0x8 && payload.count >= 2 ? "close(\(UInt16(payload[0]) << 8 | UInt16(payload[1])))"
            : "op\(opcode)\(fin ? "" : "…") \(String(decoding: payload, as: UTF8.self).debugDescription)"
    }
}

/// A client's frame on the wire: masked (unless told not to), any bits.
func wire(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
    let mask: UInt8 = masked ? 0x80 : 0
    if payload.count < 126 {
        bytes.append(mask | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        bytes.append(mask | 126)
        bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
        bytes.append(mask | 127)
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
    }
    guard masked else { return bytes + payload }
    let key: [UInt8] = [0xA1, 0x5E, 0x03, 0xC7]
    return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
}

func wire(_ opcode: UInt8, _ text: String, fin: Bool = true) -> [UInt8] { wire(opcode, Array(text.utf8), fin: fin) }

func closeBody(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] { [UInt8(code >> 8), UInt8(code & 0xFF)] + reason }

/// Reads the server's frames out of the bytes a client has been sent, as
/// they come (a frame may be split between reads).
struct FrameReader {
    private var unread: [UInt8] = []

    mutating func add(_ bytes: some Sequence<UInt8>) { unread += bytes }

    /// The whole frames read so far (what is left of a frame waits).
    mutating func frames() -> [Frame] {
        var frames: [Frame] = []
        var bytes = unread[...]
        while bytes.count >= 2 {
            let first = bytes[bytes.startIndex], second = bytes[bytes.startIndex + 1]
            #expect(second & 0x80 == 0, "a server's frame is never masked")
            var header = 2
            var length = Int(second & 0x7F)
            if length == 126 {
                guard bytes.count >= 4 else { break }
                length = Int(bytes[bytes.startIndex + 2]) << 8 | Int(bytes[bytes.startIndex + 3])
                header = 4
            } else if length == 127 {
                guard bytes.count >= 10 else { break }
                length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[bytes.startIndex + $1]) }
                header = 10
            }
            guard bytes.count >= header + length else { break }
            let payload = Array(bytes.dropFirst(header).prefix(length))
            frames.append(Frame(fin: first & 0x80 != 0, opcode: first & 0x0F, payload: payload))
            bytes = bytes.dropFirst(header + length)
        }
        unread = Array(bytes)
        return frames
    }
}
