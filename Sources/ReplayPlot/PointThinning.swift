/// A point in SVG user space.
struct PlotPoint: Sendable, Equatable {
    var x: Double
    var y: Double
}

/// Fewer points for the same picture: consecutive points closer than
/// `minimumSpacing` in x to the first of their group collapse to the group's
/// first, lowest, highest and last points (in their order), so extremes and the
/// joins between groups stay exact while 100,000 samples shrink to a few per pixel.
enum PointThinning {
    static func thinned(_ points: [PlotPoint], minimumSpacing: Double = 0.5) -> [PlotPoint] {
        guard points.count > 4 else { return points }
        var result: [PlotPoint] = []
        result.reserveCapacity(min(points.count, 4_096))
        var start = 0
        while start < points.count {
            let anchor = points[start].x
            var lowest = start, highest = start, end = start + 1
            while end < points.count, abs(points[end].x - anchor) < minimumSpacing {
                if points[end].y < points[lowest].y { lowest = end }
                if points[end].y > points[highest].y { highest = end }
                end += 1
            }
            var kept = [start, lowest, highest, end - 1]
            kept.sort()
            var previous = -1
            for index in kept where index != previous {
                result.append(points[index])
                previous = index
            }
            start = end
        }
        return result
    }
}
