import Testing
@testable import Engine

private let SYN = EventCode.EV_SYN, ABS = EventCode.EV_ABS

/// A protocol B panel, 1000 × 1000 units, with ABS_MT_TOOL_TYPE and
/// ABS_MT_TOUCH_MAJOR (of `resolution` units per mm; 0: none declared).
private func panel(majorResolution: Int32 = 10) -> DeviceDescription {
    DeviceDescription(name: "palm panel", absInfo: [
        EventCode.ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: 3),
        EventCode.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1000),
        EventCode.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1000),
        EventCode.ABS_MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
        EventCode.ABS_MT_TOUCH_MAJOR: AbsInfo(minimum: 0, maximum: 1000, resolution: majorResolution),
        EventCode.ABS_MT_TOOL_TYPE: AbsInfo(minimum: 0, maximum: 2),
    ])
}

/// Events into an assembler, its frames into an engine with the left-edge `back`.
private struct Rig {
    var frames: TouchFrameAssembler
    var engine = TransitionEngine(configuration: EngineConfiguration(transitions: [backSpec()]))
    var events: [TransitionEvent] = []
    var seen: [TouchFrame] = []

    init(_ device: DeviceDescription = panel(), palmMillimetres: Double? = nil) throws {
        frames = try TouchFrameAssembler(device: device, palmMillimetres: palmMillimetres)
    }

    /// One frame of slot 0 at `ms` milliseconds: a new tracking id if
    /// `id`, then X (per mille of the width), tool type and major if given.
    mutating func report(_ ms: Int64, id: Int32? = nil, x: Int32? = nil, tool: Int32? = nil, major: Int32? = nil) {
        let t = ms * 1000
        var input: [InputEvent] = []
        if let id { input.append(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_TRACKING_ID, value: id)) }
        if let x { input.append(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_POSITION_X, value: x)) }
        if id != nil { input.append(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_POSITION_Y, value: 500)) }
        if let tool { input.append(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_TOOL_TYPE, value: tool)) }
        if let major { input.append(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_TOUCH_MAJOR, value: major)) }
        input.append(InputEvent(time: t, type: SYN, code: EventCode.SYN_REPORT, value: 0))
        for e in input where frames.feed(e) {
            seen.append(frames.frame)
            engine.process(frames.frame, into: &events)
        }
    }

    /// A drag of slot 0 from the left edge to x = 0.8 over 200 ms.
    mutating func dragFromEdge(tool: Int32? = nil, major: Int32? = nil) {
        report(0, id: 1, x: 10, tool: tool, major: major)
        for k in 1...8 { report(Int64(k) * 25, x: Int32(k) * 100) }
    }

    func began() -> Bool { events.contains { $0.kind == .began } }
    func ended() -> [TransitionEvent] { events.filter { $0.kind == .ended } }
}

@Suite("Palms and stuck contacts in the engine's frames")
struct PalmAndStuckTests {
    @Test func aPalmByToolTypeNeverStartsAnEdgePan() throws {
        var rig = try Rig()
        rig.dragFromEdge(tool: PalmRule.palmTool)
        #expect(rig.seen.count == 9)
        #expect(rig.seen.allSatisfy { $0.contacts.isEmpty && $0.withdrawn.isEmpty })
        #expect(!rig.began())
        // The same drag by a finger does start it.
        var finger = try Rig()
        finger.dragFromEdge(tool: 0)
        #expect(finger.began())
    }

    @Test func aPalmBySizeNeedsTheAxisResolution() throws {
        // 10 units per mm: 300 is 30 mm, over palm_mm 20.
        var sized = try Rig(panel(majorResolution: 10), palmMillimetres: 20)
        sized.dragFromEdge(major: 300)
        #expect(sized.seen.allSatisfy { $0.contacts.isEmpty })
        #expect(!sized.began())
        // 150 is 15 mm: a finger.
        var small = try Rig(panel(majorResolution: 10), palmMillimetres: 20)
        small.dragFromEdge(major: 150)
        #expect(small.began())
        // No resolution, no millimetres: only the tool type tells.
        var unknown = try Rig(panel(majorResolution: 0), palmMillimetres: 20)
        unknown.dragFromEdge(major: 300)
        #expect(unknown.began())
        // And without palm_mm the size is never read.
        var off = try Rig(panel(majorResolution: 10), palmMillimetres: nil)
        off.dragFromEdge(major: 300)
        #expect(off.began())
    }

    @Test func aContactThatBecomesAPalmMidDragCancelsWithReasonPalm() throws {
        var rig = try Rig(palmMillimetres: 20)
        rig.dragFromEdge(major: 100)
        #expect(rig.began())
        #expect(rig.ended().isEmpty)
        // At progress 0.8 a release would finish; the palm cancels.
        rig.report(225, major: 400)
        #expect(rig.seen.last?.contacts.isEmpty == true)
        #expect(rig.seen.last?.withdrawn == [WithdrawnContact(id: 1, reason: .palm)])
        let ended = rig.ended()
        #expect(ended.count == 1)
        #expect(ended.first?.reason == .palm)
        #expect(ended.first?.decision == .cancel)
        #expect(near(ended.first?.time ?? 0, 0.225))
        rig.engine.settle(into: &rig.events)
        #expect(rig.events.last?.kind == .cancelled)
        // The palm's further reports bring nothing back, shrunk or not; its
        // lift is no second end; the slot's next touch is a finger again.
        rig.report(250, x: 850, major: 100)
        rig.report(275, id: -1)
        #expect(rig.seen.suffix(2).allSatisfy { $0.contacts.isEmpty && $0.withdrawn.isEmpty })
        #expect(rig.ended().count == 1)
        rig.report(300, id: 2, x: 500, major: 100)
        #expect(rig.seen.last?.contacts.count == 1)
    }

    @Test func aPalmByToolTypeMidDragCancelsToo() throws {
        var rig = try Rig()
        rig.dragFromEdge(tool: 0)
        rig.report(225, tool: PalmRule.palmTool)
        #expect(rig.ended().map(\.reason) == [.palm])
    }

    @Test func withdrawingStuckContactsCancelsWithReasonStuckAndKeepsTheSlotFree() throws {
        var rig = try Rig()
        rig.dragFromEdge()
        #expect(rig.began())
        #expect(rig.frames.hasContacts)
        #expect(rig.frames.withdrawAll(at: 5.2, reason: .stuck) == 1)
        #expect(!rig.frames.hasContacts)
        #expect(rig.frames.frame.time == 5.2)
        #expect(rig.frames.frame.contacts.isEmpty)
        #expect(rig.frames.contactID(inSlot: 0) == nil)
        rig.engine.process(rig.frames.frame, into: &rig.events)
        #expect(rig.ended().map(\.reason) == [.stuck])
        #expect(rig.ended().first?.decision == .cancel)
        rig.engine.settle(into: &rig.events)
        #expect(rig.events.last?.kind == .cancelled)
        // Nothing left to withdraw.
        #expect(rig.frames.withdrawAll(at: 5.3, reason: .stuck) == 0)
        // The finger was there after all and moves on: nothing comes of it.
        let before = rig.events.count
        rig.report(6000, x: 300)
        rig.report(6025, x: 100)
        rig.report(6050, id: -1)
        #expect(rig.seen.suffix(3).allSatisfy { $0.contacts.isEmpty && $0.withdrawn.isEmpty })
        #expect(rig.events.count == before)
        // The slot's next touch is a new contact.
        rig.report(7000, id: 9, x: 10)
        #expect(rig.seen.last?.contacts.map(\.id) == [2])
    }

    @Test func aStuckContactThatNeverMadeAFrameHasNothingToCancel() throws {
        var frames = try TouchFrameAssembler(device: panel())
        _ = frames.feed(InputEvent(time: 0, type: ABS, code: EventCode.ABS_MT_TRACKING_ID, value: 3))
        #expect(frames.withdrawAll(at: 1, reason: .stuck) == 0)
        #expect(!frames.hasContacts)
    }

    @Test func protocolAPalmsAndStuckContacts() throws {
        let device = DeviceDescription(name: "A", absInfo: [
            EventCode.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1000),
            EventCode.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1000),
        ])
        var frames = try TouchFrameAssembler(device: device)
        func packetFrame(_ t: Int64, _ packets: [(x: Int32, tool: Int32)]) -> TouchFrame? {
            var done: TouchFrame? = nil
            for p in packets {
                _ = frames.feed(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_POSITION_X, value: p.x))
                _ = frames.feed(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_POSITION_Y, value: 500))
                _ = frames.feed(InputEvent(time: t, type: ABS, code: EventCode.ABS_MT_TOOL_TYPE, value: p.tool))
                _ = frames.feed(InputEvent(time: t, type: SYN, code: EventCode.SYN_MT_REPORT, value: 0))
            }
            if frames.feed(InputEvent(time: t, type: SYN, code: EventCode.SYN_REPORT, value: 0)) { done = frames.frame }
            return done
        }
        #expect(packetFrame(0, [(100, 0), (500, 2)])?.contacts.map(\.id) == [1])
        let turned = packetFrame(10, [(110, 2), (510, 2)])
        #expect(turned?.contacts.isEmpty == true)
        #expect(turned?.withdrawn == [WithdrawnContact(id: 1, reason: .palm)])
        #expect(packetFrame(20, [(120, 0)])?.contacts.isEmpty == true)   // still that touch
        #expect(packetFrame(30, [])?.contacts.isEmpty == true)
        #expect(packetFrame(40, [(200, 0)])?.contacts.count == 1)
        #expect(frames.withdrawAll(at: 1, reason: .stuck) == 1)
        #expect(packetFrame(50, [(210, 0)])?.contacts.isEmpty == true)
        #expect(packetFrame(60, [])?.contacts.isEmpty == true)
        #expect(packetFrame(70, [(300, 0)])?.contacts.count == 1)
    }
}
