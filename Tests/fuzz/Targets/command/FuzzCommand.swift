import FuzzSupport
import ServerCore
import WireProtocol

/// libFuzzer's entry: the input as what a client sends, split into lines by
/// the server's framer in two chunks (at a point the first byte chooses),
/// each line read by the command decoder. A decoded command's numbers are
/// within `CommandLimits`; a refusal says what is wrong.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommand(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let first = input.first else { return 0 }
    let bytes = input.dropFirst()
    let cut = bytes.startIndex + (bytes.isEmpty ? 0 : Int(first) % (bytes.count + 1))
    // A small limit, so that inputs of fuzzing size reach it.
    var framer = LineFramer(limit: 256)
    var sent = 0
    for output in framer.feed(bytes[..<cut]) + framer.feed(bytes[cut...]) {
        switch output {
        case .line(let line):
            fuzzCheck(line.count <= framer.limit, "a line of \(line.count) bytes passed the limit")
            fuzzCheck(!line.contains(UInt8(ascii: "\n")), "a line with a newline")
            sent += line.count + 1
            check(CommandDecoder.decode(line))
        case .tooLong:
            fuzzCheck(bytes.count - sent > framer.limit, "too long with \(bytes.count - sent) bytes left")
        }
    }
    return 0
}

private func check(_ result: Result<(ClientCommand, RequestID?), CommandError>) {
    switch result {
    case .success((let command, _)):
        switch command {
        case .drive(_, let progress):
            fuzzCheck(CommandLimits.progress.contains(progress), "drive to \(progress)")
        case .release(_, let velocity):
            fuzzCheck(velocity.map { $0.isFinite && abs($0) <= CommandLimits.velocity } ?? true,
                      "release at \(String(describing: velocity))")
        case .run(let transition, _), .cancel(let transition), .enable(let transition, _):
            fuzzCheck(!transition.isEmpty, "\(command.name) of no transition")
        case .exclude(let rects):
            fuzzCheck(rects.count <= CommandLimits.exclusionRects, "\(rects.count) exclusion rectangles")
            for r in rects {
                fuzzCheck(0 <= r.x0 && r.x0 < r.x1 && r.x1 <= 1 && 0 <= r.y0 && r.y0 < r.y1 && r.y1 <= 1,
                          "an exclusion rectangle out of the screen or empty: \(r)")
            }
        case .filterRegions(let regions):
            for r in regions ?? [] {
                fuzzCheck(0 <= r.x0 && r.x0 < r.x1 && r.x1 <= 1 && 0 <= r.y0 && r.y0 < r.y1 && r.y1 <= 1,
                          "a filter region out of the screen or empty: \(r)")
                fuzzCheck(Set(r.block ?? []).count == (r.block ?? []).count, "a gesture named twice: \(r)")
            }
        case .frames(let reports):
            fuzzCheck((1...FrameReport.batchLimit).contains(reports.count), "\(reports.count) frame reports")
            fuzzCheck(reports.allSatisfy { $0.seq >= 1 && $0.presented.isFinite }, "a frame report of no event: \(reports)")
        case .subscribe, .ping, .state, .reload, .dump, .clock:
            break
        }
    case .failure(let error):
        fuzzCheck(!error.message.isEmpty, "a refusal that says nothing")
    }
}
