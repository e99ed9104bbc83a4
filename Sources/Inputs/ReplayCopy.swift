import EvdevInput
import Logging
import TouchFilter
import Engine
import Replay

/// `replay --fast --copy FILE`: the UI's copy of one recording's panel, as
/// filter mode would write it, without hardware. The recording's events go
/// through the live input's own rules (`LiveInputMachine`: the engine, the
/// panel's `FilteredPanel` and the verdicts it asks the engine for, the
/// hold, the `[filter]` rules, stuck deadlines), with this driver as their
/// executor on a virtual clock: each frame (the events up to a
/// `SYN_REPORT`) is a batch of its own, delivered at its report's time,
/// and each timer the machine sets fires on time, before the first frame
/// that comes after it (a held touch when its hold ends, a stuck contact's
/// end when its deadline comes). What the machine writes to its copy is
/// kept with the time it is due, on the recording's clock.
///
/// After the last event the timers still set for the copy fire (held
/// touches go, delayed frames follow, a stuck deadline ends what is down);
/// then the panel counts as gone, as when it is unplugged: a touch still
/// down on the copy ends there, at the time of the last of those (or of the
/// last event), so the copy ends with no touch down.
public enum ReplayCopy {
    /// The copy: its description (the one the live daemon gives its uinput
    /// device, named as it names it) and its events, each stamped with the
    /// time (µs, on the recording's clock) the live copy would be written.
    public struct Copy: Sendable {
        public var description: DeviceDescription
        public var events: [InputEvent]
        /// What the live daemon would log meanwhile (level name and line),
        /// for `--verbose`.
        public var log: [(level: String, line: String)]
        /// With `explain`: what the filter kept from the copy and why, each
        /// with its time (seconds on the recording's clock), for `--explain`.
        public var explanations: [(time: Double, text: String)]
    }

    /// The copy of `input` under `configuration` (the engine's config),
    /// `hold` (`[input] filter_hold`), `rules` (`[filter]`) and `geometry`
    /// (the config's `[input]` geometry). Throws when the panel cannot be
    /// copied (filter mode needs a multitouch protocol B panel) or the
    /// engine cannot read it, naming the recording. `traces`: the engine's
    /// state changes join the log (debug lines), as the daemon's `--verbose`.
    /// `explain`: say what the filter withheld, quarantined or ended.
    public static func make(of input: ReplayInput, configuration: EngineConfiguration, hold: Double,
                            rules: FilterRules, geometry: ScreenGeometry,
                            traces: Bool = false, explain: Bool = false) throws(ReplayError) -> Copy {
        do {
            _ = try TouchFrameAssembler(device: input.device, timeOrigin: 0, geometry: geometry)
        } catch {
            throw ReplayError(path: input.path, message: error.message)
        }
        do {
            _ = try TouchFilterMachine(device: input.device, hold: hold, rules: rules, geometry: geometry)
        } catch {
            throw ReplayError(path: input.path, message: "filter mode cannot copy its panel: \(error.message)")
        }
        var driver = Driver(configuration: configuration, hold: hold, rules: rules, traces: traces)
        if explain { driver.out.explained = [] }
        driver.attach(input, geometry: geometry)
        guard let description = driver.description else {
            let why = driver.log.last { $0.level == "error" }?.line ?? "no copy was made"
            throw ReplayError(path: input.path, message: "filter mode cannot copy its panel: \(why)")
        }
        driver.play(input.events, path: input.path)
        return Copy(description: description, events: driver.copied, log: driver.log,
                    explanations: driver.out.explained ?? [])
    }

    /// The machine and what it asked for: an executor on a virtual clock.
    struct Driver {
        var machine: LiveInputMachine
        var out: LiveInputMachine.Output
        /// The copy's description, once the machine asked for it to be made.
        var description: DeviceDescription?
        var copied: [InputEvent] = []
        var log: [(level: String, line: String)] = []
        /// The timer the machine set (engine time), nil when none.
        var tick: Double?

        init(configuration: EngineConfiguration, hold: Double, rules: FilterRules, traces: Bool) {
            machine = LiveInputMachine(configuration: configuration, traces: traces)
            machine.settings.filterHold = hold
            machine.settings.filterRules = rules
            out = machine.makeOutput()
        }

        mutating func attach(_ input: ReplayInput, geometry: ScreenGeometry) {
            let device = AttachedDevice(path: input.path, description: input.device, grabbed: true, source: 0)
            machine.attached(device, geometry: geometry, into: &out)
            perform()
        }

        /// The recording, a frame at a time, with the timers on time; then
        /// the timers the copy still waits for, and the panel's end.
        mutating func play(_ events: [InputEvent], path: String) {
            var start = 0
            var last: Int64?
            for i in events.indices {
                let event = events[i]
                guard event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT || i == events.count - 1 else {
                    continue
                }
                let time = event.time
                fireTimers(upTo: Double(time) * 1e-6)
                machine.events(Array(events[start...i]), source: 0, into: &out)
                machine.batchEnded(into: &out)
                perform()
                start = i + 1
                last = max(last ?? time, time)
            }
            // What the copy still waits for: held touches, delayed frames, a stuck deadline.
            var end = last.map { Double($0) * 1e-6 } ?? 0
            var fired = 0
            while let due = copyDeadline, fired < Self.timerLimit {
                machine.tick(due: due, now: due, into: &out)
                perform()
                end = max(end, due)
                fired += 1
            }
            machine.lost(path: path, reason: "the recording ended", source: 0, at: end, into: &out)
            perform()
        }

        /// More timers than this in a row at one point of the recording is
        /// a machine that keeps asking for the same time: stop there.
        static let timerLimit = 1_000_000

        /// Fires every timer set for `time` or before, in order.
        mutating func fireTimers(upTo time: Double) {
            var fired = 0
            while let due = tick, due <= time, fired < Self.timerLimit {
                machine.tick(due: due, now: due, into: &out)
                perform()
                fired += 1
            }
        }

        /// The next timer the copy waits for: a held touch's release or a
        /// delayed frame, or a stuck deadline (not the engine's animations).
        var copyDeadline: Double? {
            let times = [machine.filters[0]?.nextDeadline, machine.stuckDeadline(of: 0)].compactMap { $0 }
            return times.min()
        }

        /// Does what the machine asked, in order, as `DeviceHost` does, on
        /// nothing but this value: a copy is made at once, writes are kept.
        mutating func perform() {
            out.takeTrace()
            var i = 0
            while i < out.actions.count {
                let action = out.actions[i]
                i += 1
                switch action {
                case .log(let level, let line):
                    log.append((level.rawValue, line))
                case .scheduleTick(let deadline):
                    tick = deadline
                case .cancelTick:
                    tick = nil
                case .createCopy(let id, var copy):
                    copy.name = UinputCopy.name(for: copy.name)
                    description = copy
                    machine.copyCreated(id, node: nil, into: &out)
                case .write(_, let range):
                    for o in out.copyEvents[range] {
                        copied.append(InputEvent(time: Int64((o.due * 1e6).rounded()), type: o.type, code: o.code,
                                                 value: o.value))
                    }
                case .statusChanged, .emit, .stopInput, .startRecording, .record, .removeCopy, .keepMisfire:
                    break
                }
            }
            out.actions.removeAll(keepingCapacity: true)
            out.copyEvents.removeAll(keepingCapacity: true)
            out.events.removeAll(keepingCapacity: true)
        }
    }
}
