import Engine

/// One touch of the clone: the source touch it shows, its own tracking id,
/// when it began among the clone's touches, and its axis values.
struct CloneTouch: Sendable, Equatable {
    let source: UInt64
    let trackingID: Int32
    /// Begin order: the lowest active one is the oldest (pointer emulation).
    let order: UInt64
    var values: [Int32]
}

/// The uinput clone's multitouch state: what it should show now (`current`)
/// and what it has been written (`written`). Changes go to `current`; `flush`
/// writes the difference as one frame: per slot ABS_MT_SLOT, the tracking id
/// on begin and end, the changed axes (all of them for a new touch); then the
/// key bits and the single-touch axes that changed; then SYN_REPORT. Nothing
/// changed, no frame.
///
/// Every touch gets the slot of its source touch when that slot is free,
/// else the lowest free one; a slot is free when neither `current` nor
/// `written` has a touch in it, so a slot never ends one touch and begins
/// another in one frame. Tracking ids count 0…65535 and wrap, skipping the
/// ones in use.
struct CloneState: Sendable {
    static let maxTrackingID: Int32 = 65535

    private let layout: FilterLayout
    private var current: [CloneTouch?]
    private var written: [CloneTouch?]
    /// The last ABS_MT_SLOT written; nil until the first.
    private var writtenSlot: Int? = nil
    /// By `layout.keys` index.
    private var writtenKeys: [Bool]
    /// By `layout.pointerAxes` index; nil until the first.
    private var writtenPointer: [Int32?]
    private var nextTrackingID: Int32 = 0
    private var nextOrder: UInt64 = 0
    /// The due time of the last frame written (frames never go back in time).
    private(set) var lastDue = -Double.infinity
    /// Begins that found no free slot. The filter's rules make this
    /// impossible; the tests check it stays 0.
    private(set) var lostBegins = 0

    init(layout: FilterLayout) {
        self.layout = layout
        current = Array(repeating: nil, count: layout.slotCount)
        written = current
        writtenKeys = Array(repeating: false, count: layout.keys.count)
        writtenPointer = Array(repeating: nil, count: layout.pointerAxes.count)
    }

    // MARK: Changes

    /// True if the clone shows (or is about to show) `touch`.
    func shows(_ touch: UInt64) -> Bool { slot(of: touch) != nil }

    private func slot(of touch: UInt64) -> Int? {
        current.firstIndex { $0?.source == touch }
    }

    mutating func apply(_ change: TouchChange, of touch: UInt64, sourceSlot: Int,
                        due: Double, into output: inout [TouchFilterMachine.Output]) {
        switch change {
        case .begin(let values):
            begin(touch, preferring: sourceSlot, values: values, due: due, into: &output)
        case .move(let values):
            if let slot = slot(of: touch) { current[slot]?.values = values }
        case .end:
            end(touch)
        }
    }

    /// A new touch. If every free slot was freed since the last frame, that
    /// frame is written first (due `due`).
    mutating func begin(_ touch: UInt64, preferring preferred: Int, values: [Int32],
                        due: Double, into output: inout [TouchFilterMachine.Output]) {
        if let slot = slot(of: touch) {
            current[slot]?.values = values
            return
        }
        var free = freeSlot(preferring: preferred)
        if free == nil && current.contains(where: { $0 == nil }) {
            flush(due: due, into: &output)
            free = freeSlot(preferring: preferred)
        }
        guard let slot = free else {
            lostBegins += 1
            return
        }
        current[slot] = CloneTouch(source: touch, trackingID: newTrackingID(), order: nextOrder, values: values)
        nextOrder &+= 1
    }

    mutating func end(_ touch: UInt64) {
        if let slot = slot(of: touch) { current[slot] = nil }
    }

    mutating func endAll() {
        for slot in current.indices { current[slot] = nil }
    }

    private func freeSlot(preferring preferred: Int) -> Int? {
        func isFree(_ slot: Int) -> Bool { current[slot] == nil && written[slot] == nil }
        if preferred >= 0 && preferred < current.count && isFree(preferred) { return preferred }
        return current.indices.first(where: isFree)
    }

    private mutating func newTrackingID() -> Int32 {
        // At most 2 × 256 ids are in use, so one of the next 513 is free.
        var id = nextTrackingID
        for _ in 0...(2 * current.count) {
            let inUse = current.contains { $0?.trackingID == id } || written.contains { $0?.trackingID == id }
            if !inUse { break }
            id = id >= Self.maxTrackingID ? 0 : id + 1
        }
        nextTrackingID = id >= Self.maxTrackingID ? 0 : id + 1
        return id
    }

    // MARK: Writing

    /// Writes what changed since the last frame as one frame due at `due`
    /// (or at the last frame's due, if that is later).
    mutating func flush(due: Double, into output: inout [TouchFilterMachine.Output]) {
        let due = max(due, lastDue)
        let start = output.count
        func write(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            output.append(TouchFilterMachine.Output(due: due, type: type, code: code, value: value))
        }
        func select(_ slot: Int) {
            if writtenSlot != slot {
                write(EventCode.EV_ABS, EventCode.ABS_MT_SLOT, Int32(slot))
                writtenSlot = slot
            }
        }
        func writeAll(_ touch: CloneTouch) {
            write(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, touch.trackingID)
            for (axis, code) in layout.contactAxes.enumerated() where axis < touch.values.count {
                write(EventCode.EV_ABS, code, touch.values[axis])
            }
        }

        for slot in current.indices {
            switch (written[slot], current[slot]) {
            case (nil, nil):
                continue
            case (.some, nil):
                select(slot)
                write(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1)
            case (nil, .some(let new)):
                select(slot)
                writeAll(new)
            case (.some(let old), .some(let new)) where old.trackingID != new.trackingID:
                // Not reached (`begin` never takes a slot `written` holds); kept well-formed.
                select(slot)
                write(EventCode.EV_ABS, EventCode.ABS_MT_TRACKING_ID, -1)
                writeAll(new)
            case (.some(let old), .some(let new)):
                for (axis, code) in layout.contactAxes.enumerated()
                where axis < new.values.count && (axis >= old.values.count || old.values[axis] != new.values[axis]) {
                    select(slot)
                    write(EventCode.EV_ABS, code, new.values[axis])
                }
            }
        }

        var count = 0
        var oldest: CloneTouch? = nil
        for case let touch? in current {
            count += 1
            if oldest.map({ touch.order < $0.order }) ?? true { oldest = touch }
        }
        for (i, key) in layout.keys.enumerated() {
            let on = key.isOn(touches: count)
            if on != writtenKeys[i] {
                write(EventCode.EV_KEY, key.code, on ? 1 : 0)
                writtenKeys[i] = on
            }
        }
        for (i, axis) in layout.pointerAxes.enumerated() {
            // Idle values only after a touch (the clone starts idle).
            var value = writtenPointer[i] == nil ? nil : axis.idle
            if let oldest, axis.contactAxis < oldest.values.count { value = oldest.values[axis.contactAxis] }
            if let value, value != writtenPointer[i] {
                write(EventCode.EV_ABS, axis.code, value)
                writtenPointer[i] = value
            }
        }

        if output.count > start {
            write(EventCode.EV_SYN, EventCode.SYN_REPORT, 0)
            lastDue = due
        }
        written = current
    }
}
