import Testing
import TestSupport
import Engine
@testable import TouchFilter

/// SplitMix64: a small seeded generator, so every run fuzzes the same sequences.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<n
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    /// True with probability p.
    mutating func chance(_ p: Double) -> Bool { unit() < p }
    /// 0 ..< 1
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
    mutating func pick<T>(_ list: [T]) -> T { list[below(list.count)] }
}

/// One random session: a random device, random source events (hostile ones
/// too), random verdicts and timing; the output is checked all along.
struct FuzzSession {
    enum Verdicts: Sendable, CaseIterable {
        /// Any verdict for any touch, frame by frame.
        case random
        /// Everything free: the output has the source's touches after every frame.
        case allFree
        /// Everything claimed: nothing is output at all.
        case allClaimed
        /// Start areas and free only: every touch reaches the output once.
        case noClaims
    }

    let seed: UInt64
    let mode: Verdicts
    private(set) var problems: [String] = []
    /// Touches the output began, frames it wrote (so the test knows the
    /// sessions did something).
    private(set) var touchesOutput = 0
    private(set) var framesOutput = 0

    init(seed: UInt64, mode: Verdicts) {
        self.seed = seed
        self.mode = mode
    }

    private mutating func fail(_ s: String) {
        if problems.count < 5 { problems.append("seed \(seed) \(mode): \(s)") }
    }

    mutating func run() {
        var rng = SplitMix64(seed: seed)
        let slots = rng.chance(0.02) ? 256 : rng.pick([1, 2, 3, 5, 10, 10, 10, 16])
        var abs: [UInt16: AbsInfo] = [
            Code.ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: Int32(slots - 1)),
            Code.ABS_MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
            Code.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 4095),
            Code.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 4095),
        ]
        let pointer = rng.chance(0.8)
        if pointer {
            abs[Code.ABS_X] = AbsInfo(minimum: 0, maximum: 4095)
            abs[Code.ABS_Y] = AbsInfo(minimum: 0, maximum: 4095)
        }
        if rng.chance(0.7) { abs[Code.ABS_MT_PRESSURE] = AbsInfo(minimum: 0, maximum: 255) }
        if rng.chance(0.3) { abs[Code.ABS_PRESSURE] = AbsInfo(minimum: 0, maximum: 255) }
        if rng.chance(0.3) { abs[Code.ABS_MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: 100) }
        let keys = Set(([Code.BTN_TOUCH] + Code.toolKeys).filter { _ in rng.chance(0.8) })
        let device = DeviceDescription(name: "Fuzz \(seed)", codes: [Code.EV_KEY: keys, Code.EV_ABS: Set(abs.keys)], absInfo: abs)
        let hold = rng.pick([0, 0.005, 0.03, 0.08, 0.08, 0.2])
        // In the random mode, some of the `[filter]` rules too: whatever
        // they withhold, the copy stays well-formed.
        var rules = FilterRules.none
        if mode == .random && rng.chance(0.5) {
            if rng.chance(0.4) { rules.maxContacts = 1 + rng.below(3) }
            if rng.chance(0.5) { rules.block = Set(BlockedGesture.allCases.filter { _ in rng.chance(0.5) }) }
            if rng.chance(0.3) { rules.ghostTouches = .quarantine }
            if rng.chance(0.3) { rules.transform = true }
            if rng.chance(0.3) {
                rules.regions = [FilterRegion(x: 0...0.5, y: 0...1, maxContacts: rng.chance(0.5) ? 2 : nil,
                                              block: rng.chance(0.5) ? [] : [.pinch])]
            }
        }
        guard var filter = try? TouchFilterMachine(device: device, hold: hold, rules: rules,
                                                   geometry: rng.chance(0.2) ? ScreenGeometry(rotation: .quarter) : .identity) else {
            fail("the device was refused")
            return
        }
        var validator = MultitouchValidator(slotCount: slots, keys: keys, emulatesPointer: pointer)
        var written = 0
        var seen = Set<UInt64>()
        var t = rng.unit() * 100
        var nextID: Int32 = 0

        func check(_ out: [TouchFilterMachine.Output], _ what: String) {
            validator.read(out)
            written += out.count
            if !validator.betweenFrames { fail("\(what) left a frame open") }
        }

        let frameCount = 20 + rng.below(180)
        for _ in 0..<frameCount {
            // Time: mostly forward, sometimes back, sometimes not a number.
            if rng.chance(0.03) { t -= rng.unit() * 0.5 } else { t += rng.unit() * 0.03 }
            var stamp = t
            if rng.chance(0.01) { stamp = rng.pick([Double.nan, .infinity, -.infinity]) }
            if rng.chance(0.003) { t += 1e12 }

            let micros = stamp.isFinite && Swift.abs(stamp) < 1e12 ? Int64(stamp * 1e6) : 0
            func feed(_ type: UInt16, _ code: UInt16, _ value: Int32) {
                let completed = filter.feed(InputEvent(time: micros, type: type, code: code, value: value))
                if completed != (type == Code.EV_SYN && code == Code.SYN_REPORT) { fail("feed answered \(completed) for \(type)/\(code)") }
            }
            for _ in 0..<rng.below(9) {
                let r = rng.unit()
                if r < 0.33 {
                    let slot: Int32 = rng.chance(0.97) ? Int32(rng.below(slots + 1)) : rng.pick([-1, Int32.max, Int32.min, 256])
                    feed(Code.EV_ABS, Code.ABS_MT_SLOT, slot)
                } else if r < 0.55 {
                    let id: Int32
                    switch rng.below(5) {
                    case 0, 1: id = -1
                    case 2, 3: nextID &+= 1; id = nextID & 0x7fff_ffff
                    default: id = rng.pick([0, 1, 2, Int32.max, Int32.min, -7])
                    }
                    feed(Code.EV_ABS, Code.ABS_MT_TRACKING_ID, id)
                } else if r < 0.85 {
                    let code = rng.pick([Code.ABS_MT_POSITION_X, Code.ABS_MT_POSITION_Y, Code.ABS_MT_PRESSURE, Code.ABS_MT_TOUCH_MAJOR])
                    let value: Int32 = rng.chance(0.95) ? Int32(rng.below(4096)) : rng.pick([Int32.min, Int32.max, -1])
                    feed(Code.EV_ABS, code, value)
                } else if r < 0.90 {
                    feed(Code.EV_ABS, UInt16(rng.below(0x50)), Int32(truncatingIfNeeded: rng.next()))
                } else if r < 0.93 {
                    feed(Code.EV_SYN, Code.SYN_DROPPED, 0)
                } else if r < 0.97 {
                    feed(UInt16(rng.below(0x20)), UInt16(truncatingIfNeeded: rng.next()), Int32(truncatingIfNeeded: rng.next()))
                } else {
                    feed(Code.EV_SYN, 2, 0)
                }
            }
            feed(Code.EV_SYN, Code.SYN_REPORT, 0)

            // Sometimes the caller skips a decide or decides twice.
            let decisions = rng.chance(0.02) ? 0 : (rng.chance(0.02) ? 2 : 1)
            for _ in 0..<decisions {
                var verdicts: [Int: TouchFilterMachine.Verdict] = [:]
                for slot in filter.activeSlots {
                    if let touch = filter.frame.touch(in: slot) { seen.insert(touch) }
                    switch mode {
                    case .random: verdicts[slot] = rng.pick([.free, .startArea, .startArea, .claimed])
                    case .allFree: verdicts[slot] = rng.chance(0.5) ? .free : nil
                    case .allClaimed: verdicts[slot] = .claimed
                    case .noClaims: verdicts[slot] = rng.pick([.free, .startArea, .startArea, .startArea])
                    }
                }
                if rng.chance(0.05) { verdicts[rng.pick([-1, slots, 1000, Int.min])] = .claimed }
                var out: [TouchFilterMachine.Output] = []
                filter.decide(at: stamp, verdicts: verdicts, into: &out)
                check(out, "decide")
                if mode == .allFree && validator.activeCount != filter.activeSlots.count {
                    fail("all free: \(validator.activeCount) output touches for \(filter.activeSlots.count) source touches")
                }
            }

            // Between frames: deadlines, and now and then a lost source.
            if rng.chance(0.4), let deadline = filter.nextDeadline {
                var out: [TouchFilterMachine.Output] = []
                let toDeadline = rng.chance(0.8)
                filter.advance(to: toDeadline ? deadline : t + rng.unit() * 0.1, into: &out)
                check(out, "advance")
                if toDeadline, let next = filter.nextDeadline, next <= deadline {
                    fail("nextDeadline \(next) did not move past \(deadline)")
                }
            }
            if mode != .noClaims && rng.chance(0.02) {
                var out: [TouchFilterMachine.Output] = []
                filter.sourceLost(at: t, into: &out)
                check(out, "sourceLost")
                if !validator.isIdle { fail("touches left after sourceLost") }
                if filter.nextDeadline != nil { fail("a deadline after sourceLost") }
            }
        }

        if mode == .noClaims {
            // Every touch lifts; once every deadline has passed, every touch
            // seen at a decide has been output once and has ended.
            for slot in 0..<slots {
                _ = filter.feed(InputEvent(time: 0, type: Code.EV_ABS, code: Code.ABS_MT_SLOT, value: Int32(slot)))
                _ = filter.feed(InputEvent(time: 0, type: Code.EV_ABS, code: Code.ABS_MT_TRACKING_ID, value: -1))
            }
            _ = filter.feed(InputEvent(time: 0, type: Code.EV_SYN, code: Code.SYN_REPORT, value: 0))
            var out: [TouchFilterMachine.Output] = []
            filter.decide(at: t, verdicts: [:], into: &out)
            var rounds = 0
            while let deadline = filter.nextDeadline, rounds < 100_000 {
                filter.advance(to: deadline, into: &out)
                rounds += 1
            }
            check(out, "the last frames")
            if !validator.isIdle { fail("\(validator.activeCount) touches left after every touch lifted") }
            if validator.touchesBegun != seen.count { fail("\(validator.touchesBegun) touches output for \(seen.count) source touches") }
        }

        var out: [TouchFilterMachine.Output] = []
        filter.sourceLost(at: t, into: &out)
        check(out, "the final sourceLost")
        if !validator.isIdle { fail("touches left after the final sourceLost") }
        if mode == .allClaimed && written != 0 { fail("\(written) events written with every touch claimed") }
        if filter.clone.lostBegins != 0 { fail("\(filter.clone.lostBegins) touches found no output slot") }
        for p in validator.problems.prefix(3) { fail(p) }
        touchesOutput = validator.touchesBegun
        framesOutput = validator.framesRead
    }
}

@Suite("Fuzz: random source events and verdicts never break the output")
struct FuzzTests {
    @Test(arguments: [(FuzzSession.Verdicts.random, 2000), (.allFree, 500), (.allClaimed, 300), (.noClaims, 700)])
    func theOutputStaysWellFormed(_ mode: FuzzSession.Verdicts, _ sessions: Int) {
        var failures: [String] = []
        var base: UInt64 = 0x5EED_0000
        switch mode {
        case .random: base += 0
        case .allFree: base += 100_000
        case .allClaimed: base += 200_000
        case .noClaims: base += 300_000
        }
        var touches = 0
        for n in 0..<UInt64(sessions) where failures.count < 10 {
            var session = FuzzSession(seed: base + n, mode: mode)
            session.run()
            failures += session.problems
            touches += session.touchesOutput
        }
        #expect(failures == [])
        // The sessions are busy: many touches per session reach the output.
        #expect(mode == .allClaimed ? touches == 0 : touches > 10 * sessions)
    }

    @Test func theGeneratorIsDeterministic() {
        var a = SplitMix64(seed: 42), b = SplitMix64(seed: 42)
        #expect((0..<5).map { _ in a.next() } == (0..<5).map { _ in b.next() })
    }
}
