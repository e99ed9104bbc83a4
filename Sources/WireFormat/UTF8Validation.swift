/// Strict UTF-8 validation (Unicode Table 3-7, "well-formed UTF-8 byte
/// sequences"): no overlong forms, no surrogates (U+D800…U+DFFF), nothing
/// past U+10FFFF, no truncated sequences. ASCII runs are skipped eight bytes
/// at a time.
public enum UTF8Validation {
    /// The offset of the first byte that does not start a well-formed
    /// sequence, or nil when all of `bytes` is valid UTF-8.
    public static func firstInvalidOffset(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let n = bytes.count
        var i = 0
        while i < n {
            while i + 8 <= n, (base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < n else { break }
            let lead = p[i]
            if lead < 0x80 { i += 1; continue }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF   // range of the second byte
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0               // no overlong 3-byte forms
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F              // no surrogates
            case 0xF0: length = 4; low = 0x90               // no overlong 4-byte forms
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F              // nothing past U+10FFFF
            default: return i                               // 80…C1, F5…FF
            }
            guard i + length <= n, (low...high).contains(p[i + 1]) else { return i }
            for k in 2..<length where p[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }

    /// Whether all of `bytes` is valid UTF-8.
    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { firstInvalidOffset($0) == nil }
    }
}
