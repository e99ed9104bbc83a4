#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread running one closure: the project's one way to start a
/// thread, for work that blocks (an input device or the listening socket
/// in `poll(2)`, signals, `replay --fast`'s writer), which an event loop or
/// a cooperative task must not do. Joinable, or detached when nobody waits
/// for its end.
public final class NativeThread: @unchecked Sendable {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private var thread = pthread_t()
    private var joined = false
    private let detached: Bool

    /// Starts `body` on a new thread; `name` says what for, in an error.
    /// Throws if the system has no thread to give.
    public init(name: String, detached: Bool = false, _ body: @escaping () -> Void) throws(SystemError) {
        self.detached = detached
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw SystemError("cannot start a thread for \(name)", errno: rc)
        }
        if detached { pthread_detach(thread) }
    }

    /// Waits for the thread to end (once; not for a detached thread).
    public func join() {
        guard !joined, !detached else { return }
        joined = true
        pthread_join(thread, nil)
    }
}

/// A system call that failed: what was being done and `strerror(errno)`.
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public var what: String
    public var errno: Int32

    public init(_ what: String, errno: Int32) {
        self.what = what
        self.errno = errno
    }

    public var description: String { "\(what): \(String(cString: strerror(errno)))" }
}
