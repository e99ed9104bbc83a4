#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Server

/// Who a loopback TCP peer is: the kernel's socket diagnostics asked about
/// a real connection of this process, the request's layout, and which
/// addresses count as loopback and as the listener's own origin.
@Suite struct LoopbackPeerTests {
    /// A listener on 127.0.0.1 and a connection to it from this process:
    /// the client's end and the server's (accepted) end.
    private func connectedPair(family: CInt = AF_INET) throws -> (client: LoopbackPeer.Endpoint, server: LoopbackPeer.Endpoint, close: () -> Void) {
        let listener = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        let client = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            withUnsafeBytes(of: &address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr.__in6_u.__u6_addr8.15 = 1
            withUnsafeBytes(of: &address) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 4) == 0
                    && getsockname(listener, address, &length) == 0 && connect(client, address, length) == 0
            }
        }
        try #require(ok, "a loopback connection: \(String(cString: strerror(errno)))")
        let accepted = accept(listener, nil, nil)
        try #require(accepted >= 0)
        return (endpoint(client, peer: false), endpoint(client, peer: true), {
            close(client); close(accepted); close(listener)
        })
    }

    /// `getsockname` (peer false) or `getpeername` (true) as an endpoint.
    private func endpoint(_ fd: CInt, peer: Bool) -> LoopbackPeer.Endpoint {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length) }
        }
        let family = CInt(storage.ss_family)
        return withUnsafeBytes(of: &storage) { raw in
            if family == AF_INET {
                let address = raw.load(as: sockaddr_in.self)
                return LoopbackPeer.Endpoint(address: withUnsafeBytes(of: address.sin_addr) { Array($0) },
                                             port: UInt16(bigEndian: address.sin_port))
            }
            let address = raw.load(as: sockaddr_in6.self)
            return LoopbackPeer.Endpoint(address: withUnsafeBytes(of: address.sin6_addr) { Array($0) },
                                         port: UInt16(bigEndian: address.sin6_port))
        }
    }

    @Test(arguments: [AF_INET, AF_INET6])
    func theKernelNamesTheOwnerOfARealConnection(family: CInt) throws {
        let pair = try connectedPair(family: family)
        defer { pair.close() }
        let credentials = LoopbackPeer.credentials(peer: pair.client, local: pair.server)
        #expect(credentials?.uid == getuid(), "the test process owns the connecting socket")
        #expect(credentials?.pid == 0, "a TCP peer's process is not known")
        // The other way round is the accepted socket, also ours; an end
        // that is not connected is nobody's.
        #expect(SocketDiagnostics.owner(source: pair.server, destination: pair.client) == getuid())
        var wrong = pair.client
        wrong.port = wrong.port &+ 1
        #expect(LoopbackPeer.credentials(peer: wrong, local: pair.server) == nil)
    }

    @Test func anIPv4MappedPeerIsLookedUpAsIPv4() throws {
        let pair = try connectedPair(family: AF_INET)
        defer { pair.close() }
        func mapped(_ e: LoopbackPeer.Endpoint) -> LoopbackPeer.Endpoint {
            LoopbackPeer.Endpoint(address: Array(repeating: 0, count: 10) + [0xFF, 0xFF] + e.address, port: e.port)
        }
        #expect(mapped(pair.client).unmapped == pair.client)
        #expect(LoopbackPeer.credentials(peer: mapped(pair.client), local: mapped(pair.server))?.uid == getuid(),
                "as a dual-stack listener sees an IPv4 client")
    }

    @Test func theRequestIsTheKernelsLayout() {
        let source = LoopbackPeer.Endpoint(address: [127, 0, 0, 1], port: 0xC738)
        let destination = LoopbackPeer.Endpoint(address: [127, 0, 0, 1], port: 8765)
        let bytes = SocketDiagnostics.request(source: source, destination: destination)
        #expect(bytes.count == 16 + 56, "nlmsghdr + inet_diag_req_v2")
        #expect(bytes[0] == 72 && bytes[4] == 20, "length, SOCK_DIAG_BY_FAMILY")
        #expect(bytes[16] == UInt8(AF_INET) && bytes[17] == UInt8(IPPROTO_TCP))
        #expect(Array(bytes[24..<28]) == [0xC7, 0x38, 0x22, 0x3D], "ports in network order")
        #expect(Array(bytes[28..<32]) == [127, 0, 0, 1] && Array(bytes[44..<48]) == [127, 0, 0, 1])
        #expect(Array(bytes[64..<72]) == Array(repeating: 0xFF, count: 8), "no cookie")
        #expect(SocketDiagnostics.uid(inAnswer: Array(bytes.prefix(40))) == nil, "too short")
    }

    @Test func onlyLoopbackPeersAreLookedUp() {
        #expect(LoopbackPeer.Endpoint(address: [127, 9, 9, 9], port: 1).isLoopback)
        #expect(!LoopbackPeer.Endpoint(address: [10, 0, 0, 1], port: 1).isLoopback)
        #expect(LoopbackPeer.Endpoint(address: Array(repeating: 0, count: 15) + [1], port: 1).isLoopback)
        let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1]
        #expect(LoopbackPeer.Endpoint(address: mapped, port: 1).isLoopback)
        let server = LoopbackPeer.Endpoint(address: [192, 0, 2, 2], port: 1)
        #expect(LoopbackPeer.credentials(peer: LoopbackPeer.Endpoint(address: [192, 0, 2, 1], port: 1), local: server) == nil)
        #expect(TransitionServer.isLoopbackAddress("127.0.0.1") && TransitionServer.isLoopbackAddress("::1"))
        #expect(TransitionServer.isLoopbackAddress("0:0:0:0:0:0:0:1"))
        #expect(!TransitionServer.isLoopbackAddress("0.0.0.0") && !TransitionServer.isLoopbackAddress("::"))
    }

    /// The listener's own origin is an address with its port, never a name
    /// (a re-pointed name sends itself as both Host and Origin).
    @Test func theOwnOriginIsAnAddressAndThePort() {
        #expect(TransitionServer.isAddressAuthority("127.0.0.1:8765", port: 8765))
        #expect(TransitionServer.isAddressAuthority("[::1]:8765", port: 8765))
        #expect(TransitionServer.isAddressAuthority("localhost:8765", port: 8765))
        #expect(TransitionServer.isAddressAuthority("192.168.1.20:8765", port: 8765), "a kiosk reached by its address")
        #expect(!TransitionServer.isAddressAuthority("evil.example:8765", port: 8765))
        #expect(!TransitionServer.isAddressAuthority("127.0.0.1:9999", port: 8765))
        #expect(!TransitionServer.isAddressAuthority("127.0.0.1", port: 8765))
    }

    @Test func aUidGetsItsGroupsFromTheUserDatabase() {
        let root = LoopbackPeer.userCredentials(uid: 0)
        #expect(root.uid == 0 && root.gid == 0 && root.pid == 0)
        #expect(root.groups.contains(0))
        #expect(root.description == "uid 0")
        let nobody = LoopbackPeer.userCredentials(uid: 4_000_000_000)
        #expect(nobody.gid == UInt32.max && nobody.groups.isEmpty, "no such user: no group")
    }
}
