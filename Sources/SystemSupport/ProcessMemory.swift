#if canImport(Glibc)
import Glibc
#endif
import CProcess

/// The daemon's memory, as the kernel hands it out.
public enum ProcessMemory {
    /// Asks the kernel for no transparent huge pages from now on. Where they
    /// are on for every process (Debian's kernels), a thread's stack or the
    /// heap sometimes got a 2 MiB page where it touches a few kilobytes, so
    /// the idle daemon's RSS moved by 2 MiB between one start and the next;
    /// it needs no large page anywhere. Call before the threads start.
    /// False when the kernel refused (older than 3.15): nothing changes.
    @discardableResult
    public static func forgoHugePages() -> Bool {
        transitiond_disable_huge_pages() == 0
    }
}
