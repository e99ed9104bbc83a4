/// Appends JSON text to a growable byte buffer: strings with escapes, and
/// numbers in the stream's fixed format (rounded to 1e-6, trailing zeros
/// trimmed, no exponent, never `-0`), so equal inputs give byte-identical
/// lines. It writes straight into its own memory (the hot path of every
/// event), so it is a reference: copies of a writer share one buffer.
public struct JSONWriter: @unchecked Sendable {
    /// The memory behind a writer.
    final class Storage {
        var base: UnsafeMutablePointer<UInt8>
        var capacity: Int
        var count = 0

        init(capacity: Int) {
            self.capacity = max(capacity, 64)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        @inline(__always)
        func reserve(_ extra: Int) {
            if count + extra > capacity { grow(count + extra) }
        }

        func grow(_ needed: Int) {
            var newCapacity = capacity * 2
            while newCapacity < needed { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }
    }

    let storage: Storage

    public init(capacity: Int = 1 << 16) {
        storage = Storage(capacity: capacity)
    }

    /// The number of bytes written.
    public var count: Int { storage.count }

    /// The bytes it holds without growing.
    public var capacity: Int { storage.capacity }

    /// A copy of the bytes written.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage.base, count: storage.count)) }

    /// Calls `body` with the bytes written (valid only during the call).
    @discardableResult
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
    }

    /// Forgets what was written, keeping the memory.
    public func reset() { storage.count = 0 }

    // MARK: Raw bytes

    @inline(__always)
    public func raw(_ s: StaticString) {
        raw(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    @inline(__always)
    public func raw(_ b: [UInt8]) {
        b.withUnsafeBytes { raw($0) }
    }

    @inline(__always)
    public func raw(_ p: UnsafeRawBufferPointer) {
        let s = storage
        s.reserve(p.count)
        if p.count > 0 {
            (s.base + s.count).update(from: p.baseAddress!.assumingMemoryBound(to: UInt8.self), count: p.count)
        }
        s.count += p.count
    }

    @inline(__always)
    public func byte(_ b: UInt8) {
        let s = storage
        s.reserve(1)
        s.base[s.count] = b
        s.count += 1
    }

    // MARK: Values

    /// A JSON string literal, quotes included.
    public func string(_ text: String) {
        byte(UInt8(ascii: "\""))
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\n"): raw("\\n")
            case UInt8(ascii: "\r"): raw("\\r")
            case UInt8(ascii: "\t"): raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                byte(Self.hex(b >> 4))
                byte(Self.hex(b & 0xf))
            default:
                byte(b)
            }
        }
        byte(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func hex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// An integer.
    public func integer<T: BinaryInteger>(_ value: T) {
        inPlace(reserving: JSONCursor.longestInteger) { out in
            if value < 0 {
                out.byte(UInt8(ascii: "-"))
                out.unsigned(UInt64(truncatingIfNeeded: value.magnitude))
            } else {
                out.unsigned(UInt64(truncatingIfNeeded: value))
            }
        }
    }

    /// A number rounded to six decimals (see `JSONCursor.number`). Never
    /// traps, whatever the value.
    @inline(__always)
    public func number(_ value: Double) {
        inPlace(reserving: JSONCursor.longestNumber) { $0.number(value) }
    }

    // MARK: Writing in place

    /// Reserves `maximum` bytes and lets `body` write at most that many
    /// through a cursor, with no check per byte: the hot path of a whole
    /// event line.
    @inline(__always)
    public func inPlace(reserving maximum: Int, _ body: (inout JSONCursor) -> Void) {
        let s = storage
        s.reserve(maximum)
        let start = s.base + s.count
        var cursor = JSONCursor(start)
        body(&cursor)
        let written = cursor.position - start
        assert(written >= 0 && written <= maximum, "wrote \(written) bytes in place of at most \(maximum)")
        s.count += written
    }
}

/// Writes JSON text straight into memory a `JSONWriter` reserved for it
/// (`inPlace`): each write moves the cursor on. No bounds checks: the
/// writer reserved what its caller said it would write at most (a number
/// takes at most `longestNumber` bytes, an integer `longestInteger`).
public struct JSONCursor {
    /// Where the next byte goes.
    public private(set) var position: UnsafeMutablePointer<UInt8>

    /// The most bytes `number` writes (`-1.7976931348623157e+308` is 24).
    public static let longestNumber = 32
    /// The most bytes a signed or unsigned 64-bit integer takes.
    public static let longestInteger = 21

    init(_ start: UnsafeMutablePointer<UInt8>) {
        position = start
    }

    @inline(__always)
    public mutating func byte(_ b: UInt8) {
        position.pointee = b
        position += 1
    }

    @inline(__always)
    public mutating func raw(_ s: StaticString) {
        copy(s.utf8Start, s.utf8CodeUnitCount)
    }

    @inline(__always)
    public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        copy(base, bytes.count)
    }

    @inline(__always)
    private mutating func copy(_ source: UnsafePointer<UInt8>, _ count: Int) {
        position.update(from: source, count: count)
        position += count
    }

    /// Decimal digits, no sign, no leading zeros.
    @inline(__always)
    public mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            byte(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        var width = 2
        var probe = value / 100
        while probe != 0 { width += 1; probe /= 10 }
        var p = position + width
        var v = value
        repeat {
            p -= 1
            p.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        } while v != 0
        position += width
    }

    /// A number rounded to six decimals, trailing zeros trimmed, no
    /// exponent, never `-0`. Non-finite values (which the engine never
    /// produces) are written as 0 to keep the line valid JSON; a magnitude
    /// of 9e12 or more, where six decimals no longer fit the integer path,
    /// is written as Swift prints it (`1e+19`, valid JSON).
    @inline(__always)
    public mutating func number(_ value: Double) {
        guard value.isFinite, abs(value) < 9e12 else {
            if value.isFinite { large(value) } else { byte(UInt8(ascii: "0")) }
            return
        }
        // `(value * 1e6).rounded()` (half away from zero) without a call
        // into libm: the conversion truncates, and the part it cut off is
        // exact (Sterbenz), so comparing it with ±0.5 rounds exactly alike.
        let scaled = value * 1_000_000
        var micros = Int64(scaled)
        let cut = scaled - Double(micros)
        if cut >= 0.5 { micros += 1 } else if cut <= -0.5 { micros -= 1 }
        if micros == 0 { byte(UInt8(ascii: "0")); return }
        if micros < 0 { byte(UInt8(ascii: "-")); micros = -micros }
        let magnitude = UInt64(micros)
        let whole = magnitude / 1_000_000
        let fraction = UInt32(truncatingIfNeeded: magnitude &- whole &* 1_000_000)
        unsigned(whole)
        if fraction == 0 { return }
        // The point and all six decimals, then back over the trailing
        // zeros (a digit stays: the fraction is not 0).
        position[0] = UInt8(ascii: ".")
        let high = fraction / 10_000
        let rest = fraction &- high &* 10_000
        let middle = rest / 100
        Self.pair(high, at: position + 1)
        Self.pair(middle, at: position + 3)
        Self.pair(rest &- middle &* 100, at: position + 5)
        position += 7
        while position[-1] == UInt8(ascii: "0") { position -= 1 }
    }

    /// Two digits of `value` (below 100).
    @inline(__always)
    private static func pair(_ value: UInt32, at p: UnsafeMutablePointer<UInt8>) {
        let tens = value / 10
        p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: tens)
        p[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value &- tens &* 10)
    }

    /// A finite number too large for the six-decimal path (at most 24 bytes).
    private mutating func large(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        let count = min(text.utf8.count, Self.longestNumber)
        for (i, b) in text.utf8.prefix(count).enumerated() { position[i] = b }
        position += count
    }
}
