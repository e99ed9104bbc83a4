#if canImport(Glibc)
import Glibc
#endif

/// A fresh Unix socket path, `<tmp>/tdsock-XXXXXX/<name>.sock`, in a
/// temporary directory of its own that only this process may write to. The
/// directory is mode 0755 so that a client running as another user (a test's
/// `runuser -u nobody`) can reach the socket; the socket's own mode decides
/// who may connect. Nothing is at the path yet. Short enough for `sun_path`
/// (107 bytes) under the usual `/tmp`. The directory is removed when the
/// test process exits.
public func temporarySocketPath(_ name: String = "t") -> String {
    let directory = TemporaryDirectory(prefix: "tdsock")
    chmod(directory.path, 0o755)
    directory.removeAtExit()
    return directory.path + "/" + name + ".sock"
}
