import Testing
import TestSupport
@testable import TransitionConfig

/// A config file is a file of at most 4 MiB: a device or a larger file is
/// refused with the file's name and why.
@Suite struct ConfigFileBoundsTests {
    @Test func aDeviceIsNotAConfigFile() {
        #expect(throws: ConfigError(file: "/dev/zero", line: nil, message: "is a device, not a config file")) {
            try ConfigFile.read(path: "/dev/zero")
        }
    }

    @Test func aFileOverFourMebibytesIsRefused() {
        let folder = TemporaryDirectory(prefix: "bounds")
        defer { folder.remove() }
        let path = folder.file("big.toml", String(repeating: "# a comment\n", count: (5 << 20) / 12))
        #expect(throws: ConfigError(file: path, line: nil, message: "is larger than 4 MiB, the most a config file may be")) {
            try ConfigFile.read(path: path)
        }
    }
}
