/// The files the daemon serves over HTTP beside its WebSocket, compiled
/// into the binary so that it can be copied anywhere: the demo kiosk page
/// (`clients/demo/index.html`) and the JavaScript client with its type
/// declarations (`clients/js/`). The files in `Sources/Server/` are
/// links to those, so there is one copy of each.
public enum BundledPages {
    /// A file and the URL path it is served at.
    public struct File: Sendable {
        public var path: String
        public var contentType: String
        public var body: [UInt8]
    }

    public static let files: [File] = [
        File(path: "/", contentType: "text/html; charset=utf-8", body: PackageResources.index_html),
        File(path: "/index.html", contentType: "text/html; charset=utf-8", body: PackageResources.index_html),
        File(path: "/transitiond.js", contentType: "text/javascript; charset=utf-8",
             body: PackageResources.transitiond_js),
        File(path: "/transitiond.d.ts", contentType: "application/typescript; charset=utf-8",
             body: PackageResources.transitiond_d_ts),
    ]
}
