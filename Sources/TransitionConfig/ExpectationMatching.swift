/// Which `[[recording]]` of an expectation file a recording named on the
/// command line is checked against.
extension ExpectationFile {
    /// The entry whose `file` is `path` as written; else the only entry
    /// with the same file name (the last path component), so that
    /// `/abs/Recordings/x.events` finds `Recordings/x.events`; else nil.
    public func expectation(for path: String) -> RecordingExpectation? {
        if let exact = recordings.first(where: { $0.file == path }) { return exact }
        let name = Self.fileName(path)
        let sameName = recordings.filter { Self.fileName($0.file) == name }
        return sameName.count == 1 ? sameName[0] : nil
    }

    /// The entries none of `paths` is checked against, in file order.
    public func unused(given paths: [String]) -> [RecordingExpectation] {
        let used = paths.compactMap { expectation(for: $0)?.file }
        return recordings.filter { !used.contains($0.file) }
    }

    /// The last component of a path: `Recordings/x.events` → `x.events`.
    static func fileName(_ path: String) -> Substring {
        path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path)
    }
}
