import FuzzSupport
import StreamClient
import WireProtocol

/// libFuzzer's entry: the input as what the daemon sends a client, line by
/// line through the client library's decoder into a `StreamMirror`. An
/// event re-encoded reads back the same once its numbers are in the wire's
/// precision; when the connection drops, the synthetic cancellations leave
/// nothing in flight.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    var mirror = StreamMirror()
    for line in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        guard let message = try? StreamMessage.decode(line: Array(line)) else { continue }
        if case .event(let update) = message {
            checkReencoding(update)
        }
        mirror.apply(message)
    }
    let closing = mirror.syntheticCancellations(time: mirror.lastTime)
    var seq = mirror.lastSeq
    for update in closing {
        fuzzCheck(update.seq > seq, "synthetic seq \(update.seq) after \(seq)")
        seq = update.seq
        mirror.apply(update)
    }
    fuzzCheck(mirror.inFlight.isEmpty, "\(mirror.inFlight.count) left in flight after the synthetic cancellations")
    return 0
}

/// Encoding rounds numbers to the wire's six decimals: once an update has
/// been through that, encoding and decoding it again changes nothing.
private func checkReencoding(_ update: TransitionUpdate) {
    let once = reread(update)
    fuzzCheck(reread(once) == once, "\(update) does not settle when re-encoded")
}

private func reread(_ update: TransitionUpdate) -> TransitionUpdate {
    let line = update.encodedLine()
    guard case .event(let decoded)? = try? StreamMessage.decode(line: line) else {
        fuzzCheck(false, "the encoding of \(update) does not decode: \(String(decoding: line, as: UTF8.self))")
        return update
    }
    return decoded
}
