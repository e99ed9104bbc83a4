#if canImport(Glibc)
import Glibc
#endif

/// Sockets passed by a service manager (systemd's socket activation,
/// `sd_listen_fds(3)`): `LISTEN_PID` names this process, `LISTEN_FDS` counts
/// descriptors from 3, `LISTEN_FDNAMES` names them (colon-separated; a
/// socket unit's `FileDescriptorName=`, else the unit's name).
public struct SocketActivation: Sendable, Equatable {
    /// One passed descriptor and its name.
    public struct Socket: Sendable, Equatable {
        public var descriptor: CInt
        public var name: String
        public init(descriptor: CInt, name: String) {
            self.descriptor = descriptor
            self.name = name
        }
    }

    /// The first descriptor passed (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: CInt = 3

    public var sockets: [Socket]

    public init(sockets: [Socket]) {
        self.sockets = sockets
    }

    /// Why the activation variables cannot be used.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// What the environment passes to this process: nil when there is
    /// nothing (`LISTEN_PID` unset, or another process's — the variables
    /// were inherited, not meant for us). Reads only; `adopt` takes them.
    public static func parse(environment: [String: String], pid: pid_t) throws(Failure) -> SocketActivation? {
        guard let pidText = environment["LISTEN_PID"] else { return nil }
        guard let listenPID = pid_t(pidText), listenPID > 0 else {
            throw Failure(message: "LISTEN_PID is not a process id: '\(pidText)'")
        }
        guard listenPID == pid else { return nil }
        guard let countText = environment["LISTEN_FDS"], let count = Int(countText), count >= 0, count <= 1024 else {
            throw Failure(message: "LISTEN_FDS is not a count of descriptors: '\(environment["LISTEN_FDS"] ?? "")'")
        }
        var names: [String] = []
        if let namesText = environment["LISTEN_FDNAMES"] {
            names = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard names.count == count else {
                throw Failure(message: "LISTEN_FDNAMES names \(names.count) descriptors but LISTEN_FDS is \(count)")
            }
        }
        let sockets = (0..<count).map { i in
            Socket(descriptor: firstDescriptor + CInt(i), name: names.isEmpty ? "unknown" : names[i])
        }
        return SocketActivation(sockets: sockets)
    }

    /// Takes the passed sockets, if any, for this process: sets
    /// close-on-exec on each and unsets the variables, so that nothing we
    /// start inherits them.
    public static func adopt() throws(Failure) -> SocketActivation? {
        var environment: [String: String] = [:]
        for key in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
            if let value = getenv(key) { environment[key] = String(cString: value) }
        }
        defer { for key in environment.keys { unsetenv(key) } }
        guard let activation = try parse(environment: environment, pid: getpid()) else { return nil }
        for socket in activation.sockets {
            let flags = fcntl(socket.descriptor, F_GETFD)
            guard flags >= 0, fcntl(socket.descriptor, F_SETFD, flags | FD_CLOEXEC) == 0 else {
                throw Failure(message: "passed descriptor \(socket.descriptor) (\(socket.name)) is not open: \(String(cString: strerror(errno)))")
            }
        }
        return activation
    }

    /// The passed listening Unix stream socket to serve: the one named
    /// `name` when several are passed, else the only Unix stream socket.
    public func unixListener(named name: String) throws(Failure) -> Socket? {
        let candidates = sockets.filter { Self.isListeningUnixStream($0.descriptor) }
        if let named = candidates.first(where: { $0.name == name }) { return named }
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty {
            if sockets.isEmpty { return nil }
            throw Failure(message: "none of the passed descriptors (\(sockets.map(\.name).joined(separator: ", "))) is a listening Unix stream socket")
        }
        throw Failure(message: "several listening Unix sockets were passed (\(candidates.map(\.name).joined(separator: ", "))) and none is named '\(name)'")
    }

    /// The passed listening TCP socket for the WebSocket transport: the one
    /// named `name` when several are passed, else the only one; nil if none.
    /// Sockets named in `reserved` (another listener's, such as `metrics`)
    /// are never taken as "the only one".
    public func tcpListener(named name: String, reserved: Set<String> = []) throws(Failure) -> Socket? {
        let candidates = sockets.filter {
            Self.isListeningStream($0.descriptor, domains: [AF_INET, AF_INET6]) && ($0.name == name || !reserved.contains($0.name))
        }
        if let named = candidates.first(where: { $0.name == name }) { return named }
        if candidates.count <= 1 { return candidates.first }
        throw Failure(message: "several listening TCP sockets were passed (\(candidates.map(\.name).joined(separator: ", "))) and none is named '\(name)'")
    }

    /// The passed listening TCP socket named exactly `name`, nil if none.
    public func namedTCPListener(_ name: String) -> Socket? {
        sockets.first { $0.name == name && Self.isListeningStream($0.descriptor, domains: [AF_INET, AF_INET6]) }
    }

    /// Whether `fd` is a listening `AF_UNIX` `SOCK_STREAM` socket.
    public static func isListeningUnixStream(_ fd: CInt) -> Bool {
        isListeningStream(fd, domains: [AF_UNIX])
    }

    /// Whether `fd` is a listening `SOCK_STREAM` socket of one of `domains`.
    static func isListeningStream(_ fd: CInt, domains: [CInt]) -> Bool {
        func option(_ name: CInt) -> CInt? {
            var value: CInt = 0
            var length = socklen_t(MemoryLayout<CInt>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard let domain = option(SO_DOMAIN), domains.contains(domain) else { return false }
        return option(SO_TYPE) == CInt(SOCK_STREAM.rawValue) && option(SO_ACCEPTCONN) == 1
    }

    /// The address and port a TCP socket is bound to (numeric host).
    public static func boundAddress(_ fd: CInt) -> (host: String, port: Int) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return ("0.0.0.0", 0) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch CInt(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &storage) { raw in
                var address = raw.load(as: sockaddr_in.self)
                inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
                return (String(cString: text), Int(UInt16(bigEndian: address.sin_port)))
            }
        case AF_INET6:
            return withUnsafeBytes(of: &storage) { raw in
                var address = raw.load(as: sockaddr_in6.self)
                inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
                return (String(cString: text), Int(UInt16(bigEndian: address.sin6_port)))
            }
        default:
            return ("0.0.0.0", 0)
        }
    }

    /// The path a Unix socket is bound to ("" if unnamed or abstract).
    public static func boundPath(_ fd: CInt) -> String {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return "" }
        return withUnsafeBytes(of: address.sun_path) { raw in
            let bytes = raw.prefix(max(0, Int(length) - MemoryLayout<sa_family_t>.size))
            guard let first = bytes.first, first != 0 else { return "" }
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
