/// "Did you mean ...?" for unknown keys.
enum KeySuggestion {
    /// The candidate closest to `key` when it is at most two edits away (and
    /// fewer edits than `key` has characters); ties go to the earlier one.
    static func closest(to key: String, among candidates: [String]) -> String? {
        let typed = Array(key.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let known = Array(candidate.lowercased().unicodeScalars)
            guard abs(known.count - typed.count) <= 2 else { continue }
            let distance = editDistance(typed, known)
            if distance <= 2, distance < typed.count, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Optimal-string-alignment distance: insertions, deletions,
    /// substitutions and swaps of neighbours each count one.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        let width = b.count + 1
        var table = [Int](repeating: 0, count: (a.count + 1) * width)
        for i in 0...a.count { table[i * width] = i }
        for j in 0...b.count { table[j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[(i - 1) * width + j] + 1,
                                table[i * width + j - 1] + 1,
                                table[(i - 1) * width + j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, table[(i - 2) * width + j - 2] + 1)
                }
                table[i * width + j] = value
            }
        }
        return table[a.count * width + b.count]
    }
}
