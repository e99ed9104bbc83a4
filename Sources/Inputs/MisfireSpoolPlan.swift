import Engine

/// The spool's rules, apart from its I/O: how a kept misfire's files are
/// named, which files of the folder are the spool's, and which of them go
/// to keep it within its bounds. Pure.
enum MisfireSpoolPlan {
    /// `20261127T233512Z-late-cancel-back`: the UTC time it was kept (so
    /// names sort by age), its kind and its transition. With several
    /// panels, each file adds its number before `.events`.
    static func stem(kind: MisfireWatch.Kind, transition: String, utc: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(utc.year)
        return year + two(utc.month) + two(utc.day) + "T" + two(utc.hour) + two(utc.minute) + two(utc.second) + "Z-"
            + kind.rawValue + "-" + transition
    }

    /// Whether a file of the folder is one the spool wrote (a name `stem`
    /// makes, ending in `.events`): only those are ever removed, so a file
    /// an operator put there stays.
    static func isSpooled(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > 17 + 7, name.hasSuffix(".events") else { return false }
        func digits(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } }
        return digits(0..<8) && bytes[8] == UInt8(ascii: "T") && digits(9..<15) && bytes[15] == UInt8(ascii: "Z")
            && bytes[16] == UInt8(ascii: "-")
            && MisfireWatch.Kind.allCases.contains { name.utf8.dropFirst(17).starts(with: ($0.rawValue + "-").utf8) }
    }

    /// The spool's files to remove, oldest first (names sort by age), so
    /// that at most `maxFiles` remain taking at most `maxBytes`. `files`
    /// are the spool's (`isSpooled`), in any order.
    static func removals(_ files: [(name: String, bytes: Int)], maxFiles: Int, maxBytes: Int) -> [String] {
        var kept = files.sorted { $0.name < $1.name }
        var total = kept.reduce(0) { $0 + $1.bytes }
        var removed: [String] = []
        while !kept.isEmpty && (kept.count > maxFiles || total > maxBytes) {
            let oldest = kept.removeFirst()
            total -= oldest.bytes
            removed.append(oldest.name)
        }
        return removed
    }
}
