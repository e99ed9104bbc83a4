import WireFormat

extension Fields {
    /// `hello`'s or `state`'s snapshot. Every field may be absent (a
    /// replay's printed `hello` has no `seq`); a present one must be of its type.
    func snapshot() throws(StreamDecodeError) -> StreamSnapshot {
        var transitions: [TransitionInfo] = []
        for (k, item) in try array("transitions").enumerated() {
            let field = "transitions[\(k)]"
            guard let entry = item.object else { throw bad(field, "an object") }
            guard let name = entry["name"]?.string else { throw bad("\(field).name", "a string") }
            let inner = Fields(type: type, object: entry, prefix: "\(field).")
            transitions.append(TransitionInfo(name: name, gesture: try inner.optionalString("gesture"),
                                              fingers: try inner.optionalInt("fingers"),
                                              edge: try inner.optionalString("edge"),
                                              direction: try inner.optionalString("direction"),
                                              enabled: try inner.optionalBool("enabled") ?? true,
                                              device: try inner.optionalString("device"),
                                              snapPoints: try inner.optionalNumbers("snap_points"),
                                              rest: try inner.optionalNumber("rest")))
        }
        var active: [ActiveTransition] = []
        for (k, item) in try array("active").enumerated() {
            let field = "active[\(k)]"
            guard let entry = item.object else { throw bad(field, "an object") }
            let inner = Fields(type: type, object: entry, prefix: "\(field).")
            guard let name = entry["transition"]?.string else { throw bad("\(field).transition", "a string") }
            guard let phaseText = entry["phase"]?.string,
                  let phase = TransitionPhase(rawValue: phaseText), phase != .idle else {
                throw bad("\(field).phase", "\"interacting\" or \"animating\"")
            }
            guard let progress = entry["progress"]?.double else { throw bad("\(field).progress", "a number") }
            let values: [PropertyValue]
            do {
                values = try inner.values()
            } catch {
                throw bad("\(field).values", "an object of numbers")
            }
            active.append(ActiveTransition(transition: name, phase: phase, progress: progress,
                                           target: try inner.optionalNumber("target"), values: values))
        }
        var devices: [InputDevice] = []
        for (k, item) in try array("devices").enumerated() {
            guard let entry = item.object else { throw bad("devices[\(k)]", "an object") }
            let inner = Fields(type: type, object: entry, prefix: "devices[\(k)].")
            guard let source = try inner.optionalInt("source") else { throw inner.missing("source") }
            devices.append(InputDevice(source: source, path: try inner.string("path"), name: try inner.string("name")))
        }
        let input = try optionalString("input").map { state throws(StreamDecodeError) in
            InputStatus(input: state, device: try optionalString("device"), deviceName: try optionalString("device_name"),
                        waitingFor: try optionalString("waiting_for"))
        }
        return StreamSnapshot(protocolVersion: try optionalInt("protocol"), version: try optionalString("version"),
                              transitions: transitions, active: active,
                              seq: try optionalSeq(),
                              input: input, devices: devices, geometry: try geometry(),
                              exclusions: try exclusions(), filter: try filter(), panels: try panels(), latency: try latency(),
                              identity: try identity())
    }

    /// `"panels":[{…}]`, empty when absent.
    func panels() throws(StreamDecodeError) -> [PanelStatus] {
        var panels: [PanelStatus] = []
        for (k, item) in try array("panels").enumerated() {
            guard let entry = item.object else { throw bad("panels[\(k)]", "an object") }
            let inner = Fields(type: type, object: entry, prefix: "panels[\(k)].")
            guard let source = try inner.optionalInt("source") else { throw inner.missing("source") }
            panels.append(PanelStatus(source: source, path: try inner.string("path"),
                                      degraded: try inner.optionalBool("degraded") ?? false,
                                      samples: try inner.optionalInt("samples") ?? 0,
                                      reportRate: try inner.optionalNumber("report_rate_hz"),
                                      reportRateP5: try inner.optionalNumber("report_rate_p5_hz"),
                                      jitterMilliseconds: try inner.optionalNumber("jitter_ms"),
                                      resyncs: try inner.optionalInt("resyncs") ?? 0,
                                      ghostTouches: try inner.optionalInt("ghost_touches") ?? 0,
                                      stuckContacts: try inner.optionalInt("stuck_contacts") ?? 0))
        }
        return panels
    }

    /// `"exclusions":[[x0,y0,x1,y1],…]`, empty when absent.
    func exclusions() throws(StreamDecodeError) -> [ExclusionRect] {
        guard let value = object["exclusions"], !value.isNull else { return [] }
        var rects: [ExclusionRect] = []
        for (k, item) in (value.array ?? []).enumerated() {
            guard let numbers = item.array?.compactMap(\.double), numbers.count == 4, item.array?.count == 4 else {
                throw bad("exclusions[\(k)]", "[x0, y0, x1, y1]")
            }
            rects.append(ExclusionRect(numbers[0], numbers[1], numbers[2], numbers[3]))
        }
        if value.array == nil { throw bad("exclusions", "an array of [x0, y0, x1, y1]") }
        return rects
    }

    /// `"geometry":{…}`, nil when absent.
    func geometry() throws(StreamDecodeError) -> Geometry? {
        guard let value = object["geometry"], !value.isNull else { return nil }
        guard let entry = value.object else { throw bad("geometry", "an object") }
        let inner = Fields(type: type, object: entry, prefix: "geometry.")
        var calibration: [Double]? = nil
        if let matrix = entry["calibration"], !matrix.isNull {
            guard let numbers = matrix.array?.compactMap(\.double), numbers.count == matrix.array?.count else {
                throw inner.bad("calibration", "an array of numbers")
            }
            calibration = numbers
        }
        return Geometry(rotation: try inner.optionalInt("rotation") ?? 0, flipX: try inner.optionalBool("flip_x") ?? false,
                        flipY: try inner.optionalBool("flip_y") ?? false, calibration: calibration,
                        calibrationFrom: try inner.optionalString("calibration_from") ?? "none")
    }
}
