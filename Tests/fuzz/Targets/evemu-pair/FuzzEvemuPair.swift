import FuzzSupport
import Recordings

/// libFuzzer's entry: the input as a `.desc` file and an `.events` file,
/// split at the first NUL byte (all description without one), read as
/// `replay --description` reads the pair: the description must come from
/// the `.desc` part. What reads is played through the engine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemuPair(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let split = input.firstIndex(of: 0) ?? size
    let description = Array(input[..<split])
    let events = split < size ? Array(input[(split + 1)...]) : []
    let paths = ["fuzz.events", "fuzz.desc"]
    do {
        let recording = try RecordingReader.parse(bytes: events, path: paths[0],
                                                  descriptionBytes: description, descriptionPath: paths[1])
        guard let device = recording.description else {
            fuzzCheck(false, "a pair read without a description")
            return 0
        }
        RecordingPlayback.play(recording.events, device: device, path: paths[0], explain: size % 2 == 1)
    } catch {
        checkRefusal(error, paths: paths)
    }
    return 0
}
