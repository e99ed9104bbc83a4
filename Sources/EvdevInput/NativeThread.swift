#if canImport(Glibc)
import Glibc
#endif

/// A joinable POSIX thread running one closure: the input thread blocks in
/// `poll(2)`, which a cooperative task or an event loop must not do.
final class NativeThread: @unchecked Sendable {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private var thread = pthread_t()
    private var joined = false

    /// Starts `body` on a new thread.
    init(_ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// Waits for the thread to end (once).
    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
