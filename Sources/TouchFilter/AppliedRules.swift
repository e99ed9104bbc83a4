import Engine

/// What the filter makes of `FilterRules` for one panel, worked out once
/// from its layout and geometry: which contact axes the palm rule reads and
/// its threshold in the axis's own units, where a touch begins on the
/// screen (for the `max_contacts` in force there), and how positions are
/// written to the copy under `transform`.
struct AppliedRules: Sendable {
    /// ABS_MT_TOOL_TYPE's value for a palm (linux/input.h `MT_TOOL_PALM`).
    static let palmTool: Int32 = PalmRule.palmTool

    /// One position axis pair the copy carries (MT_POSITION_X/Y, MT_TOOL_X/Y):
    /// their indices in the contact axes, the panel's ranges (to normalise)
    /// and the copy's (to write the screen position back).
    struct PositionPair: Sendable {
        let x: Int
        let y: Int
        let panelX: ClosedRange<Double>
        let panelY: ClosedRange<Double>
        let copyX: ClosedRange<Double>
        let copyY: ClosedRange<Double>

        /// The screen position (0…1, after the geometry) of a panel position.
        func screen(x rawX: Int32, y rawY: Int32, geometry: ScreenGeometry) -> (x: Double, y: Double) {
            let nx = Self.normalise(rawX, panelX), ny = Self.normalise(rawY, panelY)
            return geometry.map(x: nx, y: ny)
        }

        static func normalise(_ v: Int32, _ range: ClosedRange<Double>) -> Double {
            (Double(v) - range.lowerBound) / (range.upperBound - range.lowerBound)
        }

        /// `min + s·(max − min)` of a copy's axis, s clamped to 0…1: a
        /// calibration may reach past the panel's edge, and a copy's value
        /// outside its declared range is one no reader expects.
        static func denormalise(_ s: Double, _ range: ClosedRange<Double>) -> Int32 {
            let clamped = s.isNaN ? 0 : min(1, max(0, s))
            return Int32((range.lowerBound + clamped * (range.upperBound - range.lowerBound)).rounded())
        }
    }

    private(set) var rules: FilterRules
    let geometry: ScreenGeometry
    /// Some touch may be withheld for `max_contacts` (the table's or a region's).
    private(set) var limitsContacts: Bool
    /// Some gesture is kept from the copy (`block`, the table's or a
    /// region's) and the panel has positions to recognise one by.
    private(set) var blocksGestures: Bool
    /// Index of ABS_MT_TOOL_TYPE in the contact axes, if the panel declares it.
    let toolTypeAxis: Int?
    /// Index of ABS_MT_TOUCH_MAJOR and the value over which a touch is a
    /// palm (`palm_mm` × the axis's resolution), when both are known.
    let palmMajor: (axis: Int, over: Double)?
    /// MT_POSITION_X/Y, when the panel declares both with a range.
    let position: PositionPair?
    /// The pairs whose values the copy gets as screen positions (`transform`
    /// with a geometry that is not the identity); empty otherwise.
    let transformed: [PositionPair]

    init(rules: FilterRules, geometry: ScreenGeometry, layout: FilterLayout,
         device: DeviceDescription) throws(TouchFilterError) {
        if let mm = rules.palmMillimetres, !(mm.isFinite && mm > 0) {
            throw TouchFilterError("palm_mm must be a finite number of millimetres > 0, not \(mm)")
        }
        self.rules = rules
        self.geometry = geometry
        limitsContacts = rules.maxContacts != nil || rules.regions.contains { $0.maxContacts != nil }
        toolTypeAxis = layout.contactAxis(of: FilterEventCode.ABS_MT_TOOL_TYPE)
        // No resolution, no millimetres: then only MT_TOOL_PALM tells a palm.
        // The threshold is the engine's (`PalmRule`), so that both see the same palms.
        if let over = PalmRule(millimetres: rules.palmMillimetres, device: device).majorOver,
           let axis = layout.contactAxis(of: FilterEventCode.ABS_MT_TOUCH_MAJOR) {
            palmMajor = (axis, over)
        } else {
            palmMajor = nil
        }
        let copy = TouchFilterMachine.copyDescription(of: device, rules: rules, geometry: geometry)
        func pair(_ xCode: UInt16, _ yCode: UInt16) -> PositionPair? {
            func range(_ d: DeviceDescription, _ code: UInt16) -> ClosedRange<Double>? {
                guard let info = d.absInfo[code], info.maximum > info.minimum else { return nil }
                return Double(info.minimum)...Double(info.maximum)
            }
            guard let x = layout.contactAxis(of: xCode), let y = layout.contactAxis(of: yCode),
                  let panelX = range(device, xCode), let panelY = range(device, yCode),
                  let copyX = range(copy, xCode), let copyY = range(copy, yCode) else { return nil }
            return PositionPair(x: x, y: y, panelX: panelX, panelY: panelY, copyX: copyX, copyY: copyY)
        }
        position = pair(EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y)
        blocksGestures = rules.blocksGestures && position != nil
        if rules.transform && !geometry.isIdentity {
            transformed = [pair(EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y),
                           pair(FilterEventCode.ABS_MT_TOOL_X, FilterEventCode.ABS_MT_TOOL_Y)].compactMap { $0 }
        } else {
            transformed = []
        }
    }

    /// The UI's regions (`filter_regions`) replace the config's.
    mutating func replaceRegions(_ regions: [FilterRegion]) {
        rules.regions = regions
        limitsContacts = rules.maxContacts != nil || regions.contains { $0.maxContacts != nil }
        blocksGestures = rules.blocksGestures && position != nil
    }

    // MARK: Palms

    /// True if the touch in `slot` is a palm now: the panel says so
    /// (MT_TOOL_PALM), or its major axis is over `palm_mm`.
    func isPalm(inSlot slot: Int, of slots: SourceSlots) -> Bool {
        if let axis = toolTypeAxis, slots.value(axis, in: slot) == Self.palmTool { return true }
        if let palmMajor, Double(slots.value(palmMajor.axis, in: slot)) > palmMajor.over { return true }
        return false
    }

    // MARK: max_contacts

    /// The `max_contacts` in force for a touch that begins in `slot`: by
    /// where it begins on the screen (the table's when the panel has no
    /// position axes to tell).
    func contactLimit(inSlot slot: Int, of slots: SourceSlots) -> Int? {
        guard let s = screenPosition(inSlot: slot, of: slots) else { return rules.maxContacts }
        return rules.maxContacts(atX: s.x, y: s.y)
    }

    /// Where the touch in `slot` is on the screen (0…1, the panel's
    /// geometry applied); nil for a panel without position axes.
    func screenPosition(inSlot slot: Int, of slots: SourceSlots) -> (x: Double, y: Double)? {
        guard let position else { return nil }
        return position.screen(x: slots.value(position.x, in: slot), y: slots.value(position.y, in: slot),
                               geometry: geometry)
    }

    // MARK: transform

    /// A touch's values as the copy gets them: positions as screen
    /// positions on the copy's axes under `transform`, else as they are.
    func output(_ values: [Int32]) -> [Int32] {
        guard !transformed.isEmpty else { return values }
        var out = values
        for pair in transformed where pair.x < values.count && pair.y < values.count {
            let s = pair.screen(x: values[pair.x], y: values[pair.y], geometry: geometry)
            out[pair.x] = PositionPair.denormalise(s.x, pair.copyX)
            out[pair.y] = PositionPair.denormalise(s.y, pair.copyY)
        }
        return out
    }
}

extension TouchFilterMachine {
    /// The description of a panel's copy (what its uinput device is made
    /// with): the panel's, except that with `transform` and a rotation of
    /// 90° or 270° the X and Y axes trade ranges and resolutions
    /// (MT_POSITION, MT_TOOL and the single-touch ABS_X/ABS_Y), since the
    /// copy's X is then the panel's Y. Flips and calibration keep the ranges:
    /// a screen position is written within the copy's own axis.
    public static func copyDescription(of panel: DeviceDescription, rules: FilterRules,
                                       geometry: ScreenGeometry) -> DeviceDescription {
        guard rules.transform else { return panel }
        switch geometry.rotation {
        case .none, .half:
            return panel
        case .quarter, .threeQuarters:
            var copy = panel
            let pairs: [(UInt16, UInt16)] = [
                (EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y),
                (FilterEventCode.ABS_MT_TOOL_X, FilterEventCode.ABS_MT_TOOL_Y),
                (EventCode.ABS_X, EventCode.ABS_Y),
            ]
            for (x, y) in pairs {
                guard let xInfo = panel.absInfo[x], let yInfo = panel.absInfo[y] else { continue }
                copy.absInfo[x] = yInfo
                copy.absInfo[y] = xInfo
            }
            return copy
        }
    }
}
