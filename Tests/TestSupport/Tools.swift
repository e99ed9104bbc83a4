import Foundation
import Testing

/// Programs from outside the project that some tests run beside the daemon
/// (socat, Python, systemd's tools, man, dpkg-deb, lintian). `bin/test`
/// installs them; a bare `swift test` on a machine without one skips the
/// tests that need it and says which program is missing, rather than failing.
public enum Tools {
    /// Where `name` is: the usual system folders, then `PATH`.
    public static func path(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = ["/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin"] + path.split(separator: ":").map(String.init)
        return folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A test trait that runs the test only when every program is installed.
    public static func needed(_ names: String...) -> ConditionTrait {
        let missing = names.filter { path($0) == nil }
        return .enabled(if: missing.isEmpty, "not installed: \(missing.joined(separator: ", ")) (bin/test installs it)")
    }
}
