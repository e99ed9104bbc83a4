import EvdevInput
import Logging
import TouchFilter
import Engine

extension LiveInputMachine {
    /// A uinput copy, by the number the machine gave it when it asked for it.
    typealias CopyID = Int

    /// What the executor is to do, in order.
    enum Action: Equatable {
        case log(Logger.Level, String)
        /// The input's status changed (attached, waiting, lost): tell whoever follows it.
        case statusChanged(String)
        /// Hand `Output.events` to the server (one flush per client), then
        /// empty them. `inputTime`: the newest input event behind them (µs on
        /// the input's clock); nil for animation frames.
        case emit(inputTime: Int64?)
        /// Keep one timer at this engine time (replacing the one set), then report `tick`.
        case scheduleTick(Double)
        case cancelTick
        /// Stop the input source and release its devices (shutdown).
        case stopInput
        /// The flight recorder: a ring for this panel (by its source; the
        /// one before is kept if it holds anything), and a panel's events.
        case startRecording(AttachedDevice)
        case record([InputEvent], source: Int)
        /// Make a uinput copy of this panel; report `copyCreated` or
        /// `copyFailed` before anything else.
        case createCopy(CopyID, DeviceDescription)
        case removeCopy(CopyID)
        /// Write `Output.copyEvents[range]` to a copy; report a refusal with `writeFailed`.
        case write(CopyID, Range<Int>)
        /// Keep the flight recorder's dump of a misfire in the spool.
        case keepMisfire(MisfireWatch.Misfire)
    }

    /// What inputs ask for. The buffers are the caller's and keep their
    /// storage: the hot path allocates nothing per frame.
    struct Output {
        var actions: [Action] = []
        /// The engine's events since the last `emit`.
        var events: [TransitionEvent] = []
        /// What `write` actions write, by range.
        var copyEvents: [TouchFilterMachine.Output] = []
        /// The machine's engine's trace lines, if it traces.
        let trace: TraceLines?
        /// `replay --copy --explain`: what the filter kept from the copy,
        /// each with its time (the engine's, in seconds), when not nil.
        var explained: [(time: Double, text: String)]? = nil

        init(trace: TraceLines? = nil) {
            self.trace = trace
            events.reserveCapacity(1024)
            copyEvents.reserveCapacity(256)
        }

        /// A log line, after the engine's trace lines that came before it.
        mutating func log(_ level: Logger.Level, _ line: String) {
            takeTrace()
            actions.append(.log(level, line))
        }

        /// A line for `replay --copy --explain`, when it is asked for.
        mutating func explain(_ time: Double, _ text: @autoclosure () -> String) {
            if explained != nil { explained?.append((time, text())) }
        }

        /// The engine's trace lines so far, as debug log lines, here.
        mutating func takeTrace() {
            guard let trace, !trace.lines.isEmpty else { return }
            for line in trace.lines { actions.append(.log(.debug, line)) }
            trace.lines.removeAll(keepingCapacity: true)
        }
    }

    /// An input that cannot come now: said, and otherwise ignored.
    func bug(_ what: String, into out: inout Output) {
        out.log(.error, "BUG: live input: \(what); ignored")
    }
}
