import Foundation
import TestSupport
import Testing
import Engine
@testable import EvdevInput

/// The EACCES retry policy, inotify on a temporary directory, and the input
/// thread waiting for a device to appear in a fake input directory.
@Suite("Waiting for devices")
struct WatchingTests {
    // MARK: Retry policy

    @Test func retryBacksOffAndGivesUp() {
        let policy = AccessRetryPolicy(firstDelay: 0.05, maximumDelay: 1.0, giveUpAfter: 10)
        #expect(policy.delay(beforeRetry: 0, elapsed: 0) == 0.05)
        #expect(policy.delay(beforeRetry: 1, elapsed: 0.05) == 0.1)
        #expect(policy.delay(beforeRetry: 2, elapsed: 0.2) == 0.2)
        #expect(policy.delay(beforeRetry: 4, elapsed: 1) == 0.8)
        #expect(policy.delay(beforeRetry: 5, elapsed: 2) == 1.0)
        #expect(policy.delay(beforeRetry: 500, elapsed: 5) == 1.0)
        // Never past the give-up time, then nothing.
        #expect(policy.delay(beforeRetry: 9, elapsed: 9.7)! < 0.300001)
        #expect(policy.delay(beforeRetry: 9, elapsed: 10) == nil)
        #expect(policy.delay(beforeRetry: 0, elapsed: 11) == nil)
        #expect(policy.delay(beforeRetry: -1, elapsed: 0) == nil)
    }

    @Test func defaultRetriesCoverAboutTenSeconds() {
        let policy = AccessRetryPolicy()
        var elapsed = 0.0
        var attempt = 0
        while let d = policy.delay(beforeRetry: attempt, elapsed: elapsed) {
            elapsed += d
            attempt += 1
        }
        #expect(abs(elapsed - 10) < 1e-9)
        #expect(attempt > 5 && attempt < 20)
    }

    // MARK: inotify

    @Test func watcherReportsCreationAttributesAndRemoval() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let watcher = try DirectoryWatcher()
        #expect(watcher.watch(tree.path))
        #expect(!watcher.watch(tree.path + "/missing"))
        #expect(watcher.wait(timeout: 0).isEmpty)

        tree.file("event3")
        var changes = watcher.wait(timeout: 2)
        #expect(changes.first == DirectoryWatcher.Change(directory: tree.path, name: "event3", kind: .created))

        chmod(tree.path + "/event3", 0o600)
        changes = watcher.wait(timeout: 2)
        #expect(changes.contains(DirectoryWatcher.Change(directory: tree.path, name: "event3", kind: .attributesChanged)))

        // udev makes links by renaming a temporary one into place.
        tree.link(".tmp-link", to: "event3")
        rename(tree.path + "/.tmp-link", tree.path + "/link")
        changes = watcher.wait(timeout: 2)
        #expect(changes.contains(DirectoryWatcher.Change(directory: tree.path, name: "link", kind: .created)))

        unlink(tree.path + "/event3")
        changes = watcher.wait(timeout: 2)
        #expect(changes.contains(DirectoryWatcher.Change(directory: tree.path, name: "event3", kind: .removed)))

        tree.directory("by-id")
        changes = watcher.wait(timeout: 2)
        #expect(changes.contains(DirectoryWatcher.Change(directory: tree.path, name: "by-id", kind: .created, isDirectory: true)))
    }

    @Test func watcherNoticesItsDirectoryGoing() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        tree.directory("input")
        let watcher = try DirectoryWatcher()
        #expect(watcher.watch(tree.path + "/input"))
        rmdir(tree.path + "/input")
        var changes: [DirectoryWatcher.Change] = []
        for _ in 0..<5 where !changes.contains(where: { $0.kind == .directoryGone }) {
            changes += watcher.wait(timeout: 1)
        }
        #expect(changes.contains(DirectoryWatcher.Change(directory: tree.path + "/input", name: "", kind: .directoryGone, isDirectory: true)))
        #expect(!watcher.isWatching(tree.path + "/input"))
    }

    // MARK: The input thread, waiting

    @Test func autoWaitsAndRescansWhenANodeAppears() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let collector = ReportCollector()
        let source = try EvdevSource(options: .init(selector: .auto, root: tree.path))
        collector.attach(to: source)
        defer { source.stop() }

        #expect(collector.waitFor { $0 == .waiting("waiting for a touchscreen") })
        // A node appears; it is no input device (a plain file), so the
        // source still waits, now saying what it could not read.
        tree.file("event0")
        let expected = "waiting for a touchscreen (cannot read \(tree.path)/event0: not an evdev input device)"
        #expect(collector.waitFor { $0 == .waiting(expected) })
    }

    @Test func autoWaitsForTheInputDirectoryItself() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let root = tree.path + "/input"
        let collector = ReportCollector()
        let source = try EvdevSource(options: .init(selector: .auto, root: root))
        collector.attach(to: source)
        defer { source.stop() }

        #expect(collector.waitFor { $0 == .waiting("waiting for a touchscreen (\(root) does not exist)") })
        tree.directory("input")
        #expect(collector.waitFor { $0 == .waiting("waiting for a touchscreen") })
        tree.file("input/event5")
        #expect(collector.waitFor { report in
            if case .waiting(let text) = report { return text.contains("input/event5: not an evdev input device") }
            return false
        })
    }

    @Test func allWaitsForTouchscreens() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let collector = ReportCollector()
        let source = try EvdevSource(options: .init(selector: .all, root: tree.path))
        collector.attach(to: source)
        defer { source.stop() }
        #expect(collector.waitFor { $0 == .waiting("waiting for touchscreens") })
        tree.file("event2")
        let expected = "waiting for touchscreens (cannot read \(tree.path)/event2: not an evdev input device)"
        #expect(collector.waitFor { $0 == .waiting(expected) })
    }

    @Test func severalPathsEachWaitedFor() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        tree.directory("by-id")
        let left = tree.path + "/by-id/usb-Left-event-if00", right = tree.path + "/by-id/usb-Right-event-if00"
        let collector = ReportCollector()
        let source = try EvdevSource(options: .init(selector: .paths([left, right]), root: tree.path))
        collector.attach(to: source)
        defer { source.stop() }
        #expect(collector.waitFor { $0 == .waiting("waiting for \(left) to appear; waiting for \(right) to appear") })
        tree.file("event9")
        tree.link("by-id/usb-Right-event-if00", to: "../event9")
        #expect(collector.waitFor {
            $0 == .waiting("waiting for \(left) to appear; waiting for \(right): not an evdev input device")
        })
    }

    @Test func explicitPathWaitsForItsLink() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        tree.directory("by-id")
        let link = tree.path + "/by-id/usb-Panel-event-if00"
        let collector = ReportCollector()
        let source = try EvdevSource(options: .init(selector: .path(link), root: tree.path))
        collector.attach(to: source)
        defer { source.stop() }

        #expect(collector.waitFor { $0 == .waiting("waiting for \(link) to appear") })
        tree.file("event9")
        tree.link("by-id/usb-Panel-event-if00", to: "../event9")
        #expect(collector.waitFor { $0 == .waiting("waiting for \(link): not an evdev input device") })
    }

    @Test func stopEndsTheThreadPromptly() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        let source = try EvdevSource(options: .init(selector: .auto, root: tree.path))
        source.start {}
        let start = Date()
        source.stop()
        #expect(Date().timeIntervalSince(start) < 1)
    }
}

/// Collects a source's reports from its thread for a test to wait on.
final class ReportCollector: @unchecked Sendable {
    private let lock = NSCondition()
    private var reports: [InputReport] = []
    private var source: InputSource?

    func attach(to source: InputSource) {
        self.source = source
        source.start { [self] in
            var taken: [InputReport] = []
            source.take(into: &taken)
            lock.lock()
            reports += taken
            lock.broadcast()
            lock.unlock()
        }
    }

    /// Waits (up to `timeout` seconds) for a report that matches.
    func waitFor(timeout: Double = 5, _ match: (InputReport) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !reports.contains(where: match) {
            if !lock.wait(until: deadline) { return reports.contains(where: match) }
        }
        return true
    }

    var all: [InputReport] {
        lock.lock()
        defer { lock.unlock() }
        return reports
    }
}
