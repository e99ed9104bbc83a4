#if canImport(Glibc)
import Glibc
#endif

/// A value that threads share behind a POSIX mutex: the project's one way
/// to lock. Not the standard library's `Synchronization.Mutex`: on Linux
/// its contended path (a spin, then a priority-inheriting futex, in the
/// uninstrumented standard library and the kernel) is invisible to
/// ThreadSanitizer, which then reports every value it guards as raced
/// whenever two threads meet at the lock. `pthread_mutex_lock` is one the
/// sanitizer intercepts, so it checks what this lock guards instead.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` on the value with the lock held (never call back in:
    /// the lock is not recursive).
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
