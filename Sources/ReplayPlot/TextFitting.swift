/// Text fitted to the room it has, cut only between words: a label cut
/// mid-word reads as a different word ("outside the le…").
extension DisplayText {
    /// Characters a shortened text does not end on before its "…".
    private static let trailing: Set<Character> = [" ", ",", ";", ":", "·", "—", "–", "(", "="]

    /// `text` in at most `limit` characters: whole as it is, else its words
    /// that fit and "…". A first word longer than `limit` alone is cut
    /// where the room ends: there is no word boundary to cut at.
    static func shortened(_ text: String, toAtMost limit: Int) -> String {
        guard text.count > limit else { return text }
        guard limit > 1 else { return "…" }
        let room = text.prefix(limit - 1)
        // The character after the room tells whether the room ends on a word boundary.
        let next = text[room.endIndex]
        var kept = next == " " ? Substring(room) : room.lastIndex(of: " ").map { room[..<$0] } ?? ""
        while let last = kept.last, trailing.contains(last) { kept = kept.dropLast() }
        return (kept.isEmpty ? String(room) : String(kept)) + "…"
    }

    /// `text` in lines of at most `limit` characters, broken between words
    /// (a word longer than a line is cut into lines), at most `maxLines` of
    /// them: the last one shortened when more would be needed.
    static func wrapped(_ text: String, toLinesOf limit: Int, maxLines: Int = 6) -> [String] {
        let width = max(limit, 2)
        var lines: [String] = [], current = ""
        for piece in text.split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(piece)
            if !current.isEmpty {
                if current.count + 1 + word.count <= width {
                    current += " " + word
                    continue
                }
                lines.append(current)
            }
            // Longer than a line: cut, since it cannot fit whole anywhere.
            while word.count > width {
                lines.append(String(word.prefix(width)))
                word = word.dropFirst(width)
            }
            current = String(word)
        }
        if !current.isEmpty { lines.append(current) }
        guard lines.count > maxLines, maxLines > 0 else { return lines }
        let rest = lines[(maxLines - 1)...].joined(separator: " ")
        return Array(lines.prefix(maxLines - 1)) + [shortened(rest, toAtMost: width)]
    }
}
