import Foundation
import SystemSupport
#if canImport(Glibc)
import Glibc
#endif

/// A fresh, private (mode 0700, made by `mkdtemp`) temporary directory,
/// removed by `remove()`, with helpers to fill it.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// A new directory `<tmp>/<prefix>-XXXXXX`.
    public init(prefix: String = "transitiond-tests") {
        let template = NSTemporaryDirectory() + prefix + "-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let created = bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("mkdtemp \(template): errno \(errno)")
        }
        path = String(cString: created)
    }

    /// Creates (or truncates) the file `name` with `contents`, in place (not
    /// renamed into place, as devtmpfs makes nodes); its path.
    @discardableResult
    public func file(_ name: String, _ contents: [UInt8]) -> String {
        let target = path + "/" + name
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(target): errno \(errno)")
        defer { close(fd) }
        var offset = 0
        while offset < contents.count {
            let n = contents.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            precondition(n > 0, "write \(target): errno \(errno)")
            offset += n
        }
        return target
    }

    @discardableResult
    public func file(_ name: String, _ contents: String = "") -> String {
        file(name, Array(contents.utf8))
    }

    public func directory(_ name: String) {
        try! FileManager.default.createDirectory(atPath: path + "/" + name, withIntermediateDirectories: true)
    }

    public func link(_ name: String, to target: String) {
        try! FileManager.default.createSymbolicLink(atPath: path + "/" + name, withDestinationPath: target)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes the directory, with whatever is left in it, when the test
    /// process exits.
    public func removeAtExit() {
        let first = directoriesToRemove.withLock { list in
            list.append(path)
            return list.count == 1
        }
        if first {
            atexit {
                for path in directoriesToRemove.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
            }
        }
    }
}

private let directoriesToRemove = Locked<[String]>([])
