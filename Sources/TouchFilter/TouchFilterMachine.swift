import Engine

/// The touch filter of filter mode: which touches of a grabbed panel its
/// uinput clone (and so the UI) gets, written as a well-formed multitouch
/// protocol B stream.
///
/// A value-type state machine: `feed` takes the source's raw events; after
/// each frame the caller asks the engine about every active slot and passes
/// the verdicts to `decide`; `advance(to:)` at `nextDeadline` lets held
/// touches go and delayed frames out; `sourceLost` ends everything. It does no
/// I/O and reads no clock: times are seconds on the input's clock
/// (`InputEvent.time` × 1e-6), and a time earlier than one already seen (or
/// not finite) counts as that latest time.
///
/// A touch that begins in a gesture's start area (`.startArea`) is held:
/// its frames are recorded and nothing is output, for at most `hold` seconds
/// from its first frame. Claimed meanwhile, it is swallowed. Freed, lifted or
/// out of time, it is released: from then on it is output with a fixed lag
/// D = release time − its first frame's time, every frame of it (recorded or
/// live, and its end) due at its source time + D. A tap held and lifted
/// within the hold thus reaches the UI as down and up with the original gap.
/// A free touch is output live (D = 0). A touch claimed after it was output
/// ends in the output at once. Swallowed touches never come back.
///
/// The output is the clone's own: its tracking ids, its slots (the source
/// touch's slot when free), only what changed per frame, BTN_TOUCH and
/// BTN_TOOL_FINGER…QUINTTAP for the number of output touches, ABS_X/ABS_Y
/// (and ABS_PRESSURE) from the oldest output touch, for the codes the device
/// declares. When a source slot gets a new touch while the old touch of that
/// slot still has delayed frames, those are output at once, so the clone
/// never needs more slots than the source has.
///
/// The `[filter]` rules (`FilterRules`). With `.none` only the palm tool
/// type applies (a panel's own word that a contact is no finger: libinput
/// drops such touches too); everything else is as without rules.
/// - palms: a touch the panel reports as `MT_TOOL_PALM`, or whose
///   ABS_MT_TOUCH_MAJOR is over `palm_mm` (read through the axis's declared
///   resolution; without one only the tool type tells), is never output; one
///   that becomes a palm mid-touch goes as a touch claimed then (ended in the
///   output at once if it was out), and never comes back.
/// - `max_contacts`: each touch takes the limit in force where it begins
///   (its first position on the screen: the panel's geometry applied, the
///   table's limit or its region's). The touches counted are the held and
///   the forwarded ones (a held touch from its first frame, since it may be
///   released; swallowed and withheld ones never count). A new touch is
///   admitted only if that count is below its own limit and below the limit
///   of every touch counted, so the copy never has more touches than the
///   limit of any touch on it (a limit of 0 withholds every touch); else it
///   is withheld until it lifts, whatever lifts meanwhile. Touches that
///   lifted but whose end still waits for its lag are ended at once when
///   the new touch needs their room. The count is taken as the new touch's
///   first frame is decided, slot by slot: a touch of a higher slot that is
///   claimed (or becomes a palm) in that same frame still counts.
/// - `transform`: every position the copy gets is the screen position s
///   (0…1, the panel's geometry applied) written as min + s·(max − min) of
///   the copy's own axis, clamped to it; the copy's description
///   (`copyDescription`) has X and Y traded for a 90° or 270° rotation.
/// - `ghost_touches = "quarantine"` (`GhostTapDetector` has the rule): every
///   touch that lifts within 50 ms having moved less than 1 mm (and was not
///   swallowed) is a tap the detector learns. A touch admitted where and
///   when a pattern's next tap is due (its third tap on) is held (a variant
///   of the start-area hold) for 50 ms from its first frame: if it lifts by
///   then, still, it is quarantined — never output, noticed
///   (`takeNotices`); if it moves 1 mm or stays down, it is released with
///   the lag rule above (so a real touch there reaches the UI whole, at
///   most 50 ms late). A touch also in a start area is held for the longer
///   of the two holds while both apply. A pattern's first two taps are
///   forwarded: nothing is known of them yet.
/// - `block`: a pinch or an N-finger swipe no transition claims keeps every
///   finger but the first from the copy; further fingers are held like an
///   edge touch meanwhile (`TouchFilterMachine+Block.swift` has the rule).
public struct TouchFilterMachine: Sendable {
    /// What the engine says about one source touch at the frame just fed.
    public enum Verdict: Sendable, Equatable {
        /// A transition owns it: the UI must not get it (ended in the output
        /// if it was already forwarded).
        case claimed
        /// It began in a gesture's start area and no transition owns it yet:
        /// hold it (for at most `hold` seconds).
        case startArea
        /// Forward it.
        case free
    }

    /// One event to write to the uinput clone (the kernel stamps the time),
    /// with the time it is due on the input's clock. Outputs come in whole
    /// frames (ending with SYN_REPORT) and their due times never go back.
    public struct Output: Sendable, Equatable {
        public var due: Double
        public var type: UInt16
        public var code: UInt16
        public var value: Int32

        public init(due: Double, type: UInt16, code: UInt16, value: Int32) {
            self.due = due
            self.type = type
            self.code = code
            self.value = value
        }
    }

    /// Seconds a touch in a start area is held at most.
    public let hold: Double
    /// The number of slots of the source (and of the clone).
    public var slotCount: Int { layout.slotCount }

    let layout: FilterLayout
    /// The `[filter]` rules as this panel's filter applies them.
    var applied: AppliedRules
    var reader: SourceReader
    /// The source at the last SYN_REPORT.
    var frame: SourceSlots
    /// The source at the last `decide`.
    var decided: SourceSlots
    /// The decided touch of each source slot.
    var touches: [SourceTouch?]
    var delayed = DelayedSteps()
    var clone: CloneState
    /// The latest time seen.
    var clock: Double? = nil
    /// `ghost_touches = "quarantine"`: how places become millimetres (nil
    /// with the rule off, or a panel without position axes), the patterns
    /// seen, and what the caller is to hear of them.
    let tapScale: TapScale?
    var ghosts = GhostTapDetector()
    /// `block`: the group of touches on their way to the copy that may be a
    /// blocked gesture (nil: fewer than two).
    var blockGroup: BlockGroup? = nil
    public internal(set) var notices: [Notice] = []

    /// The `[filter]` rules it applies.
    public var rules: FilterRules { applied.rules }

    /// Throws unless the device is a multitouch protocol B panel with at most
    /// 256 slots, or if `hold` is not a finite number of seconds ≥ 0, or
    /// `rules.palmMillimetres` not a finite number > 0. `geometry`: how the
    /// panel's positions become the screen's (as the engine sees them), for
    /// where a touch begins (`max_contacts` of a region) and `transform`.
    public init(device: DeviceDescription, hold: Double = 0.08, rules: FilterRules = .none,
                geometry: ScreenGeometry = .identity) throws(TouchFilterError) {
        guard hold.isFinite && hold >= 0 else {
            throw TouchFilterError("the hold of filter mode must be a finite number of seconds ≥ 0, not \(hold)")
        }
        self.hold = hold
        layout = try FilterLayout(device: device)
        applied = try AppliedRules(rules: rules, geometry: geometry, layout: layout, device: device)
        switch rules.ghostTouches {
        case .off: tapScale = nil
        case .quarantine: tapScale = TapScale(layout: layout, device: device)
        }
        reader = SourceReader(layout: layout)
        frame = reader.slots
        decided = frame
        touches = Array(repeating: nil, count: layout.slotCount)
        clone = CloneState(layout: layout)
    }

    // MARK: Source events

    /// Feeds one raw source event (as read by libevdev, including a
    /// SYN_DROPPED marker followed by the resync delta up to its SYN_REPORT).
    /// Returns true when the event was a SYN_REPORT that completed a frame;
    /// then the caller calls `decide` (with the frame's time: the events'
    /// own times are not read).
    public mutating func feed(_ event: InputEvent) -> Bool {
        guard reader.read(event) else { return false }
        frame = reader.slots
        return true
    }

    /// The source slots with a touch in the frame just completed, ascending,
    /// so the caller can ask the engine about each.
    public var activeSlots: [Int] { frame.activeSlots }

    // MARK: Deciding

    /// After a frame (`time`: its time): the verdict for each active slot
    /// (slots not in the dictionary count as `.free`; others are ignored).
    /// Appends the output frames due by `time` to `output`; later ones wait
    /// for `advance(to:)`.
    public mutating func decide(at time: Double, verdicts: [Int: Verdict], into output: inout [Output]) {
        let now = tick(time)
        expireHolds(by: now)
        emitDelayed(by: now, into: &output)

        let previous = decided
        let current = frame
        decided = current
        // Touches that ended (or were replaced by a new tracking id).
        for slot in 0..<layout.slotCount {
            if let old = previous.touch(in: slot), old != current.touch(in: slot) {
                endTouch(inSlot: slot, at: now, into: &output)
            }
        }
        // New touches: what is left of their slot's earlier touches goes out now.
        for slot in 0..<layout.slotCount {
            if let new = current.touch(in: slot), new != previous.touch(in: slot) {
                flushDelayed(ofSlot: slot, at: now, into: &output)
            }
        }
        for slot in 0..<layout.slotCount {
            guard let id = current.touch(in: slot) else { continue }
            let verdict = verdicts[slot] ?? .free
            if var touch = touches[slot], touch.id == id {
                let moved = !current.sameValues(in: slot, as: previous)
                continueTouch(&touch, inSlot: slot, verdict: verdict, moved: moved, at: now, into: &output)
                touches[slot] = touch
            } else {
                touches[slot] = beginTouch(id, inSlot: slot, verdict: verdict, at: now, into: &output)
            }
        }

        checkBlock()
        emitDelayed(by: now, into: &output)
        clone.flush(due: now, into: &output)
        enforceDelayedLimit(at: now, into: &output)
    }

    // MARK: Time

    /// When held touches must be released or delayed output is due (nil when
    /// nothing waits); the caller calls `advance(to:)` then.
    public var nextDeadline: Double? {
        var next = delayed.firstDue
        for case let touch? in touches {
            switch touch.disposition {
            case .held(let held):
                next = min(next ?? held.deadline, held.deadline)
            case .forwarded, .swallowed, .withheld:
                continue
            }
        }
        return next
    }

    /// Releases the holds that expired by `time` and appends the delayed
    /// frames due by `time` to `output`.
    public mutating func advance(to time: Double, into output: inout [Output]) {
        let now = tick(time)
        expireHolds(by: now)
        emitDelayed(by: now, into: &output)
    }

    // MARK: Losing the source

    /// The source vanished (or the daemon stops): every touch of the output
    /// ends, in one final frame (none if none was down); delayed frames and
    /// held touches are dropped. The source state starts afresh, as for a
    /// re-attached device.
    public mutating func sourceLost(at time: Double, into output: inout [Output]) {
        let now = tick(time)
        delayed.removeAll()
        clone.endAll()
        clone.flush(due: now, into: &output)
        reader = SourceReader(layout: layout)
        frame = reader.slots
        decided = frame
        blockGroup = nil
        for slot in touches.indices { touches[slot] = nil }
    }

    /// The touch in source slot `slot` is stuck (`[filter] stuck_after`: the
    /// panel said nothing for that long): it ends on the copy now, in a frame
    /// of its own (its tracking id -1, the key bits and pointer axes to
    /// match), with its delayed frames dropped; a held one is never output.
    /// What the panel says later of that same touch changes nothing (it is
    /// swallowed, as a claimed one is); the slot's next tracking id is a new
    /// touch. Nothing happens for an empty slot or one whose touch the copy
    /// never had.
    public mutating func slotStuck(_ slot: Int, at time: Double, into output: inout [Output]) {
        let now = tick(time)
        emitDelayed(by: now, into: &output)
        guard slot >= 0, slot < touches.count, let touch = touches[slot] else { return }
        switch touch.disposition {
        case .swallowed, .withheld:
            return
        case .held:
            touches[slot]?.disposition = .swallowed
        case .forwarded:
            delayed.removeSteps(for: touch.id)
            clone.end(touch.id)
            touches[slot]?.disposition = .swallowed
            clone.flush(due: now, into: &output)
        }
    }

    /// Replaces the `[[filter.region]]` regions (the UI's `filter_regions`).
    /// Touches down keep the `max_contacts` they began under, and a group
    /// of fingers the `block` list it formed under (and its reference):
    /// the new regions apply to the touches and groups that come after.
    public mutating func replaceRegions(_ regions: [FilterRegion]) {
        applied.replaceRegions(regions)
    }

    /// `time`, or the latest time seen if that is later or `time` is not finite.
    mutating func tick(_ time: Double) -> Double {
        var now = time.isFinite ? time : (clock ?? 0)
        if let clock, !(now >= clock) { now = clock }
        clock = now
        return now
    }
}
