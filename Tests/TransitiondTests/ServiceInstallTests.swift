import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import Testing

/// The kiosk service as shipped: the units under systemd's own checkers,
/// the sysusers.d entry, the man pages, and the Debian package under
/// `dpkg-deb` and `lintian`. All real tools; the daemon's binary is this
/// build's.
@Suite(.serialized) struct ServiceInstallTests {
    private var systemd: String { ProjectPaths.root.appendingPathComponent("systemd").path }

    /// The units in a folder of their own, naming this build's binary (the
    /// checkers look for the `ExecStart=` program).
    /// (transitiond-prometheus-agent.service runs Debian's prometheus, which
    /// the metrics tier installs: that tier verifies it. transitiond-mqtt.service
    /// runs the Python client's bridge, installed with pip apart from the
    /// package: it is checked with the bridge's tests, Tests/python-run.sh.)
    static let units = ["transitiond.service", "transitiond.socket", "transitiond-websocket.socket", "transitiond-metrics.socket"]

    private func unitsForThisBuild() throws -> TemporaryDirectory {
        let folder = TemporaryDirectory(prefix: "units")
        for unit in Self.units {
            let text = try String(contentsOfFile: systemd + "/" + unit, encoding: .utf8)
            _ = folder.file(unit, text.replacingOccurrences(of: "/usr/bin/transitiond", with: ProjectPaths.binary))
        }
        return folder
    }

    @Test(Tools.needed("systemd-analyze")) func systemdAnalyzeVerifiesEveryUnit() throws {
        let units = try unitsForThisBuild()
        defer { units.remove() }
        let result = try run("/usr/bin/systemd-analyze", ["verify", "--man=no"] + Self.units.map { units.path + "/" + $0 })
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.isEmpty, "no warnings: \(result.output)")
    }

    @Test(Tools.needed("systemd-analyze")) func theServicesExposureIsSafe() throws {
        let units = try unitsForThisBuild()
        defer { units.remove() }
        let result = try run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager",
                                                          units.path + "/transitiond.service"])
        let line = result.output.split(separator: "\n").first { $0.contains("Overall exposure level") }.map(String.init) ?? ""
        print("systemd-analyze security: \(line)")
        let level = line.split(separator: ":").last.flatMap { Double($0.split(separator: " ").first ?? "") }
        #expect(level != nil, "\(result.output)")
        #expect((level ?? 10) <= 1.5, "\(line)")
        #expect(line.contains("SAFE"), "\(line)")
    }

    @Test(Tools.needed("man")) func theUnitsDocumentationNamesPagesThatExistAndReadCleanly() throws {
        var pages: Set<String> = []
        for unit in Self.units {
            let text = try String(contentsOfFile: systemd + "/" + unit, encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("Documentation=") {
                for reference in line.dropFirst("Documentation=".count).split(separator: " ") where reference.hasPrefix("man:") {
                    // man:transitiond.toml(5) → man/transitiond.toml.5
                    let name = reference.dropFirst(4).replacingOccurrences(of: "(", with: ".").replacingOccurrences(of: ")", with: "")
                    pages.insert(name)
                }
            }
        }
        #expect(pages == ["transitiond.1", "transitiond.toml.5"])
        for page in pages {
            let path = ProjectPaths.root.appendingPathComponent("man/" + page).path
            let result = try run("/usr/bin/man", ["--warnings", "-E", "UTF-8", "-l", path],
                                 environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MANPAGER": "cat", "PAGER": "cat"])
            #expect(result.status == 0, "\(page): \(result.output)")
            #expect(!result.output.contains("warning"), "\(page): \(result.output)")
        }
    }

    @Test(Tools.needed("systemd-sysusers")) func sysusersMakesTheDaemonsUserAndGroup() throws {
        let root = TemporaryDirectory(prefix: "sysroot")
        defer { root.remove() }
        root.directory("etc")
        let result = try run("/usr/bin/systemd-sysusers", ["--root=" + root.path, systemd + "/sysusers.d/transitiond.conf"])
        #expect(result.status == 0, "\(result.output)")
        let passwd = try String(contentsOfFile: root.path + "/etc/passwd", encoding: .utf8)
        let group = try String(contentsOfFile: root.path + "/etc/group", encoding: .utf8)
        #expect(passwd.contains("transitiond:x:") && passwd.contains(":/usr/sbin/nologin"), "\(passwd)")
        #expect(group.contains("transitiond:x:"), "\(group)")
    }

    @Test(Tools.needed("dpkg-deb", "lintian")) func theDebianPackageHasEverythingAndLintianHasNothingToSay() throws {
        let out = TemporaryDirectory(prefix: "deb")
        defer { out.remove() }
        let build = try run(ProjectPaths.root.appendingPathComponent("bin/package").path, ["--output", out.path],
                            environment: ["TRANSITIOND_BINARY": ProjectPaths.binary])
        #expect(build.status == 0, "\(build.output)")
        let deb = try #require(build.output.split(separator: "\n").last.map(String.init), "\(build.output)")
        let contents = try run("/usr/bin/dpkg-deb", ["--contents", deb]).output
        for path in ["./usr/bin/transitiond", "./lib/systemd/system/transitiond.service", "./lib/systemd/system/transitiond.socket",
                     "./lib/systemd/system/transitiond-websocket.socket", "./usr/share/doc/transitiond/kiosk-web.md",
                     "./lib/systemd/system/transitiond-metrics.socket", "./usr/share/doc/transitiond/metrics.md",
                     "./usr/lib/sysusers.d/transitiond.conf", "./etc/transitiond/transitiond.toml",
                     "./usr/share/man/man1/transitiond.1.gz", "./usr/share/man/man5/transitiond.toml.5.gz",
                     "./usr/share/bash-completion/completions/transitiond", "./usr/share/zsh/vendor-completions/_transitiond",
                     "./usr/share/fish/vendor_completions.d/transitiond.fish", "./usr/share/doc/transitiond/copyright",
                     "./usr/share/doc/transitiond/kiosk.md", "./usr/share/doc/transitiond/snap-points.md", "./usr/share/doc/transitiond/fleet.md",
                     "./lib/systemd/system/transitiond-prometheus-agent.service",
                     "./lib/systemd/system/transitiond-mqtt.service",
                     "./usr/libexec/transitiond/transitiond-prometheus-agent-config",
                     "./usr/share/transitiond/prometheus/agent.yml", "./usr/share/transitiond/prometheus/rules.yml",
                     "./usr/share/transitiond/prometheus/rules_test.yml"] {
            #expect(contents.contains(path + "\n") || contents.hasSuffix(path), "\(path) in the package")
        }
        #expect(contents.contains("root/root"), "files owned by root")
        let info = try run("/usr/bin/dpkg-deb", ["--info", deb]).output
        #expect(info.contains("Package: transitiond") && info.contains("Depends:") && info.contains("libevdev2"), "\(info)")
        #expect(info.contains("conffiles"), "\(info)")
        // The installed config is a valid config.
        let config = try runTransitiond(["check-config", ProjectPaths.root.appendingPathComponent("config/kiosk.toml").path])
        #expect(config.status == 0, "\(config.stderr)")
        let lintian = try run("/usr/bin/lintian", ["--tag-display-limit", "0", deb])
        // This build's binary is the debug one, linked to the toolchain's
        // Swift runtime by RUNPATH; the package's release binary carries the
        // runtime statically (bin/package), so that one tag is this test's own.
        let tags = lintian.output.split(separator: "\n").filter {
            !$0.contains("running with root privileges")
                && !($0.contains("custom-library-search-path") && $0.contains("/swift/"))
        }
        #expect(tags.isEmpty, "lintian: \(tags.joined(separator: "\n"))")
    }

    // MARK: Helpers

    private struct Result {
        var status: Int32
        var output: String
    }

    /// Runs a program to its end: its exit status, and stdout and stderr together.
    private func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
