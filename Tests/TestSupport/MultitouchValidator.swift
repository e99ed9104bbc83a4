import TouchFilter

/// The evdev codes the tests read and write (linux/input-event-codes.h),
/// written out here so that the tests do not just repeat the modules' table.
public enum EvdevTestCode {
    public static let EV_SYN: UInt16 = 0x00
    public static let EV_KEY: UInt16 = 0x01
    public static let EV_ABS: UInt16 = 0x03
    public static let EV_MSC: UInt16 = 0x04
    public static let SYN_REPORT: UInt16 = 0
    public static let SYN_DROPPED: UInt16 = 3
    public static let ABS_X: UInt16 = 0x00
    public static let ABS_Y: UInt16 = 0x01
    public static let ABS_PRESSURE: UInt16 = 0x18
    public static let ABS_MT_SLOT: UInt16 = 0x2f
    public static let ABS_MT_TOUCH_MAJOR: UInt16 = 0x30
    public static let ABS_MT_POSITION_X: UInt16 = 0x35
    public static let ABS_MT_POSITION_Y: UInt16 = 0x36
    public static let ABS_MT_TOOL_TYPE: UInt16 = 0x37
    public static let ABS_MT_TRACKING_ID: UInt16 = 0x39
    public static let ABS_MT_PRESSURE: UInt16 = 0x3a
    public static let BTN_TOUCH: UInt16 = 0x14a
    public static let BTN_TOOL_FINGER: UInt16 = 0x145
    public static let BTN_TOOL_QUINTTAP: UInt16 = 0x148
    public static let BTN_TOOL_DOUBLETAP: UInt16 = 0x14d
    public static let BTN_TOOL_TRIPLETAP: UInt16 = 0x14e
    public static let BTN_TOOL_QUADTAP: UInt16 = 0x14f
    /// BTN_TOOL_* by finger count 1…5.
    public static let toolKeys: [UInt16] = [BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP, BTN_TOOL_QUADTAP, BTN_TOOL_QUINTTAP]
}

/// Reads a clone's output and checks it is well-formed multitouch protocol B:
/// tracking ids begin once and end once, a slot holds one touch at a time,
/// nothing changes in an empty slot, key bits and single-touch axes agree with
/// the touches after every SYN_REPORT, frames are whole, never empty, and
/// never due earlier than the one before. (The touch filter's tests read
/// its output with it, and `replay --copy`'s read the file it writes.)
public struct MultitouchValidator {
    /// BTN_TOUCH and BTN_TOOL_FINGER…QUINTTAP, the keys a panel may declare.
    public static let touchKeys: Set<UInt16> = Set([EvdevTestCode.BTN_TOUCH] + EvdevTestCode.toolKeys)

    public let slotCount: Int
    /// Declared keys (BTN_TOUCH and BTN_TOOL_*); undeclared ones must not appear.
    public let keys: Set<UInt16>
    public let emulatesPointer: Bool

    public private(set) var problems: [String] = []
    private var slots: [Int32]
    private var order: [UInt64]
    private var x: [Int32]
    private var y: [Int32]
    private var selected: Int? = nil
    private var keyState: [UInt16: Int32] = [:]
    private var absX: Int32? = nil
    private var absY: Int32? = nil
    private var lastDue = -Double.infinity
    private var frameDue: Double? = nil
    private var frameEvents = 0
    /// Slots whose touch ended in the frame being read.
    private var endedThisFrame: Set<Int> = []
    public private(set) var framesRead = 0
    public private(set) var touchesBegun = 0

    public init(slotCount: Int = 10, keys: Set<UInt16> = MultitouchValidator.touchKeys, emulatesPointer: Bool = true) {
        self.slotCount = slotCount
        self.keys = keys
        self.emulatesPointer = emulatesPointer
        slots = Array(repeating: -1, count: slotCount)
        order = Array(repeating: 0, count: slotCount)
        x = Array(repeating: 0, count: slotCount)
        y = Array(repeating: 0, count: slotCount)
    }

    public var activeCount: Int { slots.filter { $0 >= 0 }.count }
    public var isIdle: Bool { activeCount == 0 }
    /// True between frames (the last output ended with SYN_REPORT).
    public var betweenFrames: Bool { frameEvents == 0 }

    private mutating func problem(_ s: String) { problems.append("frame \(framesRead): " + s) }

    public mutating func read(_ outputs: [TouchFilterMachine.Output]) {
        for o in outputs { read(o) }
    }

    public mutating func read(_ o: TouchFilterMachine.Output) {
        if let frameDue, o.due != frameDue { problem("one frame with due times \(frameDue) and \(o.due)") }
        if frameDue == nil {
            if o.due < lastDue { problem("frame due \(o.due) after one due \(lastDue)") }
            frameDue = o.due
        }
        switch (o.type, o.code) {
        case (EvdevTestCode.EV_SYN, EvdevTestCode.SYN_REPORT):
            endFrame()
            return
        case (EvdevTestCode.EV_SYN, _):
            problem("EV_SYN code \(o.code) in the output")
        case (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_MT_SLOT):
            if o.value < 0 || Int(o.value) >= slotCount { problem("ABS_MT_SLOT \(o.value) out of 0..<\(slotCount)") }
            else { selected = Int(o.value) }
        case (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_MT_TRACKING_ID):
            guard let s = selected else { problem("tracking id before any ABS_MT_SLOT"); break }
            if o.value < 0 {
                if slots[s] < 0 { problem("slot \(s) ends a touch it does not have") }
                slots[s] = -1
                endedThisFrame.insert(s)
            } else {
                if o.value > 65535 { problem("tracking id \(o.value) > 65535") }
                if slots[s] >= 0 { problem("slot \(s) begins \(o.value) while \(slots[s]) is down") }
                if endedThisFrame.contains(s) { problem("slot \(s) ends a touch and begins one in one frame") }
                if slots.contains(o.value) { problem("tracking id \(o.value) begins while in use") }
                slots[s] = o.value
                order[s] = UInt64(framesRead)
                touchesBegun += 1
            }
        case (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_MT_POSITION_X), (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_MT_POSITION_Y),
             (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_MT_PRESSURE), (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_MT_TOUCH_MAJOR),
             (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_MT_TOOL_TYPE):
            guard let s = selected else { problem("axis before any ABS_MT_SLOT"); break }
            if slots[s] < 0 { problem("axis 0x\(String(o.code, radix: 16)) changes in empty slot \(s)") }
            if o.code == EvdevTestCode.ABS_MT_POSITION_X { x[s] = o.value }
            if o.code == EvdevTestCode.ABS_MT_POSITION_Y { y[s] = o.value }
        case (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_X):
            absX = o.value
        case (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_Y):
            absY = o.value
        case (EvdevTestCode.EV_ABS, EvdevTestCode.ABS_PRESSURE):
            break
        case (EvdevTestCode.EV_KEY, _):
            if !keys.contains(o.code) { problem("key 0x\(String(o.code, radix: 16)) the device does not declare") }
            if keyState[o.code, default: 0] == o.value { problem("key 0x\(String(o.code, radix: 16)) written unchanged (\(o.value))") }
            keyState[o.code] = o.value
        default:
            problem("unexpected event \(o.type)/\(o.code)")
        }
        frameEvents += 1
    }

    private mutating func endFrame() {
        if frameEvents == 0 { problem("an empty frame") }
        let count = activeCount
        if keys.contains(EvdevTestCode.BTN_TOUCH) && keyState[EvdevTestCode.BTN_TOUCH, default: 0] != (count > 0 ? 1 : 0) {
            problem("BTN_TOUCH \(keyState[EvdevTestCode.BTN_TOUCH, default: 0]) with \(count) touches")
        }
        for (i, code) in EvdevTestCode.toolKeys.enumerated() where keys.contains(code) {
            let expected: Int32 = count == i + 1 ? 1 : 0
            if keyState[code, default: 0] != expected {
                problem("BTN_TOOL for \(i + 1) is \(keyState[code, default: 0]) with \(count) touches")
            }
        }
        // The oldest touch: begun in the earliest frame (touches begun in one
        // frame are equally old).
        let active = slots.indices.filter { slots[$0] >= 0 }
        if emulatesPointer, let first = active.map({ order[$0] }).min() {
            let oldest = active.filter { order[$0] == first }
            if !oldest.contains(where: { absX == x[$0] && absY == y[$0] }) {
                problem("ABS_X/Y \(absX.map(String.init) ?? "-"),\(absY.map(String.init) ?? "-") but the oldest touches are at \(oldest.map { "\(x[$0]),\(y[$0])" })")
            }
        }
        lastDue = frameDue ?? lastDue
        frameDue = nil
        frameEvents = 0
        endedThisFrame.removeAll()
        framesRead += 1
    }
}
