/// Lengths of a transition given in millimetres on the panel
/// (`edge_margin_mm`, `activation_mm`, `distance_mm`): they become the
/// engine's 0…1 screen units once the panel is known, through its axes'
/// resolution (`ScreenSize`). nil: that length is given in screen units.
public struct PhysicalLengths: Sendable, Equatable {
    public var edgeMarginMM: Double?
    public var activationMM: Double?
    public var distanceMM: Double?

    public init(edgeMarginMM: Double? = nil, activationMM: Double? = nil, distanceMM: Double? = nil) {
        self.edgeMarginMM = edgeMarginMM
        self.activationMM = activationMM
        self.distanceMM = distanceMM
    }

    public var isEmpty: Bool { edgeMarginMM == nil && activationMM == nil && distanceMM == nil }

    /// The config keys given, for messages.
    public var keys: [String] {
        [edgeMarginMM.map { _ in "edge_margin_mm" }, activationMM.map { _ in "activation_mm" },
         distanceMM.map { _ in "distance_mm" }].compactMap { $0 }
    }
}

/// The screen's size in millimetres as a panel measures it: its x and y
/// axes' ranges divided by their resolutions (units per mm), through the
/// whole geometry — a quarter turn by `rotation` or by a calibration matrix,
/// and a matrix's scale. nil when an axis has no resolution (or the matrix
/// flattens the panel).
public struct ScreenSize: Sendable, Equatable {
    public var widthMM: Double
    public var heightMM: Double

    public init(widthMM: Double, heightMM: Double) {
        self.widthMM = widthMM
        self.heightMM = heightMM
    }

    public init?(device: DeviceDescription, geometry: ScreenGeometry = .identity) {
        let info = device.absInfo
        let mt = info[EventCode.ABS_MT_POSITION_X] != nil && info[EventCode.ABS_MT_POSITION_Y] != nil
        guard let x = info[mt ? EventCode.ABS_MT_POSITION_X : EventCode.ABS_X],
              let y = info[mt ? EventCode.ABS_MT_POSITION_Y : EventCode.ABS_Y],
              x.resolution > 0, y.resolution > 0, x.maximum > x.minimum, y.maximum > y.minimum else { return nil }
        let panelWidth = (Double(x.maximum) - Double(x.minimum)) / Double(x.resolution)
        let panelHeight = (Double(y.maximum) - Double(y.minimum)) / Double(y.resolution)
        // The geometry's linear part A (screen = A · panel + b), inverted:
        // the panel movement, in mm, that moves one screen unit along x or y.
        let origin = geometry.map(x: 0, y: 0)
        let u = geometry.map(x: 1, y: 0), v = geometry.map(x: 0, y: 1)
        let ax = (x: u.x - origin.x, y: u.y - origin.y), ay = (x: v.x - origin.x, y: v.y - origin.y)
        let det = ax.x * ay.y - ay.x * ax.y
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        func mm(_ du: Double, _ dv: Double) -> Double {
            ((du * panelWidth) * (du * panelWidth) + (dv * panelHeight) * (dv * panelHeight)).squareRoot()
        }
        self.init(widthMM: mm(ay.y / det, -ax.y / det), heightMM: mm(-ay.x / det, ax.x / det))
    }
}

extension EngineConfiguration {
    /// Whether any transition gives a length in millimetres.
    public var usesPhysicalLengths: Bool { transitions.contains { !$0.physical.isEmpty } }

    /// The configuration with every length in millimetres turned into screen
    /// units for a screen of `size` (nil: the panel gives no resolution, an
    /// error when a length needs it). A length along a gesture's axis uses
    /// that axis; a pinch's activation (a change of spread) uses the mean
    /// of the two.
    public func resolved(for size: ScreenSize?) throws(DeviceSetupError) -> EngineConfiguration {
        guard usesPhysicalLengths else { return self }
        var copy = self
        for (i, spec) in transitions.enumerated() where !spec.physical.isEmpty {
            guard let size else {
                throw DeviceSetupError("transition '\(spec.name)' gives \(spec.physical.keys.joined(separator: ", ")) in millimetres, but the panel's axes have no resolution: give the lengths in screen units (edge_margin, activation, distance) instead")
            }
            let along: Double
            switch spec.gesture {
            case .edgePan(let edge, _, _, _):
                along = edge == .left || edge == .right ? size.widthMM : size.heightMM
            case .swipe(let direction, _):
                along = direction == .left || direction == .right ? size.widthMM : size.heightMM
            case .pinch:
                along = (size.widthMM + size.heightMM) / 2
            }
            var resolved = spec
            if let mm = spec.physical.edgeMarginMM, case .edgePan(let edge, let fingers, _, let range) = spec.gesture {
                resolved.gesture = .edgePan(edge: edge, fingers: fingers, edgeMargin: min(0.5, mm / along), range: range)
            }
            if let mm = spec.physical.activationMM { resolved.activation = min(0.99, mm / along) }
            if let mm = spec.physical.distanceMM { resolved.distance = min(10, mm / along) }
            copy.transitions[i] = resolved
        }
        return copy
    }
}
