import Testing
import TestSupport
import Engine
import TransitionConfig
import Recordings

/// Two of the project's recordings played at once, each as its own panel
/// (source) into one engine, as `run --device all` reads two touchscreens:
/// each gesture is recognised on its panel as if alone, and the loss of one
/// panel cancels only its gesture.
@Suite("Two panels at once")
struct TwoPanelReplayTests {
    struct Panel {
        var assembler: TouchFrameAssembler
        var events: [InputEvent]
        var next = 0
    }

    func panel(_ name: String, source: Int) throws -> Panel {
        let recording = try RecordingReader.read(path: ProjectPaths.file("Recordings/\(name).events"))
        return Panel(assembler: try TouchFrameAssembler(device: recording.description!, source: source),
                     events: recording.events)
    }

    /// Interleaves the panels' events by time (each recording starting at
    /// 0); `lose: (panel, afterEvents)` ends one panel early as a lost device.
    func play(_ names: [String], config: EngineConfiguration, lose: (Int, Int)? = nil) throws -> [TransitionEvent] {
        var panels = try names.enumerated().map { try panel($0.element, source: $0.offset) }
        var engine = TransitionEngine(configuration: config)
        var out: [TransitionEvent] = []
        let starts = panels.map { $0.events.first?.time ?? 0 }
        while true {
            var pick = -1
            var best = Int64.max
            for (i, p) in panels.enumerated() where p.next < p.events.count {
                if let (lost, n) = lose, lost == i, p.next >= n { continue }
                let t = p.events[p.next].time - starts[i]
                if t < best { best = t; pick = i }
            }
            if pick < 0 { break }
            var event = panels[pick].events[panels[pick].next]
            panels[pick].next += 1
            event.time -= starts[pick]
            if panels[pick].assembler.feed(event) {
                engine.process(panels[pick].assembler.frame, into: &out)
            }
            if let (lost, n) = lose, lost == pick, panels[pick].next == n {
                engine.processResync(TouchFrame(time: Double(event.time) * 1e-6, contacts: [], source: lost), into: &out)
            }
        }
        engine.settle(into: &out)
        return out
    }

    func example() throws -> EngineConfiguration {
        try ConfigLoader.load(path: ProjectPaths.file("config/example.toml"))
    }

    func outcomes(_ events: [TransitionEvent], _ c: EngineConfiguration, _ name: String) -> [String] {
        events.filter { c.transitions[$0.transition].name == name }.compactMap { e in
            switch e.kind {
            case .began: return "began"
            case .ended: return "\(e.decision!.rawValue),\(e.reason!.rawValue)"
            case .finished, .cancelled: return e.kind.rawValue
            case .changed, .animating: return nil
            }
        }
    }

    @Test func eachPanelsGestureIsItsOwn() throws {
        let c = try example()
        let both = try play(["back-drag-finish", "forward-edge-right-spring"], config: c)
        let back = try play(["back-drag-finish"], config: c)
        let forward = try play(["forward-edge-right-spring"], config: c)
        #expect(outcomes(both, c, "back") == outcomes(back, c, "back"))
        #expect(outcomes(both, c, "forward") == outcomes(forward, c, "forward"))
        #expect(outcomes(both, c, "back") == ["began", "finish,released", "finished"])
        #expect(outcomes(both, c, "forward") == ["began", "finish,released", "finished"])
        // The same progress at release as alone.
        let endedBoth = both.filter { $0.kind == .ended }.map { ($0.transition, $0.progress, $0.velocity) }
        let endedAlone = (back + forward).filter { $0.kind == .ended }.map { ($0.transition, $0.progress, $0.velocity) }
        #expect(endedBoth.sorted { $0.0 < $1.0 }.map(\.1) == endedAlone.sorted { $0.0 < $1.0 }.map(\.1))
        #expect(endedBoth.sorted { $0.0 < $1.0 }.map(\.2) == endedAlone.sorted { $0.0 < $1.0 }.map(\.2))
    }

    @Test func losingOnePanelCancelsOnlyItsGesture() throws {
        let c = try example()
        let events = try play(["back-drag-finish", "forward-edge-right-spring"], config: c, lose: (0, 400))
        #expect(outcomes(events, c, "back") == ["began", "cancel,device-lost", "cancelled"])
        #expect(outcomes(events, c, "forward") == ["began", "finish,released", "finished"])
    }
}
