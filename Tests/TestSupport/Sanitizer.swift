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
}
