/// Where the daemon's socket is (design "Socket"): `--socket PATH`, else
/// `$TRANSITIOND_SOCKET`, else `$XDG_RUNTIME_DIR/transitiond.sock`, else
/// `/run/transitiond/transitiond.sock`. Shared by the server and clients.
public enum SocketLocation {
    public static let systemPath = "/run/transitiond/transitiond.sock"

    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["TRANSITIOND_SOCKET"], !path.isEmpty { return path }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime.hasSuffix("/") ? runtime + "transitiond.sock" : runtime + "/transitiond.sock"
        }
        return systemPath
    }
}
