import FuzzSupport
import Engine

/// libFuzzer's entry: the input as a config, then a stream of touch frames
/// (three touchscreens), commands, resyncs, losses, reloads and lengths on
/// the engine's virtual time, which never goes back; then the input ends
/// (the fingers are lost, or the daemon shuts down) and time runs on until
/// every animation is over. `EngineInvariants` checks every event, and
/// nothing may be left half-way.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzBytes(UnsafeBufferPointer(start: data, count: size))
    var run = EngineRun(&input)
    while !input.isAtEnd {
        run.step(&input)
    }
    run.finish(&input)
    return 0
}

/// One engine driven by one input, with its invariants.
struct EngineRun {
    var engine: TransitionEngine
    var invariants = EngineInvariants(timesRise: true)
    var fingers = FingerBoard()
    var now: Double
    let endsWithShutdown: Bool

    init(_ input: inout FuzzBytes) {
        engine = TransitionEngine(configuration: EngineConfigChoice.configuration(&input))
        engine.trace = { line in
            fuzzCheck(!line.hasPrefix("BUG"), line)
        }
        now = input.pick([0, 0.5, 86_400, 9e12])
        endsWithShutdown = input.bool()
    }

    /// Runs one engine call and checks what it emitted.
    mutating func call(_ body: (inout TransitionEngine, inout [TransitionEvent]) -> Void) {
        let specs = engine.configuration.transitions
        var events: [TransitionEvent] = []
        body(&engine, &events)
        invariants.check(events, specs: specs, machines: engine.machines)
    }

    /// Time moves on by nothing, a microsecond, a frame or two, the
    /// velocity window and rest limit, or long enough for any animation.
    mutating func tick(_ input: inout FuzzBytes) -> Double {
        now += input.pick([0.008, 0, 0.000001, 0.004, 0.0167, 0.039, 0.041, 0.1, 0.5, 61])
        return now
    }

    mutating func step(_ input: inout FuzzBytes) {
        switch input.below(16) {
        case 0...5:
            let frame = fingers.frame(source: input.pick([0, 0, 0, 1, 2]), time: tick(&input), &input)
            call { $0.process(frame, into: &$1) }
        case 6:
            let frame = fingers.frame(source: input.pick([0, 1, 2]), time: tick(&input), &input)
            call { $0.processResync(frame, into: &$1) }
        case 7, 8:
            let time = tick(&input)
            call { $0.advance(to: time, into: &$1) }
        case 9, 10:
            command(&input)
        case 11:
            let time = tick(&input)
            call { $0.cancelInteractions(at: time, reason: .deviceLost, into: &$1) }
        case 12:
            let configuration = EngineConfigChoice.configuration(&input)
            let moved = engine.reload(configuration)
            invariants.reloaded(moved: moved, liveCount: configuration.transitions.count)
            invariants.check([], specs: engine.configuration.transitions, machines: engine.machines)
        case 13:
            let source = input.below(FingerBoard.sources)
            let names: Set<String>? = input.pick([nil, ["panel-b"], ["panel-a", "/dev/input/event3"]])
            engine.nameSource(source, names)
        case 14:
            let live = EngineConfiguration(frameRate: engine.configuration.frameRate,
                                           transitions: Array(engine.configuration.transitions[..<engine.liveCount]))
            let resolved = EngineConfigChoice.lengths(of: live, &input)
            engine.applyLengths(from: resolved)
            invariants.check([], specs: engine.configuration.transitions, machines: engine.machines)
        default:
            invariants.checkSnapshot(engine)
            engine.explanations = engine.explanations == nil ? [] : nil
        }
    }

    /// A command for a transition (or one past the last: unknown), as the
    /// server passes them on: progress and velocity within `CommandLimits`.
    mutating func command(_ input: inout FuzzBytes) {
        let transition = input.below(engine.machines.count + 1)
        let command: TransitionEngine.Command
        switch input.below(6) {
        case 0: command = .drive(progress: min(1, input.pick([0.5, 0, 1, -0.0, 0.49, 0.51]) + input.unit() / 100))
        case 1: command = .release(velocity: input.pick([nil, 0, 1, -1, 1000, -1000, 0.9999]))
        case 2: command = .run(input.pick([.finish, .cancel, .point(input.below(12)), .progress(input.pick([0.5, 1, 0.3, 1e-9]))]))
        case 3: command = .cancel
        case 4: command = .setEnabled(input.bool())
        default: command = .driverLost
        }
        let time = tick(&input)
        call { engine, events in _ = engine.perform(command, transition: transition, at: time, into: &events) }
    }

    /// The input ended: its fingers are lost (or the daemon shuts down),
    /// then every animation runs out.
    mutating func finish(_ input: inout FuzzBytes) {
        let time = tick(&input)
        if endsWithShutdown {
            call { $0.shutdown(at: time, into: &$1) }
        } else {
            call { $0.cancelInteractions(at: time, reason: .deviceLost, into: &$1) }
        }
        call { _ = $0.settle(into: &$1) }
        invariants.checkSettled(engine)
    }
}
