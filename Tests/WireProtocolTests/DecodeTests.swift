import Testing
import WireFormat
import WireProtocol

/// Every line of docs/protocol.md decodes; unknown fields and types are
/// ignored; broken lines say what is wrong.
@Suite("Stream: decoding")
struct DecodeTests {
    private func decode(_ line: String) throws -> StreamMessage {
        try StreamMessage.decode(line: line)
    }

    private func failure(_ line: String) -> StreamDecodeError? {
        do {
            let message = try StreamMessage.decode(line: line)
            Issue.record("decoded \(line) as \(message)")
            return nil
        } catch {
            return error
        }
    }

    @Test func hello() throws {
        let line = #"{"type":"hello","protocol":1,"version":"0.1.0","transitions":[{"name":"back","gesture":"edge-pan","fingers":1,"edge":"left"}],"active":[{"transition":"back","phase":"interacting","progress":0.42,"values":{"dim":0.16}}],"seq":17}"#
        #expect(try decode(line) == .hello(StreamSnapshot(
            protocolVersion: 1, version: "0.1.0",
            transitions: [TransitionInfo(name: "back", gesture: "edge-pan", fingers: 1, edge: "left")],
            active: [ActiveTransition(transition: "back", phase: .interacting, progress: 0.42,
                                      values: [PropertyValue("dim", 0.16)])],
            seq: 17)))
    }

    @Test func helloOfAReplayWithoutSeq() throws {
        // README's hello (the replay's stdout) has no seq.
        let line = #"{"type":"hello","protocol":1,"version":"0.1.0","transitions":[{"name":"back","gesture":"edge-pan","fingers":1}],"active":[]}"#
        guard case .hello(let snapshot) = try decode(line) else { Issue.record("not a hello"); return }
        #expect(snapshot.seq == nil)
        #expect(snapshot.active.isEmpty)
    }

    @Test func animatingSnapshot() throws {
        let line = #"{"type":"state","transitions":[{"name":"back","gesture":"edge-pan","fingers":1},{"name":"home","gesture":"swipe","fingers":3,"direction":"up"}],"active":[{"transition":"home","phase":"animating","progress":0.8,"values":{},"target":1}],"seq":99}"#
        guard case .state(let snapshot, nil) = try decode(line) else { Issue.record("not a state"); return }
        #expect(snapshot.protocolVersion == nil)
        #expect(snapshot.transitions.map(\.name) == ["back", "home"])
        #expect(snapshot.transitions.map(\.direction) == [nil, "up"])
        #expect(snapshot.transitions.map(\.edge) == [nil, nil])
        #expect(snapshot.active == [ActiveTransition(transition: "home", phase: .animating, progress: 0.8, target: 1)])
        #expect(snapshot.seq == 99)
    }

    @Test func events() throws {
        #expect(try decode(#"{"type":"began","transition":"back","seq":18,"time":12.301,"progress":0.021,"velocity":0,"values":{"dim":0.958}}"#)
                == .event(TransitionUpdate(kind: .began, transition: "back", seq: 18, time: 12.301, progress: 0.021,
                                           velocity: 0, values: [PropertyValue("dim", 0.958)])))
        #expect(try decode(#"{"type":"changed","transition":"back","seq":19,"time":12.309,"progress":0.05,"velocity":0.8,"values":{"dim":0.9}}"#)
                == .event(TransitionUpdate(kind: .changed, transition: "back", seq: 19, time: 12.309, progress: 0.05,
                                           velocity: 0.8, values: [PropertyValue("dim", 0.9)])))
        #expect(try decode(#"{"type":"ended","transition":"back","seq":60,"time":12.9,"progress":0.66,"velocity":0.23,"values":{"dim":0},"decision":"finish","reason":"released"}"#)
                == .event(TransitionUpdate(kind: .ended, transition: "back", seq: 60, time: 12.9, progress: 0.66,
                                           velocity: 0.23, values: [PropertyValue("dim", 0)], decision: .finish,
                                           reason: .released)))
        #expect(try decode(#"{"type":"animating","transition":"back","seq":61,"time":12.917,"progress":0.72,"velocity":3.7,"values":{"dim":0},"target":1}"#)
                == .event(TransitionUpdate(kind: .animating, transition: "back", seq: 61, time: 12.917, progress: 0.72,
                                           velocity: 3.7, values: [PropertyValue("dim", 0)], target: 1)))
        #expect(try decode(#"{"type":"finished","transition":"back","seq":70,"time":13.05,"progress":1,"velocity":0,"values":{"dim":0}}"#)
                == .event(TransitionUpdate(kind: .finished, transition: "back", seq: 70, time: 13.05, progress: 1,
                                           velocity: 0, values: [PropertyValue("dim", 0)])))
        #expect(try decode(#"{"type":"cancelled","transition":"back","seq":71,"time":13.5,"progress":0,"velocity":0,"values":{"dim":1},"synthetic":true}"#)
                == .event(TransitionUpdate(kind: .cancelled, transition: "back", seq: 71, time: 13.5, progress: 0,
                                           velocity: 0, values: [PropertyValue("dim", 1)], synthetic: true)))
        for reason in ["device-lost", "command", "shutdown"] {
            guard case .event(let e) = try decode(#"{"type":"ended","transition":"b","seq":1,"time":0,"progress":0.1,"velocity":0,"values":{},"decision":"cancel","reason":"\#(reason)"}"#) else {
                Issue.record("not an event"); continue
            }
            #expect(e.reason?.rawValue == reason)
            #expect(e.decision == .cancel)
        }
    }

    @Test func replies() throws {
        #expect(try decode(#"{"type":"pong"}"#) == .pong(id: nil))
        #expect(try decode(#"{"type":"pong","id":7}"#) == .pong(id: 7))
        #expect(try decode(#"{"type":"ok","cmd":"run"}"#) == .ok(cmd: "run", id: nil))
        #expect(try decode(#"{"type":"ok","cmd":"subscribe","id":"s1"}"#) == .ok(cmd: "subscribe", id: "s1"))
        #expect(try decode(#"{"type":"error","code":"unknown-transition","message":"no transition 'x'","id":3}"#)
                == .error(code: "unknown-transition", message: "no transition 'x'", cmd: nil, id: 3))
        #expect(try decode(#"{"type":"error","code":"backlog","message":"too slow"}"#)
                == .error(code: "backlog", message: "too slow", cmd: nil, id: nil))
    }

    @Test func unknownTypesAndFieldsAreIgnored() throws {
        #expect(try decode(#"{"type":"telemetry","cpu":0.5}"#) == .unknown(type: "telemetry"))
        #expect(try decode(#"{"type":"began","transition":"back","seq":1,"time":0,"progress":0.02,"velocity":0,"values":{},"finger_count":1,"extra":{"deep":[1,2]}}"#)
                == .event(TransitionUpdate(kind: .began, transition: "back", seq: 1, time: 0, progress: 0.02, velocity: 0)))
        // A reason a newer daemon adds reads as nil, not as an error.
        guard case .event(let e) = try decode(#"{"type":"ended","transition":"b","seq":1,"time":0,"progress":0.1,"velocity":0,"values":{},"decision":"cancel","reason":"timeout"}"#) else {
            Issue.record("not an event"); return
        }
        #expect(e.reason == nil)
        guard case .hello(let h) = try decode(#"{"type":"hello","protocol":2,"version":"9.0","transitions":[{"name":"a","gesture":"tap","fingers":1,"new":true}],"active":[],"seq":0,"features":["x"]}"#) else {
            Issue.record("not a hello"); return
        }
        #expect(h.protocolVersion == 2)
        #expect(h.transitions == [TransitionInfo(name: "a", gesture: "tap", fingers: 1)])
        // values keep the line's order; a missing values object is empty.
        guard case .event(let ordered) = try decode(#"{"type":"changed","transition":"b","seq":2,"time":0,"progress":0.5,"velocity":0,"values":{"z":1,"a":2}}"#) else {
            Issue.record("not an event"); return
        }
        #expect(ordered.values.map(\.property) == ["z", "a"])
        #expect(ordered.values["a"] == 2)
        #expect(ordered.values["q"] == nil)
    }

    @Test func brokenLines() {
        #expect(failure("") == .json(.empty))
        #expect(failure("{\"type\":\"pong\"") == .json(.syntax(offset: 14, message: "unexpected end of input, expected ',' or '}'")))
        #expect(failure("[1]") == .notAnObject)
        #expect(failure("{}") == .missingType)
        #expect(failure(#"{"type":7}"#) == .missingType)
        #expect(failure(#"{"type":"began","seq":1,"time":0,"progress":0,"velocity":0}"#) == .missingField(type: "began", field: "transition"))
        #expect(failure(#"{"type":"began","transition":"b","time":0,"progress":0,"velocity":0}"#) == .missingField(type: "began", field: "seq"))
        #expect(failure(#"{"type":"began","transition":"b","seq":-1,"time":0,"progress":0,"velocity":0}"#) == .badField(type: "began", field: "seq", expected: "a non-negative integer"))
        #expect(failure(#"{"type":"began","transition":"b","seq":1.5,"time":0,"progress":0,"velocity":0}"#) == .badField(type: "began", field: "seq", expected: "a non-negative integer"))
        #expect(failure(#"{"type":"changed","transition":"b","seq":1,"time":0,"progress":"0.5","velocity":0}"#) == .badField(type: "changed", field: "progress", expected: "a number"))
        #expect(failure(#"{"type":"changed","transition":"b","seq":1,"time":0,"progress":0.5,"velocity":0,"values":{"dim":"x"}}"#) == .badField(type: "changed", field: "values.dim", expected: "a number"))
        #expect(failure(#"{"type":"ended","transition":"b","seq":1,"time":0,"progress":0.5,"velocity":0,"decision":"maybe"}"#) == .badField(type: "ended", field: "decision", expected: "\"finish\", \"cancel\" or \"snap\""))
        #expect(failure(#"{"type":"hello","transitions":{}}"#) == .badField(type: "hello", field: "transitions", expected: "an array"))
        #expect(failure(#"{"type":"hello","transitions":[{"gesture":"x"}]}"#) == .badField(type: "hello", field: "transitions[0].name", expected: "a string"))
        #expect(failure(#"{"type":"hello","transitions":[],"active":[{"transition":"b","phase":"idle","progress":0}]}"#) == .badField(type: "hello", field: "active[0].phase", expected: "\"interacting\" or \"animating\""))
        #expect(failure(#"{"type":"error","message":"x"}"#) == .missingField(type: "error", field: "code"))
        #expect(failure([0x7B, 0xFF, 0x7D]) == .json(.invalidUTF8(offset: 1)))
    }

    private func failure(_ bytes: [UInt8]) -> StreamDecodeError? {
        do {
            _ = try StreamMessage.decode(line: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func errorDescriptions() {
        #expect(StreamDecodeError.missingField(type: "began", field: "seq").description == "a \"began\" line without \"seq\"")
        #expect(StreamDecodeError.badField(type: "changed", field: "progress", expected: "a number").description
                == "a \"changed\" line whose \"progress\" is not a number")
        #expect(StreamDecodeError.json(.empty).description == "not JSON: no JSON value (the line is empty)")
        #expect(StreamDecodeError.missingType.description == "no \"type\" field")
    }

    @Test func encodedLinesReadBack() throws {
        let update = TransitionUpdate(kind: .cancelled, transition: "ba\"ck", seq: 42, time: 1.2345678, progress: 0,
                                      velocity: 0, values: [PropertyValue("dim", 1), PropertyValue("x", -0.5)],
                                      synthetic: true)
        let line = update.encodedLine()
        #expect(String(decoding: line, as: UTF8.self)
                == #"{"type":"cancelled","transition":"ba\"ck","seq":42,"time":1.234568,"progress":0,"velocity":0,"values":{"dim":1,"x":-0.5},"synthetic":true}"# + "\n")
        var expected = update
        expected.time = 1.234568
        #expect(try StreamMessage.decode(line: line) == .event(expected))
        let ended = TransitionUpdate(kind: .ended, transition: "back", seq: 60, time: 12.9, progress: 0.66, velocity: 0.23,
                                     values: [PropertyValue("dim", 0)], decision: .finish, reason: .deviceLost)
        #expect(String(decoding: ended.encodedLine(), as: UTF8.self)
                == #"{"type":"ended","transition":"back","seq":60,"time":12.9,"progress":0.66,"velocity":0.23,"values":{"dim":0},"decision":"finish","reason":"device-lost"}"# + "\n")
        #expect(try StreamMessage.decode(line: ended.encodedLine()) == .event(ended))
    }
}
