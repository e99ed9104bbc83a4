#if canImport(Glibc)
import Glibc
#endif

/// Where a TCP listener binds: `[server] websocket = "127.0.0.1:8765"` and
/// `--websocket ADDR:PORT`. The host is an IPv4 address, `localhost` or a
/// bracketed IPv6 address (`[::1]:8765`); the port 0 to 65535 (0: the
/// kernel picks one, which the log names).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as the socket API takes it (`localhost` is `127.0.0.1`).
    public var host: String
    public var port: Int
    /// The address is IPv6 (written in brackets).
    public var isIPv6: Bool

    public init(host: String, port: Int, isIPv6: Bool = false) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    /// Only this machine can connect: 127.0.0.0/8 or `::1`.
    public var isLoopback: Bool {
        isIPv6 ? host == "::1" : host.hasPrefix("127.")
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Why a text is not an address, said as the config's and the command
    /// line's errors say it.
    public struct Problem: Error, Sendable, Equatable {
        public var message: String
    }

    /// Reads `HOST:PORT`.
    public static func parse(_ text: String) -> Result<ListenAddress, Problem> {
        let hostPart: Substring
        let portPart: Substring
        var isIPv6 = false
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                return .failure(Problem(message: "must close its IPv6 address with ']', like \"[::1]:8765\""))
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.first == ":" else {
                return .failure(Problem(message: "must give a port after the address, like \"[::1]:8765\""))
            }
            portPart = rest.dropFirst()
            isIPv6 = true
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                return .failure(Problem(message: "must be HOST:PORT, like \"127.0.0.1:8765\""))
            }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") {
                return .failure(Problem(message: "must write an IPv6 address in brackets, like \"[::1]:8765\""))
            }
        }
        guard !portPart.isEmpty, portPart.utf8.count <= 5, portPart.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let port = Int(portPart), port <= 65_535 else {
            return .failure(Problem(message: "must end with a port from 0 to 65535 (found '\(portPart)')"))
        }
        var host = String(hostPart)
        if !isIPv6 && host == "localhost" { host = "127.0.0.1" }
        guard isNumericAddress(host, ipv6: isIPv6) else {
            return .failure(Problem(message: isIPv6
                ? "'\(host)' is not an IPv6 address"
                : "'\(host)' is not an IPv4 address (or 'localhost'); a name would depend on the resolver at boot"))
        }
        return .success(ListenAddress(host: host, port: port, isIPv6: isIPv6))
    }

    private static func isNumericAddress(_ host: String, ipv6: Bool) -> Bool {
        guard !host.isEmpty, !host.utf8.contains(0) else { return false }
        var buffer = (UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &buffer) { raw in
            inet_pton(ipv6 ? AF_INET6 : AF_INET, host, raw.baseAddress) == 1
        }
    }
}

/// The values `[server] allow_origins` takes: `"*"` (any origin), `"null"`
/// (a page opened from a file), or `scheme://host[:port]` as a browser
/// sends it in `Origin:` — no path, no trailing `/`.
enum OriginRule {
    static func problem(with text: String) -> String? {
        if text == "*" || text == "null" { return nil }
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            return "must be an origin like \"http://localhost:3000\" (scheme://host[:port]), \"null\" or \"*\""
        }
        guard bytes[..<colon].allSatisfy(isSchemeByte) else { return "must start with a scheme like \"http://\"" }
        let authority = bytes[(colon + 3)...]
        if authority.isEmpty { return "must name a host after \"://\"" }
        if authority.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            return "must be scheme://host[:port] only: an origin has no path (drop the trailing '/' and anything after)"
        }
        if authority.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "must not contain spaces or control characters"
        }
        return nil
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
