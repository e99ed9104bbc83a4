/// Why a device cannot drive the engine.
public struct DeviceSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Turns a device's evdev event stream into `TouchFrame`s (design "Frames"):
/// multitouch protocol B (slots and tracking ids), protocol A
/// (`SYN_MT_REPORT` packets) or single touch (`BTN_TOUCH` + `ABS_X`/`ABS_Y`),
/// chosen from the device's axes; positions normalised by the axes' absinfo.
/// Feed it events; after a `SYN_REPORT` it has a frame.
///
/// Palms (`PalmRule`: `MT_TOOL_PALM`, or a major axis over `palm_mm`) never
/// appear in the frames. A contact that becomes one mid-touch leaves them
/// as withdrawn (`TouchFrame.withdrawn`, reason `palm`), not lifted, and so
/// does every contact `withdrawAll` ends (a stuck one). A withdrawn contact
/// stays out until its slot gets a new tracking id (or, single touch, until
/// BTN_TOUCH goes up; protocol A, until a frame with no contact): the panel
/// may go on reporting it, but the engine has ended it and the UI's copy
/// has seen it lift, so bringing it back would be a touch-down where no
/// finger landed (and one that might start a gesture from wherever it is).
public struct TouchFrameAssembler: Sendable {
    /// The touch protocol a device speaks.
    public enum TouchProtocol: Sendable, Equatable {
        case multitouchB(slots: Int)
        case multitouchA
        case singleTouch
    }

    /// A normalising map for one axis.
    struct Axis: Sendable {
        let minimum: Double
        let scale: Double
        init(_ code: UInt16, _ info: AbsInfo) throws(DeviceSetupError) {
            guard info.maximum > info.minimum else {
                throw DeviceSetupError("axis \(EventCode.absName(code)) has max \(info.maximum) ≤ min \(info.minimum): cannot normalise positions")
            }
            minimum = Double(info.minimum)
            scale = 1 / (Double(info.maximum) - Double(info.minimum))
        }
        @inline(__always) func normalise(_ v: Int32) -> Double { (Double(v) - minimum) * scale }
    }

    /// One multitouch slot (protocol B), or the single-touch state.
    struct Slot: Sendable {
        var trackingID: Int32 = -1
        var x: Int32
        var y: Int32
        var touch = 0
        var fresh = false
        var downX = 0.0
        var downY = 0.0
        /// ABS_MT_TOOL_TYPE and ABS_MT_TOUCH_MAJOR, for the palm rule
        /// (kept across touches, as the kernel's slots keep them).
        var tool: Int32 = 0
        var major: Int32 = 0
        /// Taken out of the frames (a palm, a stuck contact) until its next touch.
        var withdrawn = false
    }

    /// One protocol-A packet being read.
    struct Packet: Sendable {
        var x: Int32? = nil
        var y: Int32? = nil
        var trackingID: Int32? = nil
        var tool: Int32? = nil
        var major: Int32? = nil
    }

    public let touchProtocol: TouchProtocol
    private let xAxis: Axis
    private let yAxis: Axis
    /// Event times are microseconds; frame times are seconds after this.
    public var timeOrigin: Int64
    /// Panel positions → screen positions (calibration, rotation, flips).
    public let geometry: ScreenGeometry
    /// Which contacts are palms.
    public let palmRule: PalmRule

    /// Protocol B's slots (none for the other protocols).
    private var slots: [Slot]
    /// Single touch's one touch: not in `slots`, so that an event changes
    /// a stored value rather than an array element (checked for a unique
    /// buffer on every write).
    private var single: Slot
    private var currentSlot: Int
    private var touching = false
    private var dropping = false
    private var nextTouch = 1
    // protocol A
    private var packet = Packet()
    private var packets: [Packet] = []
    private var previousA: [Slot] = []
    /// Protocol A after `withdrawAll`: every packet is ignored until a frame without one.
    private var stuckA = false

    /// The frame completed by the last `SYN_REPORT`.
    public private(set) var frame = TouchFrame(time: 0, contacts: [])

    /// `source`: which touchscreen this is; its frames carry it.
    /// `palmMillimetres`: `[filter] palm_mm` (nil: only `MT_TOOL_PALM` tells a palm).
    public init(device: DeviceDescription, timeOrigin: Int64 = 0,
                geometry: ScreenGeometry = .identity, source: Int = 0,
                palmMillimetres: Double? = nil) throws(DeviceSetupError) {
        self.timeOrigin = timeOrigin
        self.geometry = geometry
        palmRule = PalmRule(millimetres: palmMillimetres, device: device)
        frame.source = source
        let info = device.absInfo
        let xCode: UInt16, yCode: UInt16
        if info[EventCode.ABS_MT_POSITION_X] != nil && info[EventCode.ABS_MT_POSITION_Y] != nil {
            xCode = EventCode.ABS_MT_POSITION_X
            yCode = EventCode.ABS_MT_POSITION_Y
            if let slotInfo = info[EventCode.ABS_MT_SLOT] {
                guard slotInfo.maximum >= 0, slotInfo.minimum == 0, slotInfo.maximum < 256 else {
                    throw DeviceSetupError("axis ABS_MT_SLOT has range \(slotInfo.minimum)…\(slotInfo.maximum): expected 0…N with N < 256")
                }
                touchProtocol = .multitouchB(slots: Int(slotInfo.maximum) + 1)
            } else {
                touchProtocol = .multitouchA
            }
        } else if info[EventCode.ABS_X] != nil && info[EventCode.ABS_Y] != nil {
            xCode = EventCode.ABS_X
            yCode = EventCode.ABS_Y
            touchProtocol = .singleTouch
        } else {
            throw DeviceSetupError("device \"\(device.name)\" has no touch axes (neither ABS_MT_POSITION_X/Y nor ABS_X/Y)")
        }
        xAxis = try Axis(xCode, info[xCode]!)
        yAxis = try Axis(yCode, info[yCode]!)
        let x0 = info[xCode]!.value, y0 = info[yCode]!.value
        single = Slot(x: x0, y: y0)
        switch touchProtocol {
        case .multitouchB(let count):
            slots = Array(repeating: Slot(x: x0, y: y0), count: count)
            let start = Int(info[EventCode.ABS_MT_SLOT]?.value ?? 0)
            currentSlot = start >= 0 && start < count ? start : 0
        case .multitouchA, .singleTouch:
            slots = []
            currentSlot = 0
        }
        frame.contacts.reserveCapacity(max(slots.count, 10))
    }

    /// The contact id of the touch in multitouch slot `slot` (protocol B),
    /// nil when the slot is empty or the device has no slots: how the touch
    /// filter asks the engine about a slot.
    public func contactID(inSlot slot: Int) -> Int? {
        guard case .multitouchB = touchProtocol, slot >= 0, slot < slots.count,
              slots[slot].trackingID >= 0, slots[slot].touch > 0, !slots[slot].withdrawn else { return nil }
        return slots[slot].touch
    }

    /// True if some contact is down (in the last frame, or begun since).
    public var hasContacts: Bool {
        switch touchProtocol {
        case .multitouchB: return slots.contains { $0.trackingID >= 0 && !$0.withdrawn }
        case .multitouchA: return !stuckA && previousA.contains { !$0.withdrawn }
        case .singleTouch: return single.trackingID >= 0 && !single.withdrawn
        }
    }

    /// Ends every contact down without a lift (the panel's silence says
    /// they are stuck: `[filter] stuck_after`): `frame` becomes a frame at
    /// `time` (seconds, as frames' times) with none of them, each in its
    /// `withdrawn` with `reason`; they stay out until their next touch (see
    /// above). Returns how many contacts that frame withdrew (0: none was
    /// down, and `frame` is then an empty frame at `time`).
    @discardableResult
    public mutating func withdrawAll(at time: Double, reason: EndReason) -> Int {
        frame.time = time
        frame.contacts.clearKeepingCapacity()
        frame.withdrawn.removeAll(keepingCapacity: true)
        switch touchProtocol {
        case .multitouchB:
            for i in slots.indices { Self.withdraw(&slots[i], reason, into: &frame.withdrawn) }
        case .multitouchA:
            // Every contact of the last frame is down (they may have no tracking id).
            if !stuckA {
                for c in previousA where !c.withdrawn { frame.withdrawn.append(WithdrawnContact(id: c.touch, reason: reason)) }
                stuckA = !previousA.isEmpty
            }
        case .singleTouch:
            Self.withdraw(&single, reason, into: &frame.withdrawn)
        }
        return frame.withdrawn.count
    }

    private static func withdraw(_ slot: inout Slot, _ reason: EndReason, into withdrawn: inout [WithdrawnContact]) {
        guard slot.trackingID >= 0, !slot.withdrawn else { return }
        slot.withdrawn = true
        // A contact never in a frame (no SYN_REPORT yet) has nothing to cancel.
        if !slot.fresh { withdrawn.append(WithdrawnContact(id: slot.touch, reason: reason)) }
    }

    // MARK: Feeding events

    /// Takes one event; returns true when it completed a frame (`frame`).
    @inline(__always)
    public mutating func feed(_ event: InputEvent) -> Bool {
        if event.type == EventCode.EV_SYN {
            return synchronise(event)
        }
        if dropping { return false }
        if event.type == EventCode.EV_ABS {
            absolute(event.code, event.value)
        } else if event.type == EventCode.EV_KEY && event.code == EventCode.BTN_TOUCH {
            touching = event.value != 0
        }
        return false
    }

    /// Takes `events` from `start` up to and including the next
    /// `SYN_REPORT`, in one call (the replay's way: a call per frame rather
    /// than per event). Returns the index of that report (nil when none
    /// comes before the end: all were taken) and whether it completed a
    /// frame (`frame`; not after a `SYN_DROPPED`).
    public mutating func feedFrame(_ events: borrowing [InputEvent], from start: Int) -> (report: Int?, complete: Bool) {
        var i = start
        while i < events.count {
            let event = events[i]
            let complete = feed(event)
            if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT { return (i, complete) }
            i += 1
        }
        return (nil, false)
    }

    @inline(__always)
    private mutating func absolute(_ code: UInt16, _ value: Int32) {
        switch touchProtocol {
        case .multitouchB:
            switch code {
            case EventCode.ABS_MT_SLOT:
                currentSlot = value >= 0 && Int(value) < slots.count ? Int(value) : -1
            case EventCode.ABS_MT_POSITION_X:
                if currentSlot >= 0 { slots[currentSlot].x = value }
            case EventCode.ABS_MT_POSITION_Y:
                if currentSlot >= 0 { slots[currentSlot].y = value }
            case EventCode.ABS_MT_TRACKING_ID:
                guard currentSlot >= 0 else { return }
                if value < 0 {
                    slots[currentSlot].trackingID = -1
                    slots[currentSlot].withdrawn = false
                } else if value != slots[currentSlot].trackingID {
                    // A new touch (even without a lift in between); the slot
                    // keeps its last X and Y until new ones arrive.
                    slots[currentSlot].trackingID = value
                    slots[currentSlot].touch = nextTouch
                    slots[currentSlot].fresh = true
                    slots[currentSlot].withdrawn = false
                    nextTouch += 1
                }
            case EventCode.ABS_MT_TOOL_TYPE:
                if currentSlot >= 0 { slots[currentSlot].tool = value }
            case EventCode.ABS_MT_TOUCH_MAJOR:
                if currentSlot >= 0 { slots[currentSlot].major = value }
            default:
                return
            }
        case .multitouchA:
            switch code {
            case EventCode.ABS_MT_POSITION_X: packet.x = value
            case EventCode.ABS_MT_POSITION_Y: packet.y = value
            case EventCode.ABS_MT_TRACKING_ID: packet.trackingID = value
            case EventCode.ABS_MT_TOOL_TYPE: packet.tool = value
            case EventCode.ABS_MT_TOUCH_MAJOR: packet.major = value
            default: return
            }
        case .singleTouch:
            switch code {
            case EventCode.ABS_X: single.x = value
            case EventCode.ABS_Y: single.y = value
            default: return
            }
        }
    }

    @inline(__always)
    private mutating func synchronise(_ event: InputEvent) -> Bool {
        switch event.code {
        case EventCode.SYN_REPORT:
            if dropping {
                // design: after SYN_DROPPED everything up to the next report is lost.
                dropping = false
                packet = Packet()
                packets.removeAll(keepingCapacity: true)
                return false
            }
            frame.time = Double(event.time &- timeOrigin) * 1e-6
            frame.contacts.clearKeepingCapacity()
            if !frame.withdrawn.isEmpty { frame.withdrawn.removeAll(keepingCapacity: true) }
            switch touchProtocol {
            case .multitouchB: collectSlots()
            case .multitouchA: collectPackets()
            case .singleTouch: collectSingle()
            }
            return true
        case EventCode.SYN_MT_REPORT:
            if touchProtocol == .multitouchA && !dropping {
                if packet.x != nil || packet.y != nil { packets.append(packet) }
                packet = Packet()
            }
            return false
        case EventCode.SYN_DROPPED:
            dropping = true
            return false
        default:
            return false
        }
    }

    // MARK: Building frames

    private mutating func collectSlots() {
        for i in slots.indices where slots[i].trackingID >= 0 && !slots[i].withdrawn {
            if palmRule.isPalm(tool: slots[i].tool, major: slots[i].major) {
                Self.withdrawPalm(&slots[i], into: &frame.withdrawn)
                continue
            }
            frame.contacts.append(Self.contact(&slots[i], xAxis, yAxis, geometry))
        }
    }

    /// A contact that is a palm: out of the frames until its next touch; one
    /// that was in them (it became a palm mid-touch) is withdrawn.
    private static func withdrawPalm(_ slot: inout Slot, into withdrawn: inout [WithdrawnContact]) {
        slot.withdrawn = true
        if !slot.fresh { withdrawn.append(WithdrawnContact(id: slot.touch, reason: .palm)) }
    }

    private mutating func collectSingle() {
        if touching {
            if single.trackingID < 0 {
                single.trackingID = 0
                single.touch = nextTouch
                single.fresh = true
                nextTouch += 1
            }
            if single.withdrawn { return }
            frame.contacts.append(Self.contact(&single, xAxis, yAxis, geometry))
        } else {
            single.trackingID = -1
            single.withdrawn = false
        }
    }

    /// Protocol A has no slots: a packet with a tracking id keeps that
    /// identity; without one, the i-th packet continues the i-th contact of
    /// the previous frame.
    private mutating func collectPackets() {
        // After `withdrawAll`, contacts stay out until a frame with none.
        if stuckA {
            if packets.isEmpty { stuckA = false }
            previousA.removeAll(keepingCapacity: true)
            packets.removeAll(keepingCapacity: true)
            return
        }
        var next: [Slot] = []
        next.reserveCapacity(packets.count)
        for (i, p) in packets.enumerated() {
            var previous: Slot? = nil
            if let id = p.trackingID {
                previous = previousA.first { $0.trackingID == id }
            } else if i < previousA.count && previousA[i].trackingID < 0 {
                previous = previousA[i]
            }
            var slot = previous ?? Slot(x: p.x ?? 0, y: p.y ?? 0)
            if previous == nil {
                slot.trackingID = p.trackingID ?? -1
                slot.touch = nextTouch
                slot.fresh = true
                nextTouch += 1
            }
            if let x = p.x { slot.x = x }
            if let y = p.y { slot.y = y }
            if let tool = p.tool { slot.tool = tool }
            if let major = p.major { slot.major = major }
            if !slot.withdrawn && palmRule.isPalm(tool: slot.tool, major: slot.major) {
                Self.withdrawPalm(&slot, into: &frame.withdrawn)
            }
            if !slot.withdrawn { frame.contacts.append(Self.contact(&slot, xAxis, yAxis, geometry)) }
            next.append(slot)
        }
        previousA = next
        packets.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    private static func contact(_ slot: inout Slot, _ xAxis: Axis, _ yAxis: Axis,
                                _ geometry: ScreenGeometry) -> Contact {
        var x = xAxis.normalise(slot.x), y = yAxis.normalise(slot.y)
        if !geometry.isIdentity { (x, y) = geometry.map(x: x, y: y) }
        if slot.fresh {
            slot.fresh = false
            slot.downX = x
            slot.downY = y
        }
        return Contact(id: slot.touch, x: x, y: y, downX: slot.downX, downY: slot.downY)
    }
}
