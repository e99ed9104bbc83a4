/// One ✕ on a panel: the rejected candidates drawn at `x`.
struct RejectionMark: Sendable, Equatable {
    var x: Double
    var markers: [PlotMarker]
}

/// Rejected candidates as a panel marks them: markers closer in x than
/// `spacing` share one ✕, numbered 1, 2, … left to right, and each number
/// leads a line in a list under the panel. So every ✕ has its words however
/// crowded the panel (labels beside the marks would have to give way to
/// each other, and some would vanish).
enum RejectionList {
    /// ✕s closer than this (px) share one: room for a two-digit number above
    /// each, and at most about fifty marks across a plot.
    static let spacing = 16.0
    /// Marks listed in one column; more take two.
    static let oneColumnLimit = 4

    /// The marks of `rejections` (finite times only) at the x `x` gives their time, left to right.
    static func marks(_ rejections: [PlotMarker], x: (Double) -> Double) -> [RejectionMark] {
        let markers = rejections.filter(\.time.isFinite).sorted { $0.time < $1.time }
        var marks: [RejectionMark] = []
        for marker in markers {
            let at = x(marker.time)
            if let last = marks.last, at - last.x < spacing {
                marks[marks.count - 1].markers.append(marker)
            } else {
                marks.append(RejectionMark(x: at, markers: [marker]))
            }
        }
        return marks
    }

    static func columns(_ count: Int) -> Int { count <= oneColumnLimit ? 1 : 2 }

    static func rows(_ count: Int) -> Int {
        let columns = columns(count)
        return (count + columns - 1) / columns
    }

    /// A mark's line in the list (after its number): "1.1 s: perpendicular",
    /// "1.1–1.3 s: too many fingers, and 2 more", in at most `limit` characters.
    static func text(_ mark: RejectionMark, limit: Int) -> String {
        guard let first = mark.markers.first, let last = mark.markers.last else { return "" }
        var when = NumberFormatting.label(first.time, maxDecimals: 3)
        if last.time != first.time { when += "–" + NumberFormatting.label(last.time, maxDecimals: 3) }
        let more = mark.markers.count > 1 ? ", and \(mark.markers.count - 1) more" : ""
        // The count of the others stays whole: the reason gives way first.
        let room = max(limit - when.count - 4 - more.count, 8)
        return when + " s: " + DisplayText.shortened(first.text, toAtMost: room) + more
    }
}
