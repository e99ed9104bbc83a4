import Engine

/// Where and when a touch came down, in the ghost rule's terms: seconds and
/// millimetres on the panel.
struct TapWatch: Sendable, Equatable {
    var time: Double
    var x: Double
    var y: Double
}

/// How the ghost rule reads a panel's positions as millimetres:
/// MT_POSITION_X/Y through their declared resolution (units per mm). An
/// axis without one counts as `fallbackLength` mm long, so its 1 mm is
/// 1/200 of the axis: less than a millimetre on any kiosk panel, which errs
/// towards catching no person's tap (a ghost lands on the same value each
/// time, so a tighter place still catches it).
struct TapScale: Sendable {
    static let fallbackLength = 200.0

    let x: Int
    let y: Int
    let unitsPerMMX: Double
    let unitsPerMMY: Double

    /// nil when the panel has no position axes to tell a place by.
    init?(layout: FilterLayout, device: DeviceDescription) {
        func perMM(_ code: UInt16) -> Double? {
            guard let info = device.absInfo[code] else { return nil }
            if info.resolution > 0 { return Double(info.resolution) }
            guard info.maximum > info.minimum else { return nil }
            return Double(info.maximum - info.minimum) / Self.fallbackLength
        }
        guard let x = layout.contactAxis(of: EventCode.ABS_MT_POSITION_X),
              let y = layout.contactAxis(of: EventCode.ABS_MT_POSITION_Y),
              let px = perMM(EventCode.ABS_MT_POSITION_X), let py = perMM(EventCode.ABS_MT_POSITION_Y) else { return nil }
        self.x = x
        self.y = y
        unitsPerMMX = px
        unitsPerMMY = py
    }

    /// The place of the touch in `slot`, in mm.
    func place(inSlot slot: Int, of slots: SourceSlots) -> (x: Double, y: Double) {
        (Double(slots.value(x, in: slot)) / unitsPerMMX, Double(slots.value(y, in: slot)) / unitsPerMMY)
    }
}

extension TouchFilterMachine {
    /// What the filter did that its caller is to log or count
    /// (`ghost_touches`, touches withheld), in order, until taken (`takeNotices`).
    public enum Notice: Sendable, Equatable {
        /// A ghost tap pattern was confirmed (its third tap): taps of it are
        /// quarantined from now on. Once per pattern.
        case ghostPattern(GhostTapDetector.Pattern)
        /// A predicted ghost tap lifted within 50 ms, still: it was never
        /// written to the copy. Its down time and place (mm).
        case ghostQuarantined(time: Double, x: Double, y: Double)
        /// A touch the copy never gets (any more of), for a rule: one too
        /// many for `max_contacts` (at its first frame), or a palm (at its
        /// first frame, or when it becomes one mid-touch), or a finger of a
        /// gesture `block` keeps from the UI. Once per touch.
        case touchWithheld(WithheldReason)
    }

    /// Why a touch was withheld (`Notice.touchWithheld`): the `reason`
    /// label of `transitiond_touches_withheld_total`.
    public enum WithheldReason: String, Sendable, Equatable, CaseIterable {
        case maxContacts = "max_contacts"
        case palm
        /// A finger of a gesture `block` keeps from the UI.
        case block
    }

    /// The ghost tap patterns confirmed and still in force (not lapsed by
    /// `time`, or by the latest time the filter has seen when nil), oldest
    /// first: the patterns whose taps are quarantined.
    public func ghostPatterns(at time: Double? = nil) -> [GhostTapDetector.Pattern] {
        ghosts.confirmed(at: time ?? clock ?? 0)
    }

    /// Notices kept at most if the caller takes none: the oldest go (each
    /// ghost tap makes one, so only a caller that never looks fills it).
    static let noticeLimit = 1024

    /// The notices since the last call, oldest first.
    public mutating func takeNotices() -> [Notice] {
        guard !notices.isEmpty else { return [] }
        defer { notices.removeAll(keepingCapacity: true) }
        return notices
    }

    mutating func notify(_ notice: Notice) {
        if notices.count >= Self.noticeLimit { notices.removeFirst() }
        notices.append(notice)
    }

    // MARK: What the engine sees

    /// The ghost rule is on for this panel.
    public var watchesGhosts: Bool { tapScale != nil }

    /// After `feed` completed a frame (at `time`) and before `decide`: true
    /// if the touch in `slot` is held as a predicted ghost tap that may
    /// still be one (it is new, due where and when a pattern's next tap is;
    /// or it is held so, under 50 ms old, and has not moved 1 mm). The live
    /// input keeps such a touch from the engine too: an extra contact for
    /// 50 ms could stop a gesture starting then. Once it proves a touch,
    /// the engine sees it from that frame on, with where it came down.
    public func isGhostSuspect(inSlot slot: Int, at time: Double) -> Bool {
        guard tapScale != nil, slot >= 0, slot < layout.slotCount, let id = frame.touch(in: slot) else { return false }
        guard let touch = touches[slot], touch.id == id else {
            return isPredictedGhost(watchTap(inSlot: slot, at: time))
        }
        guard case .held(let held) = touch.disposition, let until = held.ghostUntil, time < until else { return false }
        return stillWatch(touch.tap, inSlot: slot) != nil
    }

    // MARK: The ghost rule, touch by touch

    /// A new touch's watch: where and when it came down (nil with the rule off).
    func watchTap(inSlot slot: Int, at now: Double) -> TapWatch? {
        guard let tapScale else { return nil }
        let place = tapScale.place(inSlot: slot, of: frame)
        return TapWatch(time: now, x: place.x, y: place.y)
    }

    /// True if a touch that came down as `tap` is where and when a
    /// pattern's next ghost tap is due (`GhostTapDetector`).
    func isPredictedGhost(_ tap: TapWatch?) -> Bool {
        guard let tap else { return false }
        return ghosts.predictsGhost(at: tap.time, x: tap.x, y: tap.y)
    }

    /// A frame of a touch that moved: it is no ghost tap once 1 mm from
    /// where it came down.
    func stillWatch(_ tap: TapWatch?, inSlot slot: Int) -> TapWatch? {
        guard let tap, let tapScale else { return nil }
        let place = tapScale.place(inSlot: slot, of: frame)
        let dx = place.x - tap.x, dy = place.y - tap.y
        return dx * dx + dy * dy < GhostTapDetector.stillness * GhostTapDetector.stillness ? tap : nil
    }

    /// True if a touch watched as `tap` that ends at `now` was a short, still tap.
    func isShortStillTap(_ tap: TapWatch?, endingAt now: Double) -> Bool {
        guard let tap else { return false }
        return now - tap.time <= GhostTapDetector.tapDuration
    }

    /// A completed short, still tap: the detector learns it; a pattern it
    /// confirms is noticed.
    mutating func recordTap(_ tap: TapWatch) {
        if let pattern = ghosts.recordTap(at: tap.time, x: tap.x, y: tap.y) {
            notify(.ghostPattern(pattern))
        }
    }
}
