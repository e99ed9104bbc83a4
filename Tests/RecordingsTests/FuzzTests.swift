@testable import Recordings
import TestSupport
import Testing
import Engine

/// Any bytes either parse or throw a RecordingError; nothing crashes. (A
/// crash or a trap would end the test process.)
struct FuzzTests {
    /// Parses and tells whether it succeeded; the parse functions can only
    /// throw RecordingError (typed throws).
    @discardableResult
    func survives(_ bytes: [UInt8], path: String = "fuzz.events") -> Bool {
        do {
            _ = try RecordingReader.parse(bytes: bytes, path: path)
            return true
        } catch {
            #expect(error.file == path)
            #expect(error.line.map { $0 >= 1 } ?? true)
            #expect(!error.message.isEmpty)
            return false
        }
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason))
    func truncationsOfEveryRealFile() throws {
        let paths = Fixtures.files(in: "evemu-devices", extensions: [".desc", ".events"])
            + Fixtures.files(in: "libinput-record", extensions: [".yml"])
        var generator = SeededRandom(seed: 7)
        for path in paths {
            let bytes = try Fixtures.bytes(path)
            let full = try RecordingReader.parse(bytes: bytes, path: path)
            let isYAML = path.hasSuffix(".yml")
            var offsets = Set(0..<min(64, bytes.count))
            for _ in 0..<(isYAML ? 40 : 150) {
                offsets.insert(generator.below(bytes.count))
            }
            for offset in offsets.sorted() {
                let prefix = Array(bytes[0..<offset])
                do {
                    let parsed = try RecordingReader.parse(bytes: prefix, path: path)
                    #expect(parsed.events.count <= full.events.count)
                    // A cut at a line end keeps exactly the events before it.
                    if !isYAML && (offset == 0 || bytes[offset - 1] == 0x0a) {
                        #expect(Array(full.events.prefix(parsed.events.count)) == parsed.events)
                    }
                } catch {
                    #expect(error.file == path)
                }
            }
        }
    }

    @Test func randomBytes() {
        var generator = SeededRandom(seed: 0x5EED)
        let alphabet = Array("EE: 0123456789abcdefABCDEF.-+#\n\r\t NIPBASL:xyz\u{0}".utf8) + [0xff, 0xc3, 0xa9]
        var parsedCount = 0
        for round in 0..<3000 {
            let length = generator.below(160)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                bytes.append(round % 3 == 0 ? UInt8(truncatingIfNeeded: generator.next())
                                            : alphabet[generator.below(alphabet.count)])
            }
            if survives(bytes) { parsedCount += 1 }
        }
        // Empty and comment-only buffers parse; most random ones do not.
        #expect(parsedCount > 0 && parsedCount < 3000)
    }

    @Test func randomEventLinesAgreeBetweenFastAndCheckedPaths() throws {
        var generator = SeededRandom(seed: 99)
        let pieces = ["E:", " ", "\t", "0", "1", "9", ".", "000001", "0003", "ffff", "FFFF", "10000", "-", "+",
                      "001", "2147483647", "2147483648", "#", "\r", "x", "999999999999", "1234567"]
        for _ in 0..<5000 {
            var line = "E: "
            for _ in 0..<generator.below(12) { line += pieces[generator.below(pieces.count)] }
            let bytes = Array(line.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                var fast = InputEvent(time: -1, type: 0, code: 0, value: 0)
                let next = EvemuEventLine.fast(base, 0, buffer.count, &fast)
                let checked: InputEvent?
                do {
                    checked = try EvemuEventLine.checked(buffer, from: 0, to: buffer.count) {
                        RecordingError(file: "x", line: 1, message: $0)
                    }
                } catch {
                    checked = nil
                }
                if next >= 0 {
                    #expect(checked == fast, "\(line)")
                }
            }
        }
    }

    @Test func mutationsOfAValidEvemuFile() {
        var base = Array((sampleDescription + """
        E: 0.000001 0003 0039 0021\t# EV_ABS / ABS_MT_TRACKING_ID   21
        E: 0.000001 0003 0035 0415\t# EV_ABS / ABS_MT_POSITION_X    415
        E: 0.000001 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms
        E: 0.027718 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1
        E: 0.027718 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +27ms

        """).utf8)
        survives(base)
        var generator = SeededRandom(seed: 1234)
        let interesting: [UInt8] = Array("0123456789abcdef:.-#\n\r\t EN".utf8) + [0x00, 0xff]
        for _ in 0..<3000 {
            var bytes = base
            for _ in 0..<(1 + generator.below(4)) {
                let position = generator.below(bytes.count + 1)
                let byte = generator.below(2) == 0 ? interesting[generator.below(interesting.count)]
                                                   : UInt8(truncatingIfNeeded: generator.next())
                switch generator.below(4) {
                case 0 where position < bytes.count: bytes[position] = byte
                case 1 where position < bytes.count: bytes.remove(at: position)
                case 2:
                    let length = min(generator.below(40), bytes.count - position)
                    bytes.insert(contentsOf: bytes[position..<(position + length)], at: position)
                default: bytes.insert(byte, at: position)
                }
            }
            survives(bytes)
        }
        base.removeAll()
    }

    @Test func mutationsOfAValidLibinputRecordFile() {
        let base = Array(LibinputRecordTests.valid.utf8)
        var generator = SeededRandom(seed: 4321)
        let interesting: [UInt8] = Array("0123456789-:[]{},#\n\t \"'&*!|>".utf8) + [0x00, 0xff]
        var parsedCount = 0
        for _ in 0..<600 {
            var bytes = base
            for _ in 0..<(1 + generator.below(3)) {
                let position = generator.below(bytes.count)
                let byte = interesting[generator.below(interesting.count)]
                if generator.below(2) == 0 { bytes[position] = byte } else { bytes.insert(byte, at: position) }
            }
            if survives(bytes, path: "fuzz.yml") { parsedCount += 1 }
        }
        #expect(parsedCount > 0 && parsedCount < 600)
    }
}
