/// Where one transition's panel lies in the SVG and how its axes map values to
/// SVG user space: tests (and the project's own) find where a value is drawn
/// with `x(time:)`, `y(progress:)` and `y(velocity:)`.
///
/// The plot area is the rectangle `plotLeft…plotRight` × `plotTop…plotBottom`
/// (y grows downwards), where progress is drawn; velocity has a strip of its
/// own below it, `velocityTop…velocityBottom` on the same time axis. Every
/// mapping lands inside its area: values beyond an axis are clamped to its
/// end, a non-finite value maps to the axis's start (time, progress) or to
/// zero (velocity).
public struct PanelLayout: Sendable, Equatable {
    /// The transition's name.
    public let name: String
    /// The transition's index in the array given to `PlotDocument` (panels skip
    /// transitions without samples, so this may differ from the panel's index).
    public let transitionIndex: Int
    /// SVG y of the panel's top edge and the panel's height (heading, legend, plot, velocity
    /// strip, time axis, and the list of rejected candidates when there are some).
    public let panelTop: Double
    public let panelHeight: Double
    /// The plot area in SVG user space.
    public let plotLeft: Double
    public let plotRight: Double
    public let plotTop: Double
    public let plotBottom: Double
    /// Seconds shown on the time axis, left to right.
    public let timeRange: ClosedRange<Double>
    /// Seconds where the time axis has a tick and a label.
    public let timeTicks: [Double]
    /// Decimals of the time axis labels.
    public let timeTickDecimals: Int
    /// SVG y of the velocity strip's top and bottom edges (the same x as the plot area).
    public let velocityTop: Double
    public let velocityBottom: Double
    /// The velocity strip's axis runs from `−velocityLimit` (bottom) to `+velocityLimit` (top).
    public let velocityLimit: Double
    /// Progress per second where the velocity axis has a tick and a label.
    public let velocityTicks: [Double]
    /// Decimals of the velocity axis labels.
    public let velocityTickDecimals: Int

    /// Progress where the progress axis (left, 0 at the bottom, 1 at the top) has a tick.
    public var progressTicks: [Double] { [0, 0.25, 0.5, 0.75, 1] }

    /// SVG x of a time (seconds).
    public func x(time: Double) -> Double {
        plotLeft + PanelLayout.fraction(time, from: timeRange.lowerBound, to: timeRange.upperBound) * (plotRight - plotLeft)
    }

    /// SVG y of a progress on the left axis (clamped to 0…1).
    public func y(progress: Double) -> Double {
        plotBottom - PanelLayout.fraction(progress, from: 0, to: 1) * (plotBottom - plotTop)
    }

    /// SVG y of a velocity (progress per second) in the velocity strip (clamped to ±`velocityLimit`).
    public func y(velocity: Double) -> Double {
        let share = velocity.isFinite ? PanelLayout.fraction(velocity, from: -velocityLimit, to: velocityLimit) : 0.5
        return velocityBottom - share * (velocityBottom - velocityTop)
    }

    /// Where `value` lies between `lower` and `upper`, clamped to 0…1; 0 when it cannot be said.
    static func fraction(_ value: Double, from lower: Double, to upper: Double) -> Double {
        guard value.isFinite else { return 0 }
        // A span beyond the largest double is measured in halves, which fit.
        let share = (upper - lower).isFinite
            ? (value - lower) / (upper - lower)
            : (value / 2 - lower / 2) / (upper / 2 - lower / 2)
        guard share.isFinite else { return value > lower ? 1 : 0 }
        return min(max(share, 0), 1)
    }

    init(name: String, transitionIndex: Int, panelTop: Double, panelHeight: Double,
         plotLeft: Double, plotRight: Double, plotTop: Double, plotBottom: Double,
         velocityTop: Double, velocityBottom: Double, timeRange: ClosedRange<Double>, timeTicks: [Double], timeTickDecimals: Int,
         velocityLimit: Double, velocityTicks: [Double], velocityTickDecimals: Int) {
        self.name = name
        self.transitionIndex = transitionIndex
        self.panelTop = panelTop
        self.panelHeight = panelHeight
        self.plotLeft = plotLeft
        self.plotRight = plotRight
        self.plotTop = plotTop
        self.plotBottom = plotBottom
        self.velocityTop = velocityTop
        self.velocityBottom = velocityBottom
        self.timeRange = timeRange
        self.timeTicks = timeTicks
        self.timeTickDecimals = timeTickDecimals
        self.velocityLimit = velocityLimit
        self.velocityTicks = velocityTicks
        self.velocityTickDecimals = velocityTickDecimals
    }
}
