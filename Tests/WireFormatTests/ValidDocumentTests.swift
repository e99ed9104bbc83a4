import Testing
import WireFormat

/// Documents the reader must accept, and what it makes of them.
@Suite("JSON: valid documents")
struct ValidDocumentTests {
    @Test func literals() throws {
        #expect(try JSONValue.parse("null") == .null)
        #expect(try JSONValue.parse("true") == .bool(true))
        #expect(try JSONValue.parse("false") == .bool(false))
        #expect(try JSONValue.parse(" \t\r\n true \n") == .bool(true))
    }

    @Test(arguments: [
        ("0", 0.0), ("-0", -0.0), ("1", 1), ("-1", -1), ("0.5", 0.5), ("-2.359276", -2.359276),
        ("1e2", 100), ("1E2", 100), ("1e+2", 100), ("1e-2", 0.01), ("2.5E-3", 0.0025),
        ("0.021", 0.021), ("1330495970.996848", 1330495970.996848), ("123456789", 123456789),
        ("9007199254740993", 9007199254740992), ("123456789012345678901234567890", 1.2345678901234568e29),
        ("0.1000000000000000055511151231257827", 0.1), ("1.7976931348623157e308", 1.7976931348623157e308),
        ("5e-324", .leastNonzeroMagnitude), ("2.2250738585072014e-308", 2.2250738585072014e-308), ("1e-400", 0),
        ("0.000000000000000000000000000001", 1e-30), ("100000000000000000000000", 1e23),
        ("3.14159265358979323846264338327950288", 3.141592653589793), ("1e22", 1e22), ("1e23", 1e23),
    ])
    func numbers(_ text: String, _ expected: Double) throws {
        let value = try JSONValue.parse(text)
        #expect(value == .number(expected))
        // Every number is the correctly rounded Double of its text.
        #expect(value.double == Double(text))
    }

    @Test func strings() throws {
        #expect(try JSONValue.parse(#""""#) == .string(""))
        #expect(try JSONValue.parse(#""back""#) == .string("back"))
        #expect(try JSONValue.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try JSONValue.parse(#""\u00e9\u00E9é""#) == .string("ééé"))
        #expect(try JSONValue.parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try JSONValue.parse(#""\ud83d\ude00 😀""#) == .string("😀 😀"))
        #expect(try JSONValue.parse(#""\uDBFF\uDFFF""#) == .string("\u{10FFFF}"))
        #expect(try JSONValue.parse(#""\uFFFF\u2028""#) == .string("\u{FFFF}\u{2028}"))
        #expect(try JSONValue.parse("\"\u{7F}\"") == .string("\u{7F}"))
    }

    @Test func containersKeepOrder() throws {
        let value = try JSONValue.parse(#" { "type" : "hello", "transitions" : [ {"name":"back"} , {"name":"home"} ], "active":[] , "z":{}} "#)
        #expect(value.object?.keys == ["type", "transitions", "active", "z"])
        #expect(value["type"]?.string == "hello")
        #expect(value["transitions"]?[1]?["name"]?.string == "home")
        #expect(value["transitions"]?[2] == nil)
        #expect(value["active"]?.array == [])
        #expect(value["z"] == .object(JSONObject()))
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        #expect(try JSONValue.parse("[]") == [])
        #expect(try JSONValue.parse("[1,[2,[3]],\"x\",null]") == [1, [2, [3]], "x", nil])
    }

    @Test func accessors() throws {
        let value = try JSONValue.parse(#"{"i":7,"f":7.0,"e":7e0,"h":7.5,"big":1e300,"neg":-12,"s":"7","b":true,"n":null}"#)
        #expect(value["i"]?.int == 7)
        #expect(value["f"]?.int == 7)
        #expect(value["e"]?.int == 7)
        #expect(value["h"]?.int == nil)
        #expect(value["h"]?.double == 7.5)
        #expect(value["big"]?.int == nil)
        #expect(value["neg"]?.int == -12)
        #expect(value["s"]?.int == nil)
        #expect(value["s"]?.string == "7")
        #expect(value["b"]?.bool == true)
        #expect(value["i"]?.bool == nil)
        #expect(value["n"]?.isNull == true)
        #expect(value["i"]?.isNull == false)
        #expect(try JSONValue.parse("9007199254740992").int == 9_007_199_254_740_992)
        #expect(try JSONValue.parse("18014398509481984").int == nil)
        #expect(value["i"]?.typeDescription == "a number")
        #expect(value.typeDescription == "an object")
    }

    @Test func objectsCompareWithoutOrder() throws {
        #expect(try JSONValue.parse(#"{"a":1,"b":2}"#) == JSONValue.parse(#"{"b":2,"a":1}"#))
        #expect(try JSONValue.parse(#"{"a":1,"b":2}"#) != JSONValue.parse(#"{"a":1,"b":3}"#))
        #expect(try JSONValue.parse(#"{"a":1}"#) != JSONValue.parse(#"{"a":1,"b":2}"#))
        var object = JSONObject()
        object["a"] = 1
        object["b"] = "x"
        object["a"] = 2
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 2)
        object["a"] = nil
        #expect(object.keys == ["b"])
        #expect(JSONObject([.init(key: "k", value: 1), .init(key: "k", value: 2)])["k"] == 2)
    }

    @Test func inputForms() throws {
        let bytes = Array(#"{"cmd":"ping","id":7}"#.utf8) + [UInt8(ascii: "\n")]
        let expected: JSONValue = ["cmd": "ping", "id": 7]
        #expect(try JSONValue.parse(bytes) == expected)
        #expect(try JSONValue.parse(bytes[...]) == expected)
        #expect(try bytes.withUnsafeBytes { try JSONValue.parse($0) } == expected)
        let framed = Array("xx{\"a\":1}yy".utf8)
        #expect(try JSONValue.parse(framed[2..<9]) == ["a": 1])
    }

    @Test func textRoundTrips() throws {
        let value: JSONValue = ["cmd": "subscribe", "transitions": ["back", "a\"b\\\n\u{1}é😀"], "x": 0.25,
                                "n": -3, "big": 1e300, "tiny": 1e-7, "ok": true, "none": nil]
        #expect(value.jsonText == #"{"cmd":"subscribe","transitions":["back","a\"b\\\n\u0001é😀"],"x":0.25,"n":-3,"big":1e+300,"tiny":1e-07,"ok":true,"none":null}"#)
        #expect(try JSONValue.parse(value.jsonText) == value)
        #expect("\(JSONValue.number(.nan))" == "null")
    }

    @Test func largeLineAtTheLimitParses() throws {
        // A 64 KiB line (the server's limit) of typical content; the time is
        // printed (a figure for the benchmarks, not a bound of this test).
        var text = #"{"cmd":"subscribe","transitions":["#
        var k = 0
        while text.utf8.count < 65_000 {
            text += (k > 0 ? "," : "") + #"{"name":"t\#(k)","progress":0.\#(k % 1000),"esc":"a\nb\u00e9"}"#
            k += 1
        }
        text += "]}"
        let bytes = Array(text.utf8)
        let clock = ContinuousClock()
        var parsed: JSONValue = nil
        let elapsed = try clock.measure {
            for _ in 0..<10 { parsed = try JSONValue.parse(bytes) }
        }
        #expect(parsed["transitions"]?.array?.count == k)
        print("10 parses of a 64 KiB line took \(elapsed)")
    }
}
