extension StreamSnapshot {
    /// Appends `hello`'s or `state`'s fields after `{"type":TYPE`, without
    /// the closing `}\n`; `id` is a `state` reply's request id.
    func encode(type: String, id: RequestID? = nil, into w: JSONWriter) {
        w.raw("{\"type\":")
        w.string(type)
        if let protocolVersion {
            w.raw(",\"protocol\":")
            w.integer(protocolVersion)
        }
        if let version {
            w.raw(",\"version\":")
            w.string(version)
        }
        w.raw(",\"transitions\":[")
        for (k, info) in transitions.enumerated() {
            if k > 0 { w.raw(",") }
            info.encode(into: w)
        }
        w.raw("],\"active\":[")
        for (k, entry) in active.enumerated() {
            if k > 0 { w.raw(",") }
            w.raw("{\"transition\":")
            w.string(entry.transition)
            w.raw(",\"phase\":")
            w.string(entry.phase.rawValue)
            w.raw(",\"progress\":")
            w.number(entry.progress)
            w.values(entry.values)
            if let target = entry.target {
                w.raw(",\"target\":")
                w.number(target)
            }
            w.raw("}")
        }
        w.raw("]")
        if let seq {
            w.raw(",\"seq\":")
            w.integer(seq)
        }
        if let input { input.encode(into: w) }
        if !devices.isEmpty {
            w.raw(",\"devices\":[")
            for (k, device) in devices.enumerated() {
                w.raw(k > 0 ? ",{\"source\":" : "{\"source\":")
                w.integer(device.source)
                w.raw(",\"path\":")
                w.string(device.path)
                w.raw(",\"name\":")
                w.string(device.name)
                w.raw("}")
            }
            w.raw("]")
        }
        if let geometry { geometry.encode(into: w) }
        if !exclusions.isEmpty {
            w.raw(",\"exclusions\":")
            w.rects(exclusions)
        }
        if let filter { filter.encode(into: w) }
        if !panels.isEmpty {
            w.raw(",\"panels\":[")
            for (k, panel) in panels.enumerated() {
                if k > 0 { w.raw(",") }
                panel.encode(into: w)
            }
            w.raw("]")
        }
        if let latency, !latency.isEmpty { latency.encode(into: w) }
        if let identity { identity.encode(into: w) }
        w.id(id)
    }
}

extension TransitionInfo {
    /// `{"name":…,"gesture":…,"fingers":…,"edge"|"direction":…}`, then
    /// `"enabled":false` and `"device":…` when they have something to say.
    func encode(into w: JSONWriter) {
        w.raw("{\"name\":")
        w.string(name)
        if let gesture {
            w.raw(",\"gesture\":")
            w.string(gesture)
        }
        if let fingers {
            w.raw(",\"fingers\":")
            w.integer(fingers)
        }
        if let edge {
            w.raw(",\"edge\":")
            w.string(edge)
        }
        if let direction {
            w.raw(",\"direction\":")
            w.string(direction)
        }
        if !enabled { w.raw(",\"enabled\":false") }
        if let device {
            w.raw(",\"device\":")
            w.string(device)
        }
        if let snapPoints {
            w.raw(",\"snap_points\":")
            w.numbers(snapPoints)
        }
        if let rest {
            w.raw(",\"rest\":")
            w.number(rest)
        }
        w.raw("}")
    }
}

extension InputStatus {
    func encode(into w: JSONWriter) {
        w.raw(",\"input\":")
        w.string(input)
        for (key, value) in [(",\"device\":" as StaticString, device), (",\"device_name\":", deviceName),
                             (",\"waiting_for\":", waitingFor)] {
            guard let value else { continue }
            w.raw(key)
            w.string(value)
        }
    }
}

extension Geometry {
    func encode(into w: JSONWriter) {
        w.raw(",\"geometry\":{\"rotation\":")
        w.integer(rotation)
        w.raw(flipX ? ",\"flip_x\":true" : ",\"flip_x\":false")
        w.raw(flipY ? ",\"flip_y\":true" : ",\"flip_y\":false")
        w.raw(",\"calibration\":")
        if let calibration {
            w.numbers(calibration)
        } else {
            w.raw("null")
        }
        w.raw(",\"calibration_from\":")
        w.string(calibrationFrom)
        w.raw("}")
    }
}
