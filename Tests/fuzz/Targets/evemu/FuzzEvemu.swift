import FuzzSupport
import Recordings

/// libFuzzer's entry: the input as a self-contained evemu file (a
/// description and events). It parses or is refused with a proper error;
/// what parses with a description is written back and read again, and
/// played through the engine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = "fuzz.events"
    do {
        let parsed = try EvemuParser.parse(bytes: Array(UnsafeBufferPointer(start: data, count: size)), path: path)
        if let description = parsed.description {
            checkRewrite(description, parsed.events)
            RecordingPlayback.play(parsed.events, device: description, path: path, explain: size % 2 == 1)
        }
    } catch {
        checkRefusal(error, paths: [path])
    }
    return 0
}
