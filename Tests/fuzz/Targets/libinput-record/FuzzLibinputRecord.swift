import FuzzSupport
import Recordings

/// libFuzzer's entry: the input as a `libinput record` YAML file. It parses
/// or is refused with a proper error; what parses is played through the
/// engine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLibinputRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = "fuzz.yml"
    do {
        let parsed = try LibinputRecordReader.parse(bytes: Array(UnsafeBufferPointer(start: data, count: size)),
                                                    path: path)
        RecordingPlayback.play(parsed.events, device: parsed.description, path: path, explain: size % 2 == 1)
    } catch {
        checkRefusal(error, paths: [path])
    }
    return 0
}
