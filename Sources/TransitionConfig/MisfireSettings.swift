/// `[input] keep_misfires` and its spool: the flight recorder writes a
/// dump by itself when a gesture went wrong (`MisfireWatch`), into a
/// folder bounded in files and bytes, the oldest going first.
public struct MisfireSettings: Sendable, Equatable {
    /// `keep_misfires`: on or off (default off).
    public var keep: Bool
    /// `misfire_spool`: the folder the dumps go to.
    public var folder: String
    /// `misfire_spool_files`: the most dumps kept.
    public var maxFiles: Int
    /// `misfire_spool_bytes`: the most bytes the kept dumps take together.
    public var maxBytes: Int
    /// `misfire_interval`: the least seconds between two dumps.
    public var interval: Double

    /// The default folder: the service's state directory (the unit's `StateDirectory=transitiond`).
    public static let defaultFolder = "/var/lib/transitiond/misfires"

    public init(keep: Bool = false, folder: String = MisfireSettings.defaultFolder, maxFiles: Int = 50,
                maxBytes: Int = 64 << 20, interval: Double = 60) {
        self.keep = keep
        self.folder = folder
        self.maxFiles = maxFiles
        self.maxBytes = maxBytes
        self.interval = interval
    }

    /// Off, with the default bounds.
    public static let standard = MisfireSettings()
}
