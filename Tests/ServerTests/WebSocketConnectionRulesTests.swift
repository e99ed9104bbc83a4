import NIOCore
import NIOWebSocket
import Testing
@testable import Server

// The rules as a value: frames in, actions out (RFC 6455; issue 26).

/// A client's frame (masked, as a client's must be). The key is random in
/// a real client; here a fixed one, so the payload on the wire differs
/// from `payload` and the rules must unmask it.
private func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, masked: Bool = true,
                   rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false) -> WebSocketFrame {
    let key: WebSocketMaskingKey = [0x37, 0xFA, 0x21, 0x3D]
    var data = ByteBuffer(bytes: payload)
    if masked { data.webSocketMask(key) }
    return WebSocketFrame(fin: fin, rsv1: rsv1, rsv2: rsv2, rsv3: rsv3, opcode: opcode,
                          maskKey: masked ? key : nil, data: data)
}

private func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
    frame(opcode, Array(text.utf8), fin: fin)
}

private func closePayload(_ code: UInt16, _ reason: [UInt8] = []) -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + reason
}

private func text(_ s: String) -> WebSocketConnectionRules.Action { .deliver(.text(ByteBuffer(string: s))) }
private func close(_ code: Int) -> WebSocketConnectionRules.Action { .close(WebSocketErrorCode(codeNumber: code)) }

private func rules(limit: Int = 64 * 1024, binary: WebSocketConnectionRules.BinaryMessages = .refuse)
    -> WebSocketConnectionRules {
    WebSocketConnectionRules(maxMessageSize: limit, binaryMessages: binary)
}

@Suite("WebSocket rules: messages and fragments")
struct WebSocketFragmentRulesTests {
    @Test func aOneFrameTextMessageIsDelivered() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "{\"cmd\":\"ping\"}")) == text("{\"cmd\":\"ping\"}"))
        #expect(r.isOpen)
    }

    @Test func anEmptyTextMessageIsDelivered() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "")) == text(""))
    }

    /// The regression of issue 26 (a): the joined message used to lose the
    /// mask and be closed with 1002.
    @Test func fragmentsAreJoinedIntoOneMessage() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "{\"cmd\":", fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, "\"ping\"", fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, "", fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, "}")) == text("{\"cmd\":\"ping\"}"))
        // and the next message starts afresh
        #expect(r.frameReceived(frame(.text, "x")) == text("x"))
    }

    @Test func controlFramesBetweenFragmentsAreAnswered() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "ab", fin: false)) == .none)
        #expect(r.frameReceived(frame(.ping, "p1")) == .pong(ByteBuffer(string: "p1")))
        r.pongWritten()
        #expect(r.frameReceived(frame(.pong, "unsolicited")) == .none)
        #expect(r.frameReceived(frame(.continuation, "cd")) == text("abcd"))
    }

    @Test func aCloseBetweenFragmentsIsAnsweredAndDropsTheMessage() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "ab", fin: false)) == .none)
        #expect(r.frameReceived(frame(.connectionClose, closePayload(1000))) == close(1000))
        #expect(r.frameReceived(frame(.continuation, "cd")) == .none)
        #expect(!r.isOpen)
    }

    @Test func aContinuationWithoutAStartIs1002() {
        var r = rules()
        #expect(r.frameReceived(frame(.continuation, "x")) == close(1002))
        var unfinished = rules()
        #expect(unfinished.frameReceived(frame(.continuation, "x", fin: false)) == close(1002))
    }

    @Test func aContinuationAfterAWholeMessageIs1002() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "a")) == text("a"))
        #expect(r.frameReceived(frame(.continuation, "b")) == close(1002))
    }

    @Test func aNewMessageWhileOneIsOpenIs1002() {
        for opcode: WebSocketOpcode in [.text, .binary] {
            for fin in [true, false] {
                var r = rules(binary: .accept)
                #expect(r.frameReceived(frame(.text, "a", fin: false)) == .none)
                #expect(r.frameReceived(frame(opcode, "b", fin: fin)) == close(1002))
            }
        }
    }

    @Test func aBinaryMessageIs1003AtItsFirstFrame() {
        var r = rules()
        #expect(r.frameReceived(frame(.binary, [1, 2, 3], fin: false)) == close(1003))
        #expect(r.frameReceived(frame(.continuation, [4])) == .none)
        var whole = rules()
        #expect(whole.frameReceived(frame(.binary, [1])) == close(1003))
    }

    @Test func binaryMessagesAreJoinedWhenAccepted() {
        var r = rules(binary: .accept)
        #expect(r.frameReceived(frame(.binary, [0xFF, 0x00], fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, [0xC0])) == .deliver(.binary(ByteBuffer(bytes: [0xFF, 0x00, 0xC0]))))
    }

    @Test func aMessageOverTheLimitIs1009EvenInFragments() {
        var r = rules(limit: 8)
        #expect(r.frameReceived(frame(.text, "1234", fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, "5678", fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, "9")) == close(1009))
        var exact = rules(limit: 8)
        #expect(exact.frameReceived(frame(.text, "1234", fin: false)) == .none)
        #expect(exact.frameReceived(frame(.continuation, "5678")) == text("12345678"))
        var one = rules(limit: 8)
        #expect(one.frameReceived(frame(.text, "123456789")) == close(1009))
    }

    /// Thousands of fragments are fine (Autobahn's 9.3.1 sends 65,536): a
    /// fragment costs its header in bytes, and the size limit bounds memory.
    @Test func manySmallFragmentsAreOneMessage() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "", fin: false)) == .none)
        for _ in 0..<10_000 { #expect(r.frameReceived(frame(.continuation, "a", fin: false)) == .none) }
        #expect(r.frameReceived(frame(.continuation, "")) == text(String(repeating: "a", count: 10_000)))
    }
}

@Suite("WebSocket rules: framing errors")
struct WebSocketFramingRulesTests {
    @Test func anUnmaskedFrameIs1002() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, Array("{}".utf8), masked: false)) == close(1002))
    }

    @Test func anUnmaskedFragmentIs1002() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, "a", fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, Array("b".utf8), masked: false)) == close(1002))
    }

    @Test func aReservedBitIs1002() {
        for bits in [(true, false, false), (false, true, false), (false, false, true)] {
            var r = rules()
            #expect(r.frameReceived(frame(.text, Array("a".utf8), rsv1: bits.0, rsv2: bits.1, rsv3: bits.2)) == close(1002))
        }
        var onPing = rules()
        #expect(onPing.frameReceived(frame(.ping, [], rsv3: true)) == close(1002))
    }

    @Test func aReservedOpcodeIs1002() {
        for raw: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            var r = rules()
            #expect(r.frameReceived(frame(WebSocketOpcode(encodedWebSocketOpcode: raw)!, [])) == close(1002))
        }
    }

    @Test func aFragmentedOrLongControlFrameIs1002() {
        for opcode: WebSocketOpcode in [.ping, .pong, .connectionClose] {
            var fragmented = rules()
            #expect(fragmented.frameReceived(frame(opcode, [], fin: false)) == close(1002))
            var long = rules()
            #expect(long.frameReceived(frame(opcode, [UInt8](repeating: 0x61, count: 126))) == close(1002))
        }
        var longest = rules()
        #expect(longest.frameReceived(frame(.ping, [UInt8](repeating: 0x61, count: 125)))
            == .pong(ByteBuffer(repeating: 0x61, count: 125)))
    }

    @Test func theDecodersErrorsHaveTheirCodes() {
        var long = rules()
        #expect(long.decodingFailed(.invalidFrameLength) == close(1009))
        var fragmented = rules()
        #expect(fragmented.decodingFailed(.fragmentedControlFrame) == close(1002))
        var multiByte = rules()
        #expect(multiByte.decodingFailed(.multiByteControlFrameLength) == close(1002))
        #expect(multiByte.decodingFailed(.invalidFrameLength) == .none)   // one close only
    }

    @Test func framesAfterTheCloseAreIgnored() {
        var r = rules()
        #expect(r.frameReceived(frame(.binary, [1])) == close(1003))
        #expect(r.frameReceived(frame(.text, "a")) == .none)
        #expect(r.frameReceived(frame(.ping, "a")) == .none)
        #expect(r.frameReceived(frame(.connectionClose, [])) == .none)
        #expect(r.failConnection(.goingAway) == .none)
        #expect(r.applicationCloses(frameCanGo: true) == .closeNow)
    }
}

@Suite("WebSocket rules: UTF-8")
struct WebSocketUTF8RulesTests {
    @Test func invalidTextIs1007() {
        for bad: [UInt8] in [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80]] {
            var r = rules()
            #expect(r.frameReceived(frame(.text, Array("ok".utf8) + bad)) == close(1007))
        }
    }

    @Test func aTextEndingInsideACharacterIs1007() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, [0x61, 0xE2, 0x82])) == close(1007))
    }

    /// Fail fast: the fragment that makes the message invalid fails it
    /// (Autobahn 6.4), not its end.
    @Test func theFragmentThatMakesTextInvalidFailsIt() {
        var r = rules()
        #expect(r.frameReceived(frame(.text, [0xCE, 0xBA, 0xE1, 0xBD, 0xB9], fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, [0xF4, 0x90, 0x80, 0x80], fin: false)) == close(1007))
    }

    @Test func aCharacterMaySpanFragments() {
        var r = rules()
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        #expect(r.frameReceived(frame(.text, [0x61, euro[0]], fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, [euro[1]], fin: false)) == .none)
        #expect(r.frameReceived(frame(.continuation, [euro[2], 0x62])) == text("a€b"))
    }

    @Test func binaryIsNotChecked() {
        var r = rules(binary: .accept)
        #expect(r.frameReceived(frame(.binary, [0xFF])) == .deliver(.binary(ByteBuffer(bytes: [0xFF]))))
    }

    @Test func theValidatorAgreesWithTheStandardLibraryInAnyPieces() {
        // Seeded: random byte strings biased to UTF-8's lead and continuation
        // bytes, checked whole by the standard library and in random pieces here.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            return seed
        }
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var valid = 0
        for _ in 0..<20_000 {
            let count = Int(next() % 12)
            var bytes: [UInt8] = []
            for _ in 0..<count {
                let r = next()
                bytes.append(r % 3 == 0 ? UInt8(truncatingIfNeeded: r >> 8) : interesting[Int((r >> 8) % UInt64(interesting.count))])
            }
            // an ASCII run now and then, for the eight-byte path
            if next() % 4 == 0 { bytes.insert(contentsOf: Array("abcdefghijk".utf8), at: Int(next() % UInt64(bytes.count + 1))) }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            var validator = WebSocketUTF8Validator()
            var ok = true
            var start = 0
            while start < bytes.count, ok {
                let end = min(bytes.count, start + 1 + Int(next() % 5))
                ok = validator.validate(ByteBuffer(bytes: bytes[start..<end]))
                start = end
            }
            #expect((ok && validator.isComplete) == expected, "\(bytes)")
            if expected { valid += 1 }
        }
        #expect(valid > 1000)
    }
}

@Suite("WebSocket rules: close, ping")
struct WebSocketControlRulesTests {
    @Test func aCloseIsAnsweredWithItsCode() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] {
            var r = rules()
            #expect(r.frameReceived(frame(.connectionClose, closePayload(code))) == close(Int(code)))
            #expect(!r.isOpen)
        }
    }

    @Test func aCloseWithoutACodeIsAnsweredWith1000() {
        var r = rules()
        #expect(r.frameReceived(frame(.connectionClose, [])) == close(1000))
    }

    @Test func aCloseOfOneByteIs1002() {
        var r = rules()
        #expect(r.frameReceived(frame(.connectionClose, [0x03])) == close(1002))
    }

    @Test func aCodeThatMayNotBeSentIs1002() {
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1012, 1013, 1014, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            var r = rules()
            #expect(r.frameReceived(frame(.connectionClose, closePayload(code))) == close(1002), "\(code)")
        }
    }

    @Test func aReasonMustBeUTF8() {
        var good = rules()
        #expect(good.frameReceived(frame(.connectionClose, closePayload(1000, Array("bye €".utf8)))) == close(1000))
        var bad = rules()
        let invalid: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65]
        #expect(bad.frameReceived(frame(.connectionClose, closePayload(1000, invalid))) == close(1007))
        var cut = rules()
        #expect(cut.frameReceived(frame(.connectionClose, closePayload(1001, [0xE2, 0x82]))) == close(1007))
    }

    @Test func aPingIsAnsweredOneAtATime() {
        var r = rules()
        #expect(r.frameReceived(frame(.ping, "1")) == .pong(ByteBuffer(string: "1")))
        #expect(r.frameReceived(frame(.ping, "2")) == .none)
        r.pongWritten()
        #expect(r.frameReceived(frame(.ping, "3")) == .pong(ByteBuffer(string: "3")))
        r.pongWritten()
        #expect(r.frameReceived(frame(.ping, [])) == .pong(ByteBuffer()))
    }

    @Test func theApplicationsCloseSendsOneFrame() {
        var r = rules()
        #expect(r.applicationCloses(frameCanGo: true) == .sendCloseFrame)
        #expect(!r.isOpen)
        #expect(r.applicationCloses(frameCanGo: true) == .closeNow)
        #expect(r.frameReceived(frame(.connectionClose, [])) == .none)
        var stalled = rules()
        #expect(stalled.applicationCloses(frameCanGo: false) == .closeNow)
        #expect(!stalled.isOpen)
    }

    @Test func aRefusalIsOneClose() {
        var r = rules()
        #expect(r.failConnection(WebSocketErrorCode(codeNumber: 1013)) == close(1013))
        #expect(r.applicationCloses(frameCanGo: true) == .closeNow)
    }

    @Test func theSocketsErrorClosesOnce() {
        var r = rules()
        let first = r.transportFailed()
        let second = r.transportFailed()
        #expect(first && !second)
        #expect(r.frameReceived(frame(.text, "a")) == .none)
    }
}
