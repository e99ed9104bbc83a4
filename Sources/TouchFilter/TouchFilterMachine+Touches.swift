/// The life of one source touch in the filter: begin, each frame, release,
/// end; and the delayed steps of released touches.
extension TouchFilterMachine {
    // MARK: One touch, frame by frame

    /// A new source touch, with its first verdict.
    mutating func beginTouch(_ id: UInt64, inSlot slot: Int, verdict: Verdict, at now: Double,
                             into output: inout [Output]) -> SourceTouch {
        switch screen(inSlot: slot, verdict: verdict, at: now, into: &output) {
        case .swallowed:
            return SourceTouch(id: id, disposition: .swallowed)
        case .withheld:
            // Still watched: a ghost tap withheld keeps its pattern going.
            return SourceTouch(id: id, disposition: .withheld, tap: watchTap(inSlot: slot, at: now))
        case .blocked:
            return SourceTouch(id: id, disposition: .swallowed, blocked: true)
        case .admitted(let limit):
            let tap = watchTap(inSlot: slot, at: now)
            let ghostWindow = isPredictedGhost(tap) ? GhostTapDetector.tapDuration : nil
            let blockHold = blockHold(inSlot: slot)
            let areaHold: Double? = if case .startArea = verdict, hold > 0 { hold } else { nil }
            if areaHold != nil || ghostWindow != nil || blockHold != nil {
                var held = HeldTouch(time: now, values: outputValues(of: slot), hold: areaHold, ghostWindow: ghostWindow)
                held.blockUntil = blockHold.map { now + $0 }
                return SourceTouch(id: id, disposition: .held(held), limit: limit, tap: tap)
            }
            deliver(.begin(outputValues(of: slot)), of: id, inSlot: slot, due: now, at: now, into: &output)
            return SourceTouch(id: id, disposition: .forwarded(delay: 0), limit: limit, tap: tap)
        }
    }

    /// What becomes of a new touch before its hold: nothing of it is output
    /// if it is claimed or a palm, nor if `max_contacts` leaves no room, nor
    /// while a finger of a blocked gesture is down.
    enum Screening {
        case swallowed
        case withheld
        case blocked
        /// Held or forwarded by its verdict, with the `max_contacts` it carries.
        case admitted(limit: Int?)
    }

    mutating func screen(inSlot slot: Int, verdict: Verdict, at now: Double, into output: inout [Output]) -> Screening {
        switch verdict {
        case .claimed:
            return .swallowed
        case .startArea, .free:
            break
        }
        if applied.isPalm(inSlot: slot, of: frame) {
            notify(.touchWithheld(.palm))
            return .swallowed
        }
        if applied.blocksGestures && isBlocking {
            notify(.touchWithheld(.block))
            return .blocked
        }
        // A touch down keeps the limit it began under, even once the UI's
        // regions (`filter_regions`) set none.
        guard applied.limitsContacts || touches.contains(where: { $0?.limit != nil }) else { return .admitted(limit: nil) }
        let limit = applied.contactLimit(inSlot: slot, of: frame)
        guard makeRoom(under: limit, at: now, into: &output) else {
            notify(.touchWithheld(.maxContacts))
            return .withheld
        }
        return .admitted(limit: limit)
    }

    /// Under `max_contacts`: true if a new touch that carries `limit` may be
    /// output. Counted: the held and forwarded touches (the copy shows them,
    /// or will once released). It may if the count is below its limit and
    /// below each counted touch's. Touches that lifted but whose delayed
    /// frames (their end, after a hold's lag) are still to come would be
    /// on the copy with it: if they would make one too many, they are
    /// written at once, one frame per step, as for a reused slot.
    mutating func makeRoom(under limit: Int?, at now: Double, into output: inout [Output]) -> Bool {
        var count = 0
        var least = limit ?? Int.max
        var active: [UInt64] = []
        for case let touch? in touches {
            switch touch.disposition {
            case .held, .forwarded:
                count += 1
                active.append(touch.id)
                if let own = touch.limit { least = min(least, own) }
            case .swallowed, .withheld:
                continue
            }
        }
        guard count < least else { return false }
        let departing = delayed.waitingTouches.filter { !active.contains($0) }
        if count + departing.count >= least {
            for step in delayed.takeSteps(ofTouches: { departing.contains($0) }) {
                clone.apply(step.change, of: step.touch, sourceSlot: step.sourceSlot, due: now, into: &output)
                clone.flush(due: now, into: &output)
            }
        }
        return true
    }

    /// The values of the touch in `slot` as the copy gets them (`transform`).
    func outputValues(of slot: Int) -> [Int32] {
        applied.output(frame.values(of: slot))
    }

    /// A later frame of a source touch (`moved`: its axis values changed).
    /// One that has become a palm goes as a claimed one.
    mutating func continueTouch(_ touch: inout SourceTouch, inSlot slot: Int, verdict: Verdict, moved: Bool,
                                at now: Double, into output: inout [Output]) {
        let palm = moved && applied.isPalm(inSlot: slot, of: frame)
        let verdict = palm ? Verdict.claimed : verdict
        if palm {
            switch touch.disposition {
            case .held, .forwarded: notify(.touchWithheld(.palm))
            case .swallowed, .withheld: break
            }
        }
        if moved, touch.tap != nil { touch.tap = stillWatch(touch.tap, inSlot: slot) }
        switch (touch.disposition, verdict) {
        case (.swallowed, .claimed), (.swallowed, .startArea), (.swallowed, .free):
            return
        case (.withheld, .claimed), (.withheld, .startArea), (.withheld, .free):
            return
        case (.held, .claimed):
            touch.disposition = .swallowed
        case (.held(var held), .startArea):
            if moved { held.record(time: now, values: outputValues(of: slot)) }
            // Moved 1 mm: no ghost; only the start area may hold it still.
            if touch.tap == nil { held.ghostUntil = nil }
            if held.isFull || !held.isHeld(at: now) {
                touch.disposition = release(touch.id, held, inSlot: slot, at: now, endedAt: nil)
            } else {
                touch.disposition = .held(held)
            }
        case (.held(var held), .free):
            if moved { held.record(time: now, values: outputValues(of: slot)) }
            // Free: the start area holds it no more; a predicted ghost
            // still waits for its 50 ms unless it moved 1 mm.
            held.startAreaUntil = nil
            if touch.tap == nil { held.ghostUntil = nil }
            if held.isFull || !held.isHeld(at: now) {
                touch.disposition = release(touch.id, held, inSlot: slot, at: now, endedAt: nil)
            } else {
                touch.disposition = .held(held)
            }
        case (.forwarded, .claimed):
            delayed.removeSteps(for: touch.id)
            clone.end(touch.id)
            touch.disposition = .swallowed
        case (.forwarded(let delay), .startArea), (.forwarded(let delay), .free):
            if moved {
                deliver(.move(outputValues(of: slot)), of: touch.id, inSlot: slot, due: now + delay, at: now, into: &output)
            }
        }
    }

    /// The source touch of `slot` ended (lifted, or replaced by a new tracking id).
    mutating func endTouch(inSlot slot: Int, at now: Double, into output: inout [Output]) {
        guard let touch = touches[slot] else { return }
        touches[slot] = nil
        // `ghost_touches`: a short, still tap (not swallowed) is one the detector learns.
        let tap = isShortStillTap(touch.tap, endingAt: now) ? touch.tap : nil
        switch touch.disposition {
        case .swallowed:
            return
        case .withheld:
            if let tap { recordTap(tap) }
        case .held(let held):
            if let tap, let until = held.ghostUntil, now <= until {
                // A predicted ghost that lifted within its 50 ms, still:
                // quarantined (after the pattern it confirms, if it does).
                recordTap(tap)
                notify(.ghostQuarantined(time: tap.time, x: tap.x, y: tap.y))
                return
            }
            _ = release(touch.id, held, inSlot: slot, at: now, endedAt: now)
            if let tap { recordTap(tap) }
        case .forwarded(let delay):
            deliver(.end, of: touch.id, inSlot: slot, due: now + delay, at: now, into: &output)
            if let tap { recordTap(tap) }
        }
    }

    // MARK: Holding and releasing

    /// Releases every held touch whose hold expired by `now`, at its deadline.
    mutating func expireHolds(by now: Double) {
        for slot in touches.indices {
            guard let touch = touches[slot] else { continue }
            switch touch.disposition {
            case .held(let held) where held.deadline <= now:
                let released = release(touch.id, held, inSlot: slot, at: held.deadline, endedAt: nil)
                touches[slot]?.disposition = released
            case .held, .forwarded, .swallowed, .withheld:
                continue
            }
        }
    }

    /// Schedules a held touch's recorded frames with the lag
    /// D = `releaseTime` − its first frame's time (the first one due at
    /// `releaseTime`), and its end at `endedAt` + D if it has ended.
    /// Returns its disposition from now on.
    mutating func release(_ id: UInt64, _ held: HeldTouch, inSlot slot: Int, at releaseTime: Double,
                          endedAt: Double?) -> Disposition {
        let delay = max(0, releaseTime - held.firstTime)
        for (k, recorded) in held.frames.enumerated() {
            let change: TouchChange = k == 0 ? .begin(recorded.values) : .move(recorded.values)
            let due = k == 0 ? releaseTime : recorded.time + delay
            delayed.insert(DelayedStep(due: due, touch: id, sourceSlot: slot, change: change))
        }
        if let endedAt {
            delayed.insert(DelayedStep(due: endedAt + delay, touch: id, sourceSlot: slot, change: .end))
        }
        return .forwarded(delay: delay)
    }

    // MARK: Delayed steps

    /// Applies a change now if it is due and nothing of its touch waits,
    /// else queues it behind the touch's earlier steps.
    mutating func deliver(_ change: TouchChange, of id: UInt64, inSlot slot: Int, due: Double, at now: Double,
                          into output: inout [Output]) {
        if due <= now && !delayed.hasSteps(for: id) {
            clone.apply(change, of: id, sourceSlot: slot, due: now, into: &output)
        } else {
            delayed.insert(DelayedStep(due: due, touch: id, sourceSlot: slot, change: change))
        }
    }

    /// Writes the delayed steps due by `now`, one frame per due time.
    mutating func emitDelayed(by now: Double, into output: inout [Output]) {
        while let group = delayed.takeEarliest(dueBy: now) {
            write(group.steps, due: group.due, into: &output)
        }
    }

    /// Writes steps due at the same time: one frame, split where a touch has
    /// a second step (a begin and an end in one frame would show nothing).
    private mutating func write(_ steps: ArraySlice<DelayedStep>, due: Double, into output: inout [Output]) {
        var inFrame: [UInt64] = []
        for step in steps {
            if inFrame.contains(step.touch) {
                clone.flush(due: due, into: &output)
                inFrame.removeAll(keepingCapacity: true)
            }
            inFrame.append(step.touch)
            clone.apply(step.change, of: step.touch, sourceSlot: step.sourceSlot, due: due, into: &output)
        }
        clone.flush(due: due, into: &output)
    }

    /// A new touch began in `slot`: the delayed steps of the slot's earlier
    /// touches are written at once, one frame each.
    mutating func flushDelayed(ofSlot slot: Int, at now: Double, into output: inout [Output]) {
        for step in delayed.takeSteps(ofSlot: slot) {
            clone.apply(step.change, of: step.touch, sourceSlot: step.sourceSlot, due: now, into: &output)
            clone.flush(due: now, into: &output)
        }
    }

    /// Bounds the queue (only hostile timing fills it): the earliest steps go
    /// out now, ahead of their time.
    mutating func enforceDelayedLimit(at now: Double, into output: inout [Output]) {
        while delayed.count > DelayedSteps.limit, let group = delayed.takeEarliest() {
            write(group.steps, due: now, into: &output)
        }
    }
}
