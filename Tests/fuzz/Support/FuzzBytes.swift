/// A fuzz input read as a stream of choices: each call takes the next byte
/// (or two) and maps it onto a range or a list. Past the end every read is
/// 0, so any input, however short, is a complete stream of choices.
public struct FuzzBytes {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// True once every byte was taken.
    public var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, 0 past the end.
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<count`.
    public mutating func below(_ count: Int) -> Int {
        Int(byte()) % count
    }

    public mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// One of `options` (the first one for a 0 byte, so that short inputs
    /// take the first, usual, choice).
    public mutating func pick<T>(_ options: [T]) -> T {
        options[below(options.count)]
    }

    /// A number from 0 to 1 in steps of 1/65535.
    public mutating func unit() -> Double {
        let high = UInt16(byte()), low = UInt16(byte())
        return Double(high << 8 | low) / 65535
    }
}
