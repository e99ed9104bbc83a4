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
        if value < 0 {
            byte(UInt8(ascii: "-"))
            digits(UInt64(truncatingIfNeeded: value.magnitude), minimumWidth: 1)
        } else {
            digits(UInt64(truncatingIfNeeded: value), minimumWidth: 1)
        }
    }

    /// A number rounded to six decimals. Non-finite values (which the engine
    /// never produces) are written as 0 to keep the line valid JSON; a
    /// magnitude of 9e12 or more, where six decimals no longer fit the
    /// integer path, is written as Swift prints it (`1e+19`, valid JSON).
    /// Never traps, whatever the value.
    @inline(__always)
    public func number(_ value: Double) {
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
        let whole = UInt64(micros / 1_000_000)
        var fraction = UInt64(micros % 1_000_000)
        digits(whole, minimumWidth: 1)
        if fraction == 0 { return }
        var width = 6
        while fraction % 10 == 0 { fraction /= 10; width -= 1 }
        byte(UInt8(ascii: "."))
        digits(fraction, minimumWidth: width)
    }

    /// A finite number too large for the six-decimal path.
    private func large(_ value: Double) {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        raw(Array(text.utf8))
    }

    /// Decimal digits of `value`, zero-padded to `minimumWidth`.
    @inline(__always)
    private func digits(_ value: UInt64, minimumWidth: Int) {
        var width = 1
        var probe = value / 10
        while probe != 0 { width += 1; probe /= 10 }
        width = max(width, minimumWidth)
        let s = storage
        s.reserve(width)
        var p = s.base + s.count + width
        var v = value
        for _ in 0..<width {
            p -= 1
            p.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        s.count += width
    }
}
