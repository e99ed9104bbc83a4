import Testing
@testable import Engine

/// `report_position`: began/changed/ended carry the fingers' centroid on the
/// screen; animation frames, commands and transitions that did not ask
/// carry none.
@Suite("The fingers' position in events")
struct ReportPositionTests {
    func spec(_ report: Bool) -> TransitionSpec {
        var s = backSpec()
        s.reportPosition = report
        return s
    }

    @Test func beganChangedAndEndedCarryTheCentroid() throws {
        var h = EngineHarness([spec(true)])
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.5), y: 0.25)
        h.frame(0.6, [])
        h.settle()
        let began = try #require(h.first(.began))
        #expect(began.position.map { near($0.y, 0.25) && $0.x > 0.01 && $0.x < 0.1 } == true, "\(String(describing: began.position))")
        let changed = h.all(.changed)
        #expect(!changed.isEmpty && changed.allSatisfy { $0.position != nil })
        #expect(changed.last.map { near($0.position!.x, 0.6) } == true, "the last frame's finger")
        let ended = try #require(h.first(.ended))
        #expect(ended.position == changed.last?.position, "where the fingers were last")
        #expect(h.all(.animating).allSatisfy { $0.position == nil })
        #expect(h.all(.finished).allSatisfy { $0.position == nil })
    }

    @Test func twoFingersReportTheirCentroid() throws {
        var s = spec(true)
        s.gesture = .swipe(direction: .up, fingers: 2)
        var h = EngineHarness([s])
        for k in 0...30 {
            let t = Double(k) * 0.01, y = 0.8 - Double(k) * 0.01
            h.frame(t, [(1, 0.4, y), (2, 0.6, y + 0.1)])
        }
        let changed = try #require(h.all(.changed).last)
        #expect(changed.position.map { near($0.x, 0.5) && near($0.y, 0.55, 1e-9) } == true, "\(String(describing: changed.position))")
    }

    @Test func nothingWhenNotAskedOrDrivenByCommands() {
        var h = EngineHarness([spec(false)])
        h.drag(ramp(from: 0.01, to: 0.6, t0: 0, t1: 0.5))
        #expect(!h.events.isEmpty && h.events.allSatisfy { $0.position == nil })
        var driven = EngineHarness([spec(true)])
        _ = driven.engine.perform(.drive(progress: 0.4), transition: 0, at: 0, into: &driven.events)
        _ = driven.engine.perform(.release(velocity: 0), transition: 0, at: 0.1, into: &driven.events)
        #expect(!driven.events.isEmpty && driven.events.allSatisfy { $0.position == nil })
    }

    /// Progress that stops changing (clamped at 1, or a finger sliding along
    /// the edge) still moves the position; `ended` says where the finger lifted.
    @Test func endedIsWhereTheFingerLiftedEvenWithoutAChange() throws {
        var s = spec(true)
        s.distance = 0.3
        var h = EngineHarness([s])
        h.drag(ramp(from: 0.01, to: 0.7, t0: 0, t1: 0.7), y: 0.5)
        h.frame(0.8, [])
        let ended = try #require(h.first(.ended))
        #expect(ended.position.map { near($0.x, 0.7) } == true, "\(String(describing: ended.position))")
    }

    @Test func aLostDeviceEndsWithWhereTheFingersWere() throws {
        var h = EngineHarness([spec(true)])
        h.drag(ramp(from: 0.01, to: 0.3, t0: 0, t1: 0.3), y: 0.4)
        h.engine.processResync(TouchFrame(time: 0.35, contacts: []), into: &h.events)
        let ended = try #require(h.first(.ended))
        #expect(ended.reason == .deviceLost)
        #expect(ended.position.map { near($0.x, 0.3) && near($0.y, 0.4) } == true, "\(String(describing: ended.position))")
    }
}
