import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Waits for an event instead of sleeping and hoping: polls `condition`
/// every `interval` seconds until it holds (true) or `timeout` seconds have
/// passed (false, after one last look).
@discardableResult
public func waitUntil(timeout: Double = 10, pollingEvery interval: Double = 0.01,
                      _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(timeout, 0) * 1e9)
    while true {
        if try condition() { return true }
        if DispatchTime.now().uptimeNanoseconds >= deadline { return false }
        usleep(useconds_t(max(interval, 0.000_1) * 1e6))
    }
}
