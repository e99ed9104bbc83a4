import Engine

/// One touch of a multitouch stream as a reader of it sees it: where it is
/// at each frame that moves it and when it lifts, whatever slot and
/// tracking id carried it. A recording's touches and its copy's compare so.
struct TouchSpan: Equatable, CustomStringConvertible {
    struct Point: Equatable {
        var time: Int64
        var x: Int32
        var y: Int32
    }

    var points: [Point]
    /// The time of the frame it lifted in; nil when it is down at the end.
    var end: Int64?

    var begin: Int64 { points[0].time }
    var description: String {
        "[\(points.count) points \(begin)…\(points.last!.time), end \(end.map(String.init) ?? "never")]"
    }

    /// The touches of `events` in the order they began.
    static func of(_ events: [InputEvent]) -> [TouchSpan] {
        var spans: [TouchSpan] = []
        for state in ReplayCopyTests.touches(events) {
            for down in state.down {
                if down.touch == spans.count { spans.append(TouchSpan(points: [], end: nil)) }
                let point = Point(time: state.time, x: down.x, y: down.y)
                if spans[down.touch].points.last.map({ $0.x != point.x || $0.y != point.y }) ?? true {
                    spans[down.touch].points.append(point)
                }
            }
            for i in spans.indices where spans[i].end == nil && !state.down.contains(where: { $0.touch == i }) {
                spans[i].end = state.time
            }
        }
        return spans
    }

    /// This touch cut at `time`: its points before it, and its end there.
    func ended(at time: Int64) -> TouchSpan {
        TouchSpan(points: points.filter { $0.time < time }, end: time)
    }
}
