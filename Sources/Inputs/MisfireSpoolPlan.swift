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
        // A name is at most 255 bytes: a long transition name is cut (its
        // header still says it whole). Names are ASCII identifiers.
        return year + two(utc.month) + two(utc.day) + "T" + two(utc.hour) + two(utc.minute) + two(utc.second) + "Z-"
            + kind.rawValue + "-" + String(decoding: transition.utf8.prefix(maxTransitionBytes), as: UTF8.self)
    }

    /// The most bytes of a transition's name in a file name.
    static let maxTransitionBytes = 120

    /// `.NAME.partial`: where a file is written before it is linked to NAME.
    static func partial(_ name: String) -> String { "." + name + ".partial" }

    /// Whether a name is a spool file's while it was written (left by a
    /// daemon stopped mid-write: swept when the spool is next used).
    static func isPartial(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".partial") && isSpooled(String(name.dropFirst().dropLast(".partial".count)))
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
    /// that at most `maxFiles` misfires remain taking at most `maxBytes`.
    /// `files` are the spool's (`isSpooled`), in any order; the files of
    /// one misfire (a panel each: `NAME.0.events`, `NAME.1.events`) count
    /// as one and go together. `keeping` (the misfire just written) is
    /// never removed, even alone over the bounds.
    static func removals(_ files: [(name: String, bytes: Int)], maxFiles: Int, maxBytes: Int,
                         keeping: Set<String> = []) -> [String] {
        // By misfire: the name without its panel number.
        var groups: [String: [(name: String, bytes: Int)]] = [:]
        for file in files { groups[misfire(of: file.name), default: []].append(file) }
        var order = groups.keys.sorted()
        var total = files.reduce(0) { $0 + $1.bytes }
        var count = order.count
        var removed: [String] = []
        while count > maxFiles || total > maxBytes {
            guard let oldest = order.firstIndex(where: { key in !(groups[key] ?? []).contains { keeping.contains($0.name) } }) else { break }
            let key = order.remove(at: oldest)
            for file in groups[key] ?? [] {
                total -= file.bytes
                removed.append(file.name)
            }
            count -= 1
        }
        return removed
    }

    /// A spool file's misfire: its name without `.N.events` or `.events`.
    static func misfire(of name: String) -> String {
        guard name.hasSuffix(".events") else { return name }
        var stem = name.dropLast(".events".count)
        if let dot = stem.lastIndex(of: "."), stem[stem.index(after: dot)...].allSatisfy(\.isNumber), dot < stem.endIndex {
            stem = stem[..<dot]
        }
        return String(stem)
    }
}
