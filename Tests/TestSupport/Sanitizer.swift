import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The sanitizer this test process was built with (`Tests/sanitizers/run.sh`
/// builds the suite with `--sanitize=address` or `--sanitize=thread`), found
/// by its runtime's entry point; the `transitiond` the tests run was built
/// beside them, with the same one. Nil in the ordinary build.
public enum Sanitizer: Sendable {
    case address
    case thread

    public static let current: Sanitizer? = {
        if dlsym(nil, "__asan_init") != nil { return .address }
        if dlsym(nil, "__tsan_init") != nil { return .thread }
        return nil
    }()

    /// What a `transitiond` the tests run takes of this process's
    /// environment to be checked as `Tests/sanitizers/run.sh` asks: the
    /// sanitizers' options (where reports go, suppressions), the leak check
    /// its own (`TRANSITIOND_CHILD_ASAN_OPTIONS`). Empty in the ordinary run.
    public static var childEnvironment: [String: String] {
        let environment = ProcessInfo.processInfo.environment
        var child: [String: String] = [:]
        for name in ["LSAN_OPTIONS", "TSAN_OPTIONS"] { child[name] = environment[name] }
        child["ASAN_OPTIONS"] = environment["TRANSITIOND_CHILD_ASAN_OPTIONS"]
        return child
    }
}
