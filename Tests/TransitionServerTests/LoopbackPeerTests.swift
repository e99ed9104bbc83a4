import Testing
@testable import TransitionServer

/// Who a loopback TCP peer is, read from the kernel's socket table: the
/// address forms of `/proc/net/tcp*` and the matching of both ends.
@Suite struct LoopbackPeerTests {
    let server = LoopbackPeer.Endpoint(address: [127, 0, 0, 1], port: 8765)
    let client = LoopbackPeer.Endpoint(address: [127, 0, 0, 1], port: 51_000)

    /// A table as the kernel writes it: the listener, the server's end of
    /// the connection (uid 997, the daemon) and the client's (uid 1000).
    var table: String {
        """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:223D 00000000:0000 0A 00000000:00000000 00:00000000 00000000   997        0 1001 1 0 100 0 0 10 0
           1: 0100007F:223D 0100007F:C738 01 00000000:00000000 00:00000000 00000000   997        0 1002 1 0 20 4 30 10 -1
           2: 0100007F:C738 0100007F:223D 01 00000000:00000000 00:00000000 00000000  1000        0 1003 1 0 20 4 30 10 -1
        """
    }

    @Test func endpointsAreWrittenAsTheKernelWritesThem() {
        #expect(server.procText == "0100007F:223D")
        #expect(client.procText == "0100007F:C738")
        let v6 = LoopbackPeer.Endpoint(address: Array(repeating: 0, count: 15) + [1], port: 80)
        #expect(v6.procText == "00000000000000000000000001000000:0050")
    }

    @Test func thePeersUidIsTheOneOfItsOwnEnd() {
        #expect(LoopbackPeer.uid(peer: client, local: server, table: table) == 1000)
        #expect(LoopbackPeer.uid(peer: server, local: client, table: table) == 997)
    }

    @Test func anUnknownConnectionHasNoUid() {
        let other = LoopbackPeer.Endpoint(address: [127, 0, 0, 1], port: 51_001)
        #expect(LoopbackPeer.uid(peer: other, local: server, table: table) == nil)
        #expect(LoopbackPeer.uid(peer: client, local: server, table: "") == nil)
        #expect(LoopbackPeer.uid(peer: client, local: server, table: "header\n 0: 0100007F:C738 0100007F:223D") == nil,
                "a short line is skipped")
    }

    @Test func onlyLoopbackPeersAreLookedUp() {
        #expect(LoopbackPeer.Endpoint(address: [127, 9, 9, 9], port: 1).isLoopback)
        #expect(!LoopbackPeer.Endpoint(address: [10, 0, 0, 1], port: 1).isLoopback)
        #expect(LoopbackPeer.Endpoint(address: Array(repeating: 0, count: 15) + [1], port: 1).isLoopback)
        let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1]
        #expect(LoopbackPeer.Endpoint(address: mapped, port: 1).isLoopback)
        #expect(LoopbackPeer.credentials(peer: LoopbackPeer.Endpoint(address: [192, 0, 2, 1], port: 1), local: server) == nil)
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
