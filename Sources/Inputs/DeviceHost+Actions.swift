import Logging
import Engine

extension DeviceHost {
    /// Does what the machine asked, in order; a copy's creation and a
    /// refused write are answered at once, and what the answer asks for is
    /// done next, before the rest (as if the machine had known). Inside
    /// itself (an input while it performs), it leaves the new actions to
    /// the loop already running.
    func performActions() {
        out.takeTrace()
        guard !performing else { return }
        performing = true
        defer { performing = false }
        var i = 0
        while i < out.actions.count {
            let action = out.actions[i]
            i += 1
            switch action {
            case .log(let level, let line):
                logger.log(level: level, "\(line)")
            case .statusChanged(let text):
                statusChanged?(text)
            case .emit(let inputTime):
                if inputOnMonotonicClock, let inputTime { emittingInputTime = inputTime &* 1000 }
                emit(out.events)
                emittingInputTime = nil
                out.events.removeAll(keepingCapacity: true)
            case .scheduleTick(let deadline):
                driver.schedule(at: deadline)
            case .cancelTick:
                driver.cancel()
            case .stopInput:
                source.stop()
            case .startRecording(let device):
                recorders.start(device)
            case .record(let events, let source):
                recorders.record(events, source: source)
            case .createCopy(let id, let description):
                do {
                    let copy = try makeFilterOutput(description)
                    copies[id] = copy
                    answer(at: i) { $0.copyCreated(id, node: copy.node, into: &$1) }
                } catch {
                    answer(at: i) { $0.copyFailed(id, error: "\(error)", into: &$1) }
                }
            case .keepMisfire(let misfire):
                // The rings are copied here, on the loop; the spool formats and writes them on its own queue.
                guard let spool, let snapshots = recorders.snapshots() else { continue }
                spool.keep(misfire, snapshots, header: recordingHeader(kind: "misfire"), done: misfireKept)
            case .removeCopy(let id):
                copies.removeValue(forKey: id)?.remove()
            case .write(let id, let range):
                guard let copy = copies[id] else {
                    logger.error("BUG: live input: a write to copy \(id), which was never made; ignored")
                    continue
                }
                if !copy.write(out.copyEvents[range]) {
                    answer(at: i) { $0.writeFailed(id, node: copy.node, into: &$1) }
                }
            }
        }
        out.actions.removeAll(keepingCapacity: true)
        out.copyEvents.removeAll(keepingCapacity: true)
    }

    /// An answer to the machine, whose actions go at `index` (next).
    private func answer(at index: Int, _ input: (inout LiveInputMachine, inout LiveInputMachine.Output) -> Void) {
        let before = out.actions.count
        input(&machine, &out)
        let added = out.actions[before...]
        guard !added.isEmpty else { return }
        let moved = Array(added)
        out.actions.removeSubrange(before...)
        out.actions.insert(contentsOf: moved, at: index)
    }
}
