/// Which `[[recording]]` of an expectation file a recording named on the
/// command line is checked against.
extension ExpectationFile {
    /// The entry whose `file` is `path` as written (a leading `./` aside);
    /// else the only entry with the same file name (the last path
    /// component), so that `/abs/Recordings/x.events` finds
    /// `Recordings/x.events` — but not an entry that another path given
    /// (`others`) names exactly: that one is its own; else nil.
    public func expectation(for path: String, others: [String] = []) -> RecordingExpectation? {
        let wanted = Self.plain(path)
        if let exact = recordings.first(where: { Self.plain($0.file) == wanted }) { return exact }
        let taken = Set(others.map(Self.plain).filter { $0 != wanted })
        let name = Self.fileName(path)
        let sameName = recordings.filter { Self.fileName($0.file) == name && !taken.contains(Self.plain($0.file)) }
        return sameName.count == 1 ? sameName[0] : nil
    }

    /// A path without a leading `./`.
    static func plain(_ path: String) -> String {
        var p = Substring(path)
        while p.hasPrefix("./") { p = p.dropFirst(2) }
        return String(p)
    }

    /// The entries none of `paths` is checked against, in file order.
    public func unused(given paths: [String]) -> [RecordingExpectation] {
        let used = paths.compactMap { expectation(for: $0, others: paths)?.file }
        return recordings.filter { !used.contains($0.file) }
    }

    /// The last component of a path: `Recordings/x.events` → `x.events`.
    static func fileName(_ path: String) -> Substring {
        path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path)
    }
}
