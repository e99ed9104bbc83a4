/// How a panel's positions become screen positions: its calibration
/// matrix, then how it is mounted (rotated, mirrored). Applied to every
/// contact after normalising, so the engine's 0…1 space is the screen's:
/// a left-edge drag on a panel mounted at 90° is a top-edge drag.
///
/// - `calibration` `[a, b, c, d, e, f]` is libinput's matrix
///   (`LIBINPUT_CALIBRATION_MATRIX`) on normalised coordinates:
///   x′ = a·x + b·y + c, y′ = d·x + e·y + f.
/// - `rotation` is the clockwise angle the panel is mounted at: at 90, the
///   panel's left edge is the screen's top and its top the screen's right.
/// - `flipX`, `flipY` mirror the screen's axes, last.
public struct ScreenGeometry: Sendable, Equatable, CustomStringConvertible {
    /// A mounting angle, clockwise.
    public enum Rotation: Int, Sendable, CaseIterable {
        case none = 0
        case quarter = 90
        case half = 180
        case threeQuarters = 270
    }

    /// Where the calibration matrix came from (said in `hello`/`devices`).
    public enum CalibrationSource: String, Sendable {
        case none, config, udev
    }

    public var rotation: Rotation
    public var flipX: Bool
    public var flipY: Bool
    public var calibration: [Double]?
    public var calibrationSource: CalibrationSource

    public init(rotation: Rotation = .none, flipX: Bool = false, flipY: Bool = false,
                calibration: [Double]? = nil, calibrationSource: CalibrationSource? = nil) {
        self.rotation = rotation
        self.flipX = flipX
        self.flipY = flipY
        self.calibration = calibration.flatMap { $0.count == 6 ? $0 : nil }
        self.calibrationSource = self.calibration == nil ? .none : (calibrationSource ?? .config)
    }

    /// `rotation 90, flip x, calibration [0, 1, 0, -1, 0, 1] (udev)`.
    public var description: String {
        var parts = ["rotation \(rotation.rawValue)"]
        if flipX { parts.append("flip x") }
        if flipY { parts.append("flip y") }
        if let calibration {
            let numbers = calibration.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }
            parts.append("calibration [\(numbers.joined(separator: ", "))] (\(calibrationSource.rawValue))")
        }
        return parts.joined(separator: ", ")
    }

    /// Positions as the panel reports them.
    public static let identity = ScreenGeometry()

    public var isIdentity: Bool { rotation == .none && !flipX && !flipY && calibration == nil }

    /// The screen position of a normalised panel position.
    @inline(__always)
    public func map(x: Double, y: Double) -> (x: Double, y: Double) {
        var px = x, py = y
        if let m = calibration {
            px = m[0] * x + m[1] * y + m[2]
            py = m[3] * x + m[4] * y + m[5]
        }
        var sx: Double, sy: Double
        switch rotation {
        case .none: sx = px; sy = py
        case .quarter: sx = 1 - py; sy = px
        case .half: sx = 1 - px; sy = 1 - py
        case .threeQuarters: sx = py; sy = 1 - px
        }
        if flipX { sx = 1 - sx }
        if flipY { sy = 1 - sy }
        return (sx, sy)
    }

    /// Reads libinput's matrix as udev stores it: six numbers separated by
    /// spaces (`"0 1 0 -1 0 1"`), each within ±1000 as the config's; nil if
    /// it is not that.
    public static func calibration(fromUdev text: String) -> [Double]? {
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { Double($0) }
        guard numbers.count == 6, numbers.allSatisfy({ $0 != nil && $0!.isFinite && abs($0!) <= 1000 }) else { return nil }
        return numbers.map { $0! }
    }
}
