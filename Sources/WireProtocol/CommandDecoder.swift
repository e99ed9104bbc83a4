import WireFormat

/// Reads one command line: strict JSON, then the command's fields with
/// their types. Every problem is a `CommandError` with the protocol's code.
public enum CommandDecoder {
    public static func decode(_ line: [UInt8]) -> Result<(ClientCommand, RequestID?), CommandError> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(line)
        } catch {
            if case .invalidUTF8 = error {
                return .failure(CommandError(.badUTF8, "the line is not valid UTF-8 (\(error))"))
            }
            return .failure(CommandError(.badJSON, "the line is not JSON: \(error)"))
        }
        guard case .object = value else {
            return .failure(CommandError(.badJSON, "a command is a JSON object, like {\"cmd\":\"ping\"}"))
        }
        // Read first, so that every error (the id's own too) says which command it answers.
        let cmdName = value["cmd"]?.string
        var id: RequestID? = nil
        if let raw = value["id"] {
            if let s = raw.string {
                id = .text(s)
            } else if case .number(let x) = raw, x.isFinite, x.rounded(.towardZero) == x {
                // `x` is what the number read as: past 2⁵³ that is not what
                // was sent, and 2⁵³ itself may be 2⁵³ + 1 rounded.
                guard abs(x) <= Double(RequestID.largestNumber) else {
                    return .failure(CommandError(.badField, "'id' must be a string or an integer from -\(RequestID.largestNumber) to \(RequestID.largestNumber) (2^53 - 1): a larger number is not exact in JSON; send it as a string", cmd: cmdName))
                }
                id = .number(Int64(x))
            } else {
                return .failure(CommandError(.badField, "'id' must be a string or an integer", cmd: cmdName))
            }
        }
        func fail(_ code: ErrorCode, _ message: String) -> Result<(ClientCommand, RequestID?), CommandError> {
            .failure(CommandError(code, message, id: id, cmd: cmdName))
        }
        guard let cmd = value["cmd"] else { return fail(.badField, "missing 'cmd'") }
        guard let name = cmd.string else { return fail(.badField, "'cmd' must be a string") }

        func transition() -> String? { value["transition"]?.string }
        func needTransition() -> Result<String, CommandError> {
            guard let field = value["transition"] else { return .failure(CommandError(.badField, "missing 'transition'", id: id, cmd: name)) }
            guard let t = field.string, !t.isEmpty else {
                return .failure(CommandError(.badField, "'transition' must be a non-empty string", id: id, cmd: name))
            }
            return .success(t)
        }

        switch name {
        case "ping":
            return .success((.ping, id))
        case "state":
            return .success((.state, id))
        case "reload":
            return .success((.reload, id))
        case "dump":
            return .success((.dump, id))
        case "clock":
            return .success((.clock, id))
        case "frames":
            let expected = "'frames' must be an array of 1 to \(FrameReport.batchLimit) [seq, time] pairs (seq an event's, time seconds on the daemon's clock)"
            guard let items = value["frames"]?.array, (1...FrameReport.batchLimit).contains(items.count) else {
                return fail(.badField, expected)
            }
            var reports: [FrameReport] = []
            reports.reserveCapacity(items.count)
            for item in items {
                guard let pair = item.array, pair.count == 2, let seq = pair[0].double, let time = pair[1].double,
                      seq >= 1, seq <= Double(RequestID.largestNumber), seq == seq.rounded(), time.isFinite else {
                    return fail(.badField, expected)
                }
                reports.append(FrameReport(seq: UInt64(seq), presented: time + 0))
            }
            return .success((.frames(reports), id))
        case "subscribe":
            guard let field = value["transitions"] else { return .success((.subscribe(transitions: []), id)) }
            if case .null = field { return .success((.subscribe(transitions: []), id)) }
            guard let items = field.array else { return fail(.badField, "'transitions' must be an array of names") }
            var names: [String] = []
            for item in items {
                guard let n = item.string else { return fail(.badField, "'transitions' must be an array of names") }
                names.append(n)
            }
            return .success((.subscribe(transitions: names), id))
        case "run":
            switch needTransition() {
            case .failure(let e): return .failure(e)
            case .success(let t):
                let expected = "'to' must be \"finish\", \"cancel\" or a snap point from 0 to 1, or 'index' a snap point's index"
                switch (value["to"], value["index"]) {
                case (let to?, nil):
                    if let p = to.double {
                        guard p.isFinite, p >= 0, p <= 1 else { return fail(.badField, expected + " (got \(p))") }
                        return .success((.run(transition: t, to: .point(p)), id))
                    }
                    guard let text = to.string else { return fail(.badField, expected) }
                    switch TransitionUpdate.Decision(rawValue: text) {
                    case .finish?: return .success((.run(transition: t, to: .finish), id))
                    case .cancel?: return .success((.run(transition: t, to: .cancel), id))
                    case .snap?, nil: return fail(.badField, expected + " (got \"\(text)\")")
                    }
                case (nil, let index?):
                    guard let k = index.double, k >= 0, k <= 1000, k == k.rounded() else {
                        return fail(.badField, "'index' must be a snap point's index, an integer from 0")
                    }
                    return .success((.run(transition: t, to: .index(Int(k))), id))
                case (nil, nil):
                    return fail(.badField, expected)
                case (_?, _?):
                    return fail(.badField, "give 'to' or 'index', not both")
                }
            }
        case "drive":
            switch needTransition() {
            case .failure(let e): return .failure(e)
            case .success(let t):
                guard let p = value["progress"]?.double else {
                    return fail(.badField, "'progress' must be a number from 0 to 1")
                }
                guard p.isFinite, CommandLimits.progress.contains(p) else {
                    return fail(.badField, "'progress' must be a number from 0 to 1 (got \(p))")
                }
                return .success((.drive(transition: t, progress: p + 0), id))
            }
        case "release":
            switch needTransition() {
            case .failure(let e): return .failure(e)
            case .success(let t):
                var velocity: Double? = nil
                if let field = value["velocity"] {
                    let range = "from \(-CommandLimits.velocity) to \(CommandLimits.velocity) (progress per second)"
                    guard let v = field.double else { return fail(.badField, "'velocity' must be a number \(range)") }
                    guard v.isFinite, abs(v) <= CommandLimits.velocity else {
                        return fail(.badField, "'velocity' must be a number \(range) (got \(v))")
                    }
                    velocity = v + 0
                }
                return .success((.release(transition: t, velocity: velocity), id))
            }
        case "cancel":
            switch needTransition() {
            case .failure(let e): return .failure(e)
            case .success(let t): return .success((.cancel(transition: t), id))
            }
        case "enable":
            switch needTransition() {
            case .failure(let e): return .failure(e)
            case .success(let t):
                guard case .bool(let on)? = value["enabled"] else { return fail(.badField, "'enabled' must be true or false") }
                return .success((.enable(transition: t, enabled: on), id))
            }
        case "exclude":
            switch exclusionRects(value["rects"]) {
            case .failure(let message): return fail(.badField, message.text)
            case .success(let rects): return .success((.exclude(rects: rects), id))
            }
        case "filter_regions":
            switch filterRegions(value["regions"]) {
            case .failure(let message): return fail(.badField, message.text)
            case .success(let regions): return .success((.filterRegions(regions: regions), id))
            }
        default:
            _ = transition()
            return fail(.unknownCommand, "unknown command '\(name)' (known: subscribe, ping, state, run, drive, release, cancel, enable, reload, dump, exclude, filter_regions, clock, frames)")
        }
    }
}

extension CommandDecoder {
    /// Why `rects` could not be read.
    struct RectsProblem: Error { var text: String }

    /// `exclude`'s `rects`: an array of at most `CommandLimits.exclusionRects`
    /// arrays `[x0, y0, x1, y1]`, each number from 0 to 1, `x0 < x1`, `y0 < y1`.
    static func exclusionRects(_ field: JSONValue?) -> Result<[ExclusionRect], RectsProblem> {
        let shape = "'rects' must be an array of [x0, y0, x1, y1] (screen units, 0 to 1, x0 < x1, y0 < y1)"
        guard let field else { return .failure(RectsProblem(text: "missing 'rects' (\(shape); [] clears)")) }
        guard let items = field.array else { return .failure(RectsProblem(text: shape)) }
        guard items.count <= CommandLimits.exclusionRects else {
            return .failure(RectsProblem(text: "'rects' has \(items.count) rectangles; at most \(CommandLimits.exclusionRects) per client"))
        }
        var rects: [ExclusionRect] = []
        rects.reserveCapacity(items.count)
        for (k, item) in items.enumerated() {
            guard let numbers = item.array, numbers.count == 4 else {
                return .failure(RectsProblem(text: "'rects[\(k)]' must be [x0, y0, x1, y1] (\(shape))"))
            }
            var v: [Double] = []
            for number in numbers {
                guard let x = number.double, x.isFinite, x >= 0, x <= 1 else {
                    return .failure(RectsProblem(text: "'rects[\(k)]': each number must be from 0 to 1 (screen units)"))
                }
                v.append(x + 0)
            }
            guard v[0] < v[2], v[1] < v[3] else {
                return .failure(RectsProblem(text: "'rects[\(k)]' must have x0 < x1 and y0 < y1 (got [\(v[0]), \(v[1]), \(v[2]), \(v[3])])"))
            }
            rects.append(ExclusionRect(v[0], v[1], v[2], v[3]))
        }
        return .success(rects)
    }

    /// `filter_regions`' `regions`: null (the config's again), or an array
    /// of objects `{"x":[x0,x1],"y":[y0,y1]}` with an optional
    /// `max_contacts` (an integer) and `block` (an array of distinct
    /// strings), each side increasing within 0…1. How many, the contact
    /// range and the gestures' names are the server's to check.
    static func filterRegions(_ field: JSONValue?) -> Result<[FilterStatus.Region]?, RectsProblem> {
        let shape = "'regions' must be null (the config's regions) or an array of {\"x\":[x0,x1],\"y\":[y0,y1]} with optional \"max_contacts\" and \"block\" (screen units, 0 to 1, x0 < x1, y0 < y1)"
        guard let field else { return .failure(RectsProblem(text: "missing 'regions' (\(shape))")) }
        if field.isNull { return .success(nil) }
        guard let items = field.array else { return .failure(RectsProblem(text: shape)) }
        var regions: [FilterStatus.Region] = []
        for (k, item) in items.enumerated() {
            guard case .object = item else { return .failure(RectsProblem(text: "'regions[\(k)]' must be an object (\(shape))")) }
            func side(_ name: String) -> (Double, Double)? {
                guard let numbers = item[name]?.array, numbers.count == 2,
                      let low = numbers[0].double, let high = numbers[1].double,
                      low >= 0, high <= 1, low < high else { return nil }
                return (low + 0, high + 0)
            }
            guard let x = side("x"), let y = side("y") else {
                return .failure(RectsProblem(text: "'regions[\(k)]': 'x' and 'y' must each be [low, high], from 0 to 1, low < high"))
            }
            var maxContacts: Int? = nil
            if let raw = item["max_contacts"], !raw.isNull {
                guard let n = raw.double, n.rounded(.towardZero) == n, abs(n) < 1e9 else {
                    return .failure(RectsProblem(text: "'regions[\(k)].max_contacts' must be an integer"))
                }
                maxContacts = Int(n)
            }
            var block: [String]? = nil
            if let raw = item["block"], !raw.isNull {
                guard let list = raw.array else { return .failure(RectsProblem(text: "'regions[\(k)].block' must be an array of gesture names")) }
                // Bounded before it is read: a long list is no list of gestures,
                // and a peer's line must not cost the loop more than its length.
                guard list.count <= CommandLimits.blockNames else {
                    return .failure(RectsProblem(text: "'regions[\(k)].block' has \(list.count) names; at most \(CommandLimits.blockNames)"))
                }
                var names: [String] = []
                var seen = Set<String>()
                for entry in list {
                    guard let name = entry.string else { return .failure(RectsProblem(text: "'regions[\(k)].block' must be an array of gesture names")) }
                    guard seen.insert(name).inserted else { return .failure(RectsProblem(text: "'regions[\(k)].block' names '\(name)' twice")) }
                    names.append(name)
                }
                block = names
            }
            regions.append(FilterStatus.Region(x0: x.0, x1: x.1, y0: y.0, y1: y.1, maxContacts: maxContacts, block: block))
        }
        return .success(regions)
    }
}
