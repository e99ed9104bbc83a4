/// The daemon's event lines (the hot path: one encoding per event, shared
/// by every client). Each transition's names are encoded once — per kind
/// the head `{"type":"KIND","transition":"NAME","seq":`, per keyframe track
/// its `"PROPERTY":` — and each event is then written straight into the
/// writer's memory. The bytes are `StreamMessage.event`'s for the same
/// event (a test holds them to it); this is only the fast way to them.
public struct EventLineEncoder: Sendable {
    /// The pre-encoded text, laid end to end in one buffer: transition `t`'s
    /// head of kind `k` is `heads[t * kinds + k]`, its tracks' keys
    /// `keys[keySpans[t]]`. Flat arrays: nothing nested is read per event.
    private let pieces: [UInt8]
    private let heads: [Range<Int>]
    private let keys: [Range<Int>]
    private let keySpans: [Range<Int>]
    /// The longest line each transition's events can take.
    private let lineBounds: [Int]
    /// How many kinds of event there are (stored: a static would be read
    /// through a lazy initialiser on every event).
    private let kinds = TransitionUpdate.Kind.allCases.count

    /// `transitions`: each one's name and its keyframe tracks' properties,
    /// in the order of the daemon's transition indices.
    public init(transitions: [(name: String, properties: [String])]) {
        var pieces: [UInt8] = []
        /// Appends what `write` writes to `pieces`; returns where it is.
        func place(_ write: (JSONWriter) -> Void) -> Range<Int> {
            let w = JSONWriter(capacity: 64)
            write(w)
            pieces += w.bytes
            return pieces.count - w.count..<pieces.count
        }
        var heads: [Range<Int>] = [], keys: [Range<Int>] = [], spans: [Range<Int>] = [], bounds: [Int] = []
        for (name, properties) in transitions {
            let own = TransitionUpdate.Kind.allCases.map { kind in
                place { w in
                    w.raw("{\"type\":")
                    w.string(kind.rawValue)
                    w.raw(",\"transition\":")
                    w.string(name)
                    w.raw(",\"seq\":")
                }
            }
            heads += own
            let first = keys.count
            keys += properties.map { property in place { w in w.string(property); w.raw(":") } }
            spans.append(first..<keys.count)
            // `,"values":{` and `}`, then a key, a comma and a number per track.
            let values = 12 + keys[first...].reduce(0) { $0 + $1.count + 1 + JSONCursor.longestNumber }
            // The head and the values, and room for every other field an
            // event can carry (seq, six numbers, the decision and the reason).
            bounds.append(own.map(\.count).max()! + values + JSONCursor.longestInteger
                          + 6 * JSONCursor.longestNumber + 256)
        }
        (self.pieces, self.heads, self.keys, self.keySpans, self.lineBounds) = (pieces, heads, keys, spans, bounds)
    }

    /// Appends one event's line (with its `\n`). `value(k)` is the
    /// transition's `k`th track's value at `progress`.
    public func encode(_ kind: TransitionUpdate.Kind, transition: Int, seq: UInt64, time: Double, progress: Double,
                       velocity: Double, decision: TransitionUpdate.Decision?, reason: TransitionUpdate.Reason?,
                       target: Double?, index: Int? = nil, position: TransitionUpdate.Position?, into w: JSONWriter,
                       value: (Int) -> Double) {
        pieces.withUnsafeBufferPointer { pieces in
            w.inPlace(reserving: lineBounds[transition]) { out in
                out.raw(UnsafeBufferPointer(rebasing: pieces[heads[transition * kinds + kind.index]]))
                out.unsigned(seq)
                out.raw(",\"time\":")
                out.number(time)
                out.raw(",\"progress\":")
                out.number(progress)
                out.raw(",\"velocity\":")
                out.number(velocity)
                out.raw(",\"values\":{")
                let span = keySpans[transition]
                for k in span {
                    if k > span.lowerBound { out.byte(UInt8(ascii: ",")) }
                    out.raw(UnsafeBufferPointer(rebasing: pieces[keys[k]]))
                    out.number(value(k - span.lowerBound))
                }
                out.byte(UInt8(ascii: "}"))
                if let decision {
                    switch decision {
                    case .finish: out.raw(",\"decision\":\"finish\"")
                    case .cancel: out.raw(",\"decision\":\"cancel\"")
                    case .snap: out.raw(",\"decision\":\"snap\"")
                    }
                }
                if let reason {
                    out.raw(",\"reason\":\"")
                    switch reason {
                    case .released: out.raw("released")
                    case .deviceLost: out.raw("device-lost")
                    case .clientLost: out.raw("client-lost")
                    case .command: out.raw("command")
                    case .shutdown: out.raw("shutdown")
                    case .reload: out.raw("reload")
                    case .palm: out.raw("palm")
                    case .stuck: out.raw("stuck")
                    }
                    out.byte(UInt8(ascii: "\""))
                }
                if let target {
                    out.raw(",\"target\":")
                    out.number(target)
                }
                if let index {
                    out.raw(",\"index\":")
                    out.unsigned(UInt64(max(0, index)))
                }
                if let position {
                    out.raw(",\"position\":{\"x\":")
                    out.number(position.x)
                    out.raw(",\"y\":")
                    out.number(position.y)
                    out.byte(UInt8(ascii: "}"))
                }
                out.raw("}\n")
            }
        }
    }
}
