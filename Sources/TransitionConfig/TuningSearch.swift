#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `transitiond tune`'s rule, with no I/O: which values of some keys agree
/// with the most labelled recordings, with the widest margin.
///
/// One key at a time, the others held: the key's range is sampled on a
/// grid (`gridPoints`, even in logarithms for a logarithmic key); the
/// widest run of neighbouring samples that get the most recordings right
/// is taken (the lowest of equally wide ones); its two ends are refined by
/// bisection against the samples just outside (`refinements` halvings);
/// and the key takes the centre of that interval — the value farthest from
/// where any recording changes its outcome — written with the fewest
/// decimals that stay in the interval's middle half. An interval that
/// runs to an end of the key's range has recordings on one side only, and
/// nothing says how far from them is enough: there the key keeps its value
/// if that agrees (and takes the centre if not); so does a key on which no
/// recording depends. Keys are taken in
/// turn, and again (at most `passes` rounds) until a round changes none:
/// each key's interval is then the one with the others at their final values.
///
/// `evaluate` says how many recordings the values (one per parameter, in
/// order) get right; it is called once per distinct set of values.
public struct TuningSearch: Sendable {
    public var parameters: [TunedParameter]
    public var gridPoints = 41
    public var refinements = 7
    public var passes = 3

    public init(parameters: [TunedParameter]) {
        self.parameters = parameters
    }

    /// One key's search, the others held.
    public struct Sweep: Sendable, Equatable {
        /// The most recordings right anywhere on the key's grid.
        public var best: Int
        /// Where that many are right, around `value`.
        public var interval: ClosedRange<Double>
        public var value: Double
    }

    public struct Result: Sendable, Equatable {
        /// One per parameter, in order.
        public var values: [Double]
        /// Each parameter's last sweep.
        public var sweeps: [Sweep]
        /// How many recordings `values` get right.
        public var right: Int
        /// Distinct sets of values evaluated.
        public var evaluations: Int
    }

    /// Searches from `start` (one value per parameter).
    public func run(start: [Double], evaluate: ([Double]) -> Int) -> Result {
        var memo: [[Double]: Int] = [:]
        func count(_ values: [Double]) -> Int {
            if let known = memo[values] { return known }
            let n = evaluate(values)
            memo[values] = n
            return n
        }
        var values = start
        var sweeps = start.map { Sweep(best: 0, interval: $0...$0, value: $0) }
        for _ in 0..<max(1, passes) {
            var moved = false
            for (i, parameter) in parameters.enumerated() {
                let sweep = Self.sweep(parameter.key, from: values[i], gridPoints: gridPoints,
                                       refinements: refinements) { x in
                    var v = values
                    v[i] = x
                    return count(v)
                }
                sweeps[i] = sweep
                // A value between the grid's samples may do better than any of them: keep it then.
                if sweep.best >= count(values), sweep.value != values[i] {
                    values[i] = sweep.value
                    moved = true
                }
            }
            if !moved { break }
        }
        return Result(values: values, sweeps: sweeps, right: count(values), evaluations: memo.count)
    }

    /// The widest interval of `key`'s range where `count` is highest, and
    /// its centre; `current` when every sample counts the same (no recording
    /// depends on the key, so nothing argues for moving it).
    public static func sweep(_ key: TunedKey, from current: Double, gridPoints: Int, refinements: Int,
                             count: (Double) -> Int) -> Sweep {
        let scale = Scale(key)
        let lo = scale.forward(key.range.lowerBound), hi = scale.forward(key.range.upperBound)
        let n = max(2, gridPoints)
        let grid = (0..<n).map { lo + (hi - lo) * Double($0) / Double(n - 1) }
        let counts = grid.map { count(scale.back($0)) }
        let best = counts.max() ?? 0
        if counts.allSatisfy({ $0 == best }) {
            return Sweep(best: best, interval: key.range, value: current)
        }
        let run = widestRun(counts, of: best, grid: grid)
        // Bisect each end between the last sample in the run and the first outside it.
        func edge(inside: Double, outside: Double?) -> Double {
            guard var outside else { return inside }
            var inside = inside
            for _ in 0..<max(0, refinements) {
                let mid = (inside + outside) / 2
                if count(scale.back(mid)) >= best { inside = mid } else { outside = mid }
            }
            return inside
        }
        let lower = edge(inside: grid[run.lowerBound], outside: run.lowerBound > 0 ? grid[run.lowerBound - 1] : nil)
        let upper = edge(inside: grid[run.upperBound], outside: run.upperBound < n - 1 ? grid[run.upperBound + 1] : nil)
        let interval = scale.back(lower)...scale.back(upper)
        // Open at one end (the key's range ends there, no recording does):
        // nothing says how far from the other end is far enough, so an agreeing value stays.
        let oneSided = run.lowerBound == 0 || run.upperBound == n - 1
        if oneSided, interval.contains(current), count(current) >= best {
            return Sweep(best: best, interval: interval, value: current)
        }
        return Sweep(best: best, interval: interval, value: roundest(in: lower...upper, scale: scale, range: key.range))
    }

    /// The indices of the widest run of neighbouring `counts` equal to
    /// `best`, by the grid's width; the first of equally wide ones.
    static func widestRun(_ counts: [Int], of best: Int, grid: [Double]) -> ClosedRange<Int> {
        var widest: ClosedRange<Int>? = nil
        var start: Int? = nil
        for i in 0...counts.count {
            let inRun = i < counts.count && counts[i] == best
            if inRun, start == nil { start = i }
            if !inRun, let s = start {
                let run = s...(i - 1)
                if widest.map({ grid[run.upperBound] - grid[run.lowerBound] > grid[$0.upperBound] - grid[$0.lowerBound] }) ?? true {
                    widest = run
                }
                start = nil
            }
        }
        return widest ?? 0...0
    }

    /// The centre of `interval` (in the scale's units), with the fewest
    /// decimals (up to 6) that keep it in the interval's middle half and in `range`.
    static func roundest(in interval: ClosedRange<Double>, scale: Scale, range: ClosedRange<Double>) -> Double {
        let centre = (interval.lowerBound + interval.upperBound) / 2
        let quarter = (interval.upperBound - interval.lowerBound) / 4
        let exact = scale.back(centre)
        for decimals in 0...6 {
            let candidate = ExpectationNumber.rounded(exact, decimals: decimals)
            guard range.contains(candidate), candidate > 0 || range.lowerBound <= 0 else { continue }
            if abs(scale.forward(candidate) - centre) <= quarter { return candidate }
        }
        return min(max(ExpectationNumber.rounded(exact, decimals: 6), range.lowerBound), range.upperBound)
    }

    /// Where a key is searched: its values, or their logarithms.
    struct Scale {
        var logarithmic: Bool
        init(_ key: TunedKey) { logarithmic = key.isLogarithmic }
        func forward(_ x: Double) -> Double { logarithmic ? log(x) : x }
        func back(_ u: Double) -> Double { logarithmic ? exp(u) : u }
    }
}
