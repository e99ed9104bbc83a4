import Engine

/// Which devices the daemon reads: `--device auto` (the first
/// touchscreen), `--device all` (every touchscreen, as they come and go) or
/// one or more `--device PATH` (`/dev/input/eventN`, `/dev/input/by-id/…`,
/// `/dev/input/by-path/…`), each its own source.
public enum DeviceSelector: Sendable, Equatable, CustomStringConvertible {
    case auto
    case all
    case paths([String])

    /// One path.
    public static func path(_ path: String) -> DeviceSelector { .paths([path]) }

    /// `auto` (or nothing) → `.auto`, `all` → `.all`, anything else is a path.
    public init(argument: String?) {
        self.init(arguments: argument.map { [$0] } ?? [])
    }

    /// Several arguments are paths; `auto` or `all` stand alone.
    public init(arguments: [String]) {
        switch arguments {
        case [], ["auto"]: self = .auto
        case ["all"]: self = .all
        default: self = .paths(arguments)
        }
    }

    /// The one path of a single-path selector.
    public var singlePath: String? {
        if case .paths(let paths) = self, paths.count == 1 { return paths[0] }
        return nil
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .all: return "all"
        case .paths(let paths): return paths.joined(separator: ", ")
        }
    }
}

/// The name suffix of the uinput copy of a panel in filter mode: such a
/// device is the daemon's own output, never one of its inputs.
public let filteredDeviceSuffix = " (transitiond filter)"

/// Whether a device is a panel copy made by a filter (ours or another's).
public func isFilterCopy(_ device: DeviceDescription) -> Bool {
    device.name.hasSuffix(filteredDeviceSuffix)
}

/// Whether the engine can read touches from a device (its touch axes have
/// usable ranges); nil when it can, else why not.
public func engineRejection(of device: DeviceDescription) -> String? {
    do {
        _ = try TouchFrameAssembler(device: device)
        return nil
    } catch {
        return error.message
    }
}

/// `--device auto`: **the touchscreen with the lowest event number** —
/// a node that can be read, is a touchscreen (`TouchscreenCheck`: direct
/// touch with multitouch or single-touch positions) and whose axes the
/// engine can use. With several, the choice is explained with how to pin
/// one (`--device` with its by-id link); nodes that cannot be read are
/// named, since one of them may be the panel.
public struct AutoChoice: Sendable, Equatable {
    /// The pick, nil when there is no candidate.
    public var chosen: DiscoveredDevice?
    /// Every candidate, the pick first.
    public var candidates: [DiscoveredDevice]
    /// Nodes that exist but could not be read (the reason is in each result).
    public var unreadable: [DiscoveredDevice]

    /// Applies the rule to a scan (in any order).
    public init(_ devices: [DiscoveredDevice]) {
        let ordered = devices.sorted { $0.node.number < $1.node.number }
        candidates = ordered.filter { device in
            guard let d = device.description else { return false }
            return d.isTouchscreen && !isFilterCopy(d) && engineRejection(of: d) == nil
        }
        // A node that vanished while it was scanned is no candidate to name.
        unreadable = ordered.filter { device in
            guard case .failure(let error) = device.result else { return false }
            return error.kind != .missing && error.kind != .gone
        }
        chosen = candidates.first
    }

    /// The log line for a pick among several; nil with one or none.
    public var severalMessage: String? {
        guard let chosen, candidates.count > 1 else { return nil }
        let others = candidates.dropFirst().map { "\($0.node.stablePath) \"\($0.description?.name ?? "")\"" }
        return "auto: \(candidates.count) touchscreens; chose \(chosen.node.path) \"\(chosen.description?.name ?? "")\" "
            + "(the lowest event number) over \(others.joined(separator: ", ")); "
            + "pin one with --device PATH, best its /dev/input/by-id/… link (stable across reboots): "
            + candidates.map(\.node.stablePath).joined(separator: ", ")
    }

    /// Why there is no pick: what could not be read, as one clause, nodes
    /// with the same reason together ("cannot read /dev/input/event1,
    /// /dev/input/event4: permission denied: …").
    public var unreadableSummary: String? {
        guard !unreadable.isEmpty else { return nil }
        var reasons: [String] = []
        var paths: [String: [String]] = [:]
        for device in unreadable {
            guard case .failure(let error) = device.result else { continue }
            if paths[error.message] == nil { reasons.append(error.message) }
            paths[error.message, default: []].append(device.node.path)
        }
        return "cannot read " + reasons.map { reason in
            paths[reason, default: []].joined(separator: ", ") + ": " + reason
        }.joined(separator: "; ")
    }
}
