extension ClientCommand {
    /// The command's line (with its `\n`), as a client sends it: `cmd`
    /// first, its fields in the protocol's order, the request's `id` last.
    /// `CommandDecoder` reads it back as the same command.
    public func encodedLine(id: RequestID? = nil) -> [UInt8] {
        let w = JSONWriter(capacity: 128)
        encode(id: id, into: w)
        return w.bytes
    }

    public func encode(id: RequestID? = nil, into w: JSONWriter) {
        w.raw("{\"cmd\":")
        w.string(name)
        switch self {
        case .ping, .state, .reload, .dump, .clock:
            break
        case .frames(let reports):
            w.raw(",\"frames\":[")
            for (k, report) in reports.enumerated() {
                w.raw(k > 0 ? ",[" : "[")
                w.integer(report.seq)
                w.raw(",")
                w.number(report.presented)
                w.raw("]")
            }
            w.raw("]")
        case .subscribe(let names):
            // No list is every transition, as an empty one is.
            if !names.isEmpty {
                w.raw(",\"transitions\":[")
                for (k, name) in names.enumerated() {
                    if k > 0 { w.raw(",") }
                    w.string(name)
                }
                w.raw("]")
            }
        case .run(let transition, let to):
            w.transition(transition)
            switch to {
            case .decision(let decision):
                w.raw(",\"to\":")
                w.string(decision.rawValue)
            case .point(let progress):
                w.raw(",\"to\":")
                w.number(progress)
            case .index(let index):
                w.raw(",\"index\":")
                w.integer(index)
            }
        case .drive(let transition, let progress):
            w.transition(transition)
            w.raw(",\"progress\":")
            w.number(progress)
        case .release(let transition, let velocity):
            w.transition(transition)
            if let velocity {
                w.raw(",\"velocity\":")
                w.number(velocity)
            }
        case .cancel(let transition):
            w.transition(transition)
        case .enable(let transition, let enabled):
            w.transition(transition)
            w.raw(enabled ? ",\"enabled\":true" : ",\"enabled\":false")
        case .exclude(let rects):
            w.raw(",\"rects\":")
            w.rects(rects)
        case .filterRegions(let regions):
            w.raw(",\"regions\":")
            if let regions { FilterStatus.encode(regions: regions, into: w) } else { w.raw("null") }
        }
        w.id(id)
        w.raw("}\n")
    }
}

extension JSONWriter {
    /// `[[x0,y0,x1,y1],…]`.
    func rects(_ rects: [ExclusionRect]) {
        raw("[")
        for (k, r) in rects.enumerated() {
            if k > 0 { raw(",") }
            numbers(r.numbers)
        }
        raw("]")
    }

    /// `[a,b,…]`.
    func numbers(_ values: [Double]) {
        raw("[")
        for (k, value) in values.enumerated() {
            if k > 0 { raw(",") }
            number(value)
        }
        raw("]")
    }

    fileprivate func transition(_ name: String) {
        raw(",\"transition\":")
        string(name)
    }
}
