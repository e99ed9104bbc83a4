/// Appends JSON text to a byte buffer: strings with escapes, and numbers in
/// the stream's fixed format (rounded to 1e-6, trailing zeros trimmed, no
/// exponent, never `-0`), so equal inputs give byte-identical lines.
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]

    public init(capacity: Int = 1 << 16) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    public mutating func raw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always)
    public mutating func raw(_ b: [UInt8]) {
        bytes.append(contentsOf: b)
    }

    /// A JSON string literal, quotes included.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\n"): raw("\\n")
            case UInt8(ascii: "\r"): raw("\\r")
            case UInt8(ascii: "\t"): raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                bytes.append(Self.hex[Int(b >> 4)])
                bytes.append(Self.hex[Int(b & 0xf)])
            default:
                bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// An integer.
    public mutating func integer<T: BinaryInteger>(_ value: T) {
        var v = Int64(value)
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            if v == Int64.min { raw("9223372036854775808"); return }
            v = -v
        }
        digits(UInt64(v), minimumWidth: 1)
    }

    /// A number rounded to six decimals. Non-finite values (which the engine
    /// never produces) are written as 0 to keep the line valid JSON.
    @inline(__always)
    public mutating func number(_ value: Double) {
        guard value.isFinite, abs(value) < 9e12 else {
            if value.isFinite { integer(Int64(value)) } else { bytes.append(UInt8(ascii: "0")) }
            return
        }
        let scaled = (value * 1_000_000).rounded()
        if scaled == 0 { bytes.append(UInt8(ascii: "0")); return }
        var micros = Int64(scaled)
        if micros < 0 { bytes.append(UInt8(ascii: "-")); micros = -micros }
        let whole = UInt64(micros / 1_000_000)
        var fraction = UInt64(micros % 1_000_000)
        digits(whole, minimumWidth: 1)
        if fraction == 0 { return }
        var width = 6
        while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        bytes.append(UInt8(ascii: "."))
        digits(fraction, minimumWidth: width)
    }

    @inline(__always)
    private mutating func digits(_ value: UInt64, minimumWidth: Int) {
        var buffer: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = value
        var count = 0
        withUnsafeMutableBytes(of: &buffer) { p in
            repeat {
                p[19 - count] = UInt8(ascii: "0") &+ UInt8(v % 10)
                v /= 10
                count += 1
            } while v != 0 || count < minimumWidth
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: p[(20 - count)...]))
        }
    }
}
