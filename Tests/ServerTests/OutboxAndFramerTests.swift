import NIOCore
import Testing
import WireProtocol
@testable import ServerCore

private func line(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
private func text(_ b: ByteBuffer?) -> String? { b.map { String(buffer: $0) } }

@Suite("Client outbox (back-pressure)")
struct ClientOutboxTests {
    @Test func writesAtOnceWhileWritableAndEmpty() {
        var box = ClientOutbox(backlogLimit: 1000)
        #expect(box.enqueue(line("a"), .coalescible(transition: 0), writable: true) == .write(line("a")))
        #expect(box.isEmpty)
    }

    @Test func coalescesChangedPerTransitionKeepingOrder() {
        var box = ClientOutbox(backlogLimit: 1000)
        #expect(box.enqueue(line("c0-1"), .coalescible(transition: 0), writable: false) == .queued)
        _ = box.enqueue(line("c1-1"), .coalescible(transition: 1), writable: false)
        _ = box.enqueue(line("c0-2"), .coalescible(transition: 0), writable: false)
        _ = box.enqueue(line("c0-3"), .coalescible(transition: 0), writable: false)
        var out: [String] = []
        while let l = box.next() { out.append(String(buffer: l)) }
        // The newest of transition 0 only, after transition 1's (seq order kept).
        #expect(out == ["c1-1", "c0-3"])
        #expect(box.coalesced == 2)
        #expect(box.isEmpty)
    }

    @Test func essentialLinesAreNeverDroppedNorJumped() {
        var box = ClientOutbox(backlogLimit: 1000)
        _ = box.enqueue(line("changed"), .coalescible(transition: 0), writable: false)
        _ = box.enqueue(line("ended"), .essential(transition: 0), writable: false)
        _ = box.enqueue(line("animating-1"), .coalescible(transition: 0), writable: false)
        _ = box.enqueue(line("animating-2"), .coalescible(transition: 0), writable: false)
        _ = box.enqueue(line("finished"), .essential(transition: 0), writable: false)
        var out: [String] = []
        while let l = box.next() { out.append(String(buffer: l)) }
        #expect(out == ["changed", "ended", "animating-2", "finished"])
    }

    @Test func queuedLinesGoFirstEvenWhenWritableAgain() {
        var box = ClientOutbox(backlogLimit: 1000)
        _ = box.enqueue(line("1"), .essential(transition: nil), writable: false)
        #expect(box.enqueue(line("2"), .essential(transition: nil), writable: true) == .queued)
        #expect(text(box.next()) == "1")
        #expect(text(box.next()) == "2")
        #expect(box.next() == nil)
    }

    @Test func overflowPastTheBacklog() {
        var box = ClientOutbox(backlogLimit: 10)
        #expect(box.enqueue(line("123456"), .essential(transition: 0), writable: false) == .queued)
        #expect(box.enqueue(line("123456"), .essential(transition: 0), writable: false) == .overflow)
        // Coalescing keeps a stalled client under the limit when only changes pile up.
        var steady = ClientOutbox(backlogLimit: 10)
        for _ in 0..<1000 {
            #expect(steady.enqueue(line("123456"), .coalescible(transition: 0), writable: false) == .queued)
        }
        #expect(steady.pendingBytes == 6)
    }

    /// The soak found it (bench/soak.sh): a client that stopped reading kept
    /// an entry, and its line, for every `changed` coalesced away, so the
    /// daemon's memory grew with the length of the stall, not the backlog.
    @Test func aStalledClientHoldsWhatItsBacklogHoldsNotWhatItWasSent() {
        var box = ClientOutbox(backlogLimit: 1 << 20)
        var expected: [String] = []
        var most = 0
        for n in 0..<200_000 {
            // Two transitions' changes interleaved, and now and then a
            // line that is never dropped.
            let t = n % 2
            if n % 10_000 == 0 {
                #expect(box.enqueue(line("began-\(n)"), .essential(transition: t), writable: false) == .queued)
                expected.append("began-\(n)")
            }
            #expect(box.enqueue(line("changed-\(n)"), .coalescible(transition: t), writable: false) == .queued)
            most = max(most, box.storedEntries)
        }
        // Without the sweep it held all 200,000.
        #expect(most <= 2 * ClientOutbox.sweepFloor + 64)
        expected += ["changed-199998", "changed-199999"]
        var out: [String] = []
        while let l = box.next() { out.append(String(buffer: l)) }
        // After the sweeps, what is left is the same, in the same order:
        // every essential line, and the newest change of each transition
        // after the last essential line of its transition.
        let began = expected.filter { $0.hasPrefix("began") }
        #expect(out.filter { $0.hasPrefix("began") } == began)
        #expect(out.suffix(2) == ["changed-199998", "changed-199999"])
        #expect(box.isEmpty && box.pendingBytes == 0 && box.storedEntries == 0)
        #expect(box.coalesced == 200_000 - (out.count - began.count))
    }

    @Test func sweepingKeepsSeqOrderAcrossTransitions() {
        var box = ClientOutbox(backlogLimit: 1 << 20)
        // Transition 0 changes many times; transition 1's essential line
        // sits in between and must stay before transition 0's newest line.
        for n in 0..<3000 { _ = box.enqueue(line("c0-\(n)"), .coalescible(transition: 0), writable: false) }
        _ = box.enqueue(line("e1"), .essential(transition: 1), writable: false)
        for n in 3000..<6000 { _ = box.enqueue(line("c0-\(n)"), .coalescible(transition: 0), writable: false) }
        _ = box.enqueue(line("c1"), .coalescible(transition: 1), writable: false)
        _ = box.enqueue(line("c1b"), .coalescible(transition: 1), writable: false)
        var out: [String] = []
        while let l = box.next() { out.append(String(buffer: l)) }
        #expect(out == ["e1", "c0-5999", "c1b"])
        #expect(box.coalesced == 6000 - 1 + 1)
    }
}

@Suite("Line framing")
struct LineFramerTests {
    @Test func splitsAcrossChunks() {
        var f = LineFramer(limit: 100)
        #expect(f.feed(Array("{\"cmd\":".utf8)) == [])
        #expect(f.feed(Array("\"ping\"}\r\n{}\n".utf8)) == [.line(Array("{\"cmd\":\"ping\"}".utf8)), .line(Array("{}".utf8))])
        #expect(f.unfinished == 0)
    }

    @Test func tooLongOnce() {
        var f = LineFramer(limit: 8)
        #expect(f.feed(Array("123456789".utf8)) == [.tooLong])
        #expect(f.feed(Array("\n".utf8)) == [])
        var g = LineFramer(limit: 8)
        #expect(g.feed(Array("12345678\n".utf8)) == [.line(Array("12345678".utf8))])
    }
}

@Suite("Command decoding")
struct CommandDecoderTests {
    func decode(_ s: String) -> Result<(ClientCommand, RequestID?), CommandError> { CommandDecoder.decode(Array(s.utf8)) }
    func code(_ s: String) -> String? {
        if case .failure(let e) = decode(s) { return e.code.rawValue }
        return nil
    }

    @Test func commands() throws {
        #expect(try decode(#"{"cmd":"ping","id":7}"#).get() == (.ping, .number(7)))
        #expect(try decode(#"{"cmd":"subscribe","transitions":["back"]}"#).get().0 == .subscribe(transitions: ["back"]))
        #expect(try decode(#"{"cmd":"subscribe"}"#).get().0 == .subscribe(transitions: []))
        #expect(try decode(#"{"cmd":"run","transition":"home","to":"finish"}"#).get().0 == .run(transition: "home", to: .finish))
        #expect(try decode(#"{"cmd":"drive","transition":"back","progress":0.4}"#).get().0 == .drive(transition: "back", progress: 0.4))
        #expect(try decode(#"{"cmd":"release","transition":"back","velocity":-1.5}"#).get().0 == .release(transition: "back", velocity: -1.5))
        #expect(try decode(#"{"cmd":"release","transition":"back"}"#).get().0 == .release(transition: "back", velocity: nil))
        #expect(try decode(#"{"cmd":"cancel","transition":"back","id":"x"}"#).get() == (.cancel(transition: "back"), .text("x")))
    }

    @Test func errors() throws {
        #expect(code("not json") == "bad-json")
        #expect(code("[1,2]") == "bad-json")
        #expect(CommandDecoder.decode([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]).failureCode == "bad-utf8")
        #expect(code(#"{"cmd":"fly"}"#) == "unknown-command")
        #expect(code(#"{"cmd":42}"#) == "bad-field")
        #expect(code(#"{"nothing":1}"#) == "bad-field")
        #expect(code(#"{"cmd":"drive","transition":"back","progress":"half"}"#) == "bad-field")
        #expect(code(#"{"cmd":"drive","progress":0.5}"#) == "bad-field")
        #expect(code(#"{"cmd":"run","transition":"back","to":"maybe"}"#) == "bad-field")
        // A snap point: a number from 0 to 1, or an index; never both, never the decision "snap".
        for line in [#"{"cmd":"run","transition":"c","to":"snap"}"#, #"{"cmd":"run","transition":"c","to":1.5}"#,
                     #"{"cmd":"run","transition":"c","to":-0.1}"#, #"{"cmd":"run","transition":"c","index":-1}"#,
                     #"{"cmd":"run","transition":"c","index":1.5}"#, #"{"cmd":"run","transition":"c","index":"2"}"#,
                     #"{"cmd":"run","transition":"c","to":0.5,"index":1}"#, #"{"cmd":"run","transition":"c"}"#] {
            #expect(code(line) == "bad-field", "\(line)")
        }
        #expect(try decode(#"{"cmd":"run","transition":"c","to":0.5}"#).get().0 == .run(transition: "c", to: .point(0.5)))
        #expect(try decode(#"{"cmd":"run","transition":"c","index":2}"#).get().0 == .run(transition: "c", to: .index(2)))
        #expect(code(#"{"cmd":"subscribe","transitions":"back"}"#) == "bad-field")
        #expect(code(#"{"cmd":"ping","id":[1]}"#) == "bad-field")
    }

    /// Issue 26: an id past ±2⁵³ read as the nearest double (2⁵³ + 1 as
    /// 2⁵³) and was echoed so, rounded. Integer ids are ±(2⁵³ − 1) at most.
    @Test func anIdBeyondTwoToTheFiftyThreeIsRefusedNotRounded() throws {
        for line in [#"{"cmd":"ping","id":9007199254740993}"#, #"{"cmd":"ping","id":9007199254740992}"#,
                     #"{"cmd":"ping","id":-9007199254740993}"#, #"{"cmd":"ping","id":1e300}"#] {
            guard case .failure(let e) = decode(line) else {
                Issue.record("accepted: \(line)")
                continue
            }
            #expect(e.code == .badField)
            #expect(e.message.contains("9007199254740991") && e.message.contains("string"), "\(e.message)")
            #expect(e.cmd == "ping")
        }
        #expect(try decode(#"{"cmd":"ping","id":9007199254740991}"#).get().1 == .number(9_007_199_254_740_991))
        #expect(try decode(#"{"cmd":"ping","id":-9007199254740991}"#).get().1 == .number(-9_007_199_254_740_991))
        #expect(try decode(#"{"cmd":"ping","id":7.0}"#).get().1 == .number(7))
        #expect(code(#"{"cmd":"ping","id":7.5}"#) == "bad-field")
    }

    /// An error says which command it answers: the `cmd` (when it was a
    /// string) as well as the id.
    @Test func errorsCarryTheCommandsNameAndId() {
        guard case .failure(let e) = decode(#"{"cmd":"drive","id":3,"transition":"back","progress":2}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(e.cmd == "drive" && e.id == .number(3))
        if case .failure(let e) = decode(#"{"cmd":"fly","id":"a"}"#) { #expect(e.cmd == "fly" && e.id == .text("a")) }
        if case .failure(let e) = decode(#"{"cmd":42,"id":1}"#) { #expect(e.cmd == nil && e.id == .number(1)) }
        #expect(String(buffer: ReplyLines.error(.badField, "no", cmd: "drive", id: .number(3)))
                == #"{"type":"error","code":"bad-field","message":"no","cmd":"drive","id":3}"# + "\n")
        #expect(String(buffer: ReplyLines.error(.backlog, "no", id: nil)) == #"{"type":"error","code":"backlog","message":"no"}"# + "\n")
    }
}

private extension Result where Success == (ClientCommand, RequestID?), Failure == CommandError {
    var failureCode: String? {
        if case .failure(let e) = self { return e.code.rawValue }
        return nil
    }
}
