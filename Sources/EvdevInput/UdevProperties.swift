#if canImport(Glibc)
import Glibc
#endif
import Engine

/// A device's properties in the udev database (`/run/udev/data/cMAJOR:MINOR`,
/// its `E:KEY=VALUE` lines), read without libudev: e.g. the
/// `LIBINPUT_CALIBRATION_MATRIX` that a udev rule gives a panel.
public enum UdevProperties {
    /// The value of `key` for the character device at `path`, or nil (no
    /// such device, no database entry, or no such property).
    public static func value(_ key: String, forDeviceAt path: String, database: String = "/run/udev/data") -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFCHR else { return nil }
        let major = (info.st_rdev >> 8) & 0xFFF | ((info.st_rdev >> 32) & ~0xFFF)
        let minor = (info.st_rdev & 0xFF) | ((info.st_rdev >> 12) & ~0xFF)
        return value(key, inEntry: "\(database)/c\(major):\(minor)")
    }

    /// The value of `key` in one database entry file.
    static func value(_ key: String, inEntry file: String) -> String? {
        guard let handle = fopen(file, "r") else { return nil }
        defer { fclose(handle) }
        let prefix = "E:\(key)="
        var line: UnsafeMutablePointer<CChar>? = nil
        var capacity = 0
        defer { free(line) }
        var read = 0
        while read < 1 << 20, getline(&line, &capacity, handle) > 0, let line {
            let text = String(cString: line)
            read += text.utf8.count
            if text.hasPrefix(prefix) {
                return String(text.dropFirst(prefix.count)).trimmingSuffix(while: { $0 == "\n" })
            }
        }
        return nil
    }

    /// The panel's calibration matrix from udev, if it has a valid one.
    public static func calibration(forDeviceAt path: String, database: String = "/run/udev/data") -> [Double]? {
        value("LIBINPUT_CALIBRATION_MATRIX", forDeviceAt: path, database: database)
            .flatMap(ScreenGeometry.calibration(fromUdev:))
    }
}

private extension String {
    func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var s = Substring(self)
        while let last = s.last, predicate(last) { s = s.dropLast() }
        return String(s)
    }
}
