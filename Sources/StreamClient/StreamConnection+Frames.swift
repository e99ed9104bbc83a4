import SystemSupport

/// Touch to frame from a Swift client: agree its clock with the daemon's
/// (`clock`), then say when its frames were presented (`frames`), so that
/// the daemon's `transitiond_touch_to_frame_seconds` measures its screen.
extension StreamConnection {
    /// One `clock` exchange, timed on `CLOCK_MONOTONIC` and added to
    /// `clock`. The lines that come meanwhile (events, other replies) are
    /// returned in order for the caller to handle as it reads the stream.
    /// Waits at most `timeout` seconds for the reply (then `.timedOut`).
    public func exchangeClock(into clock: inout ClockOffset, timeout: Double = 5) throws(StreamConnectionError) -> [[UInt8]] {
        let id = RequestID.text("clock-\(MonotonicClock.nanoseconds)")
        let sent = MonotonicClock.seconds
        try send(bytes: ClientCommand.clock.encodedLine(id: id))
        var meanwhile: [[UInt8]] = []
        let deadline = sent + timeout
        while true {
            guard let line = try readLine(timeout: max(0, deadline - MonotonicClock.seconds)) else { throw .closed }
            if case .clock(let daemon, id)? = try? StreamMessage.decode(line: line) {
                clock.add(sent: sent, daemon: daemon, received: MonotonicClock.seconds)
                return meanwhile
            }
            meanwhile.append(line)
        }
    }

    /// Says that the line with each `seq` was on the screen at `presented`
    /// (seconds on this process's `CLOCK_MONOTONIC`), converted to the
    /// daemon's clock with `clock`; in commands of at most 64. Nothing is
    /// sent before `clock` has an offset.
    public func reportFrames(_ frames: [(seq: UInt64, presented: Double)], clock: ClockOffset) throws(StreamConnectionError) {
        guard let offset = clock.offset else { return }
        let reports = frames.map { FrameReport(seq: $0.seq, presented: $0.presented + offset) }
        var start = 0
        while start < reports.count {
            let end = min(reports.count, start + FrameReport.batchLimit)
            try send(bytes: ClientCommand.frames(Array(reports[start..<end])).encodedLine())
            start = end
        }
    }
}
