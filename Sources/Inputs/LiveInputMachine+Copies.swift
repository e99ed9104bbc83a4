import EvdevInput
import TouchFilter
import Engine

extension LiveInputMachine {
    // MARK: Filter mode: the pool of copies

    /// A panel's uinput copy and whose it is.
    struct PanelCopy: Sendable, Equatable {
        let id: CopyID
        /// The panel's port (its by-path link) or node.
        var identity: String
        /// Its description without current values: what the copy copies.
        var shape: DeviceDescription
        /// Its node once made, when known.
        var node: String?
        /// The source writing to it, nil while its panel is away.
        var user: Int?
    }

    /// An attach waiting for its copy to be made.
    struct AwaitingCopy: Sendable {
        var device: AttachedDevice
        var copy: CopyID
        var hold: Double
        var geometry: ScreenGeometry
    }

    /// Filter mode: a fresh filter writing to the panel's copy. The copy is
    /// the one it had if it comes back (by its by-path port; a panel without
    /// one takes an idle copy of a panel alike without one: it was
    /// re-plugged under another node), else a new one. A panel the input
    /// thread did not grab (it could not, or the filter cannot copy it)
    /// reaches the UI directly and gets no copy. True when the attach waits
    /// for a copy to be made. The copy is described for the `[filter]` rules
    /// and the panel's `geometry` (with `transform` at 90° or 270° its axes
    /// are swapped), and a copy is only reused for a panel it fits.
    mutating func setUpFilter(for attached: AttachedDevice, hold: Double, geometry: ScreenGeometry,
                              into out: inout Output) -> Bool {
        filters[attached.source] = nil
        guard attached.grabbed else {
            out.log(.warning, "filter: \(attached.path) \"\(attached.description.name)\" is not grabbed: the UI reads it directly, gestures and all; no copy")
            return false
        }
        let description = TouchFilterMachine.copyDescription(of: attached.description, rules: settings.filterRules,
                                                             geometry: geometry)
        let shape = Self.shape(of: description)
        let identity = Self.identity(of: attached)
        // A copy at this port of another kind of panel is of no more use.
        for i in copies.indices.reversed() where copies[i].identity == identity && copies[i].user == nil && copies[i].shape != shape {
            out.actions.append(.removeCopy(copies[i].id))
            copies.remove(at: i)
        }
        // A copy of a panel on a known port waits for that port; one known
        // by its node only goes to the next panel alike without a port.
        let onPort = { (identity: String) in identity.contains("/by-path/") }
        if let index = copies.firstIndex(where: { $0.identity == identity && $0.user == nil && $0.shape == shape })
            ?? copies.firstIndex(where: { $0.user == nil && $0.shape == shape && !onPort($0.identity) && !onPort(identity) }) {
            filter(attached, hold: hold, geometry: geometry, through: index, into: &out)
            return false
        }
        do {
            // A panel it can copy, with these rules.
            _ = try TouchFilterMachine(device: attached.description, hold: hold, rules: settings.filterRules, geometry: geometry)
        } catch {
            out.log(.error, "filter: \(attached.path) \"\(attached.description.name)\": \(error.message); the UI gets none of its touches")
            return false
        }
        if let earlier = awaitingCopy { bug("\(earlier.device.path)'s copy never came", into: &out) }
        copies.append(PanelCopy(id: nextCopy, identity: identity, shape: shape))
        awaitingCopy = AwaitingCopy(device: attached, copy: nextCopy, hold: hold, geometry: geometry)
        out.actions.append(.createCopy(nextCopy, description))
        nextCopy += 1
        return true
    }

    /// The copy asked for is made (`node`: its node, when known): the
    /// panel's touches go to it, and its attach ends.
    mutating func copyCreated(_ id: CopyID, node: String?, into out: inout Output) {
        guard let index = copies.firstIndex(where: { $0.id == id }) else { return bug("copy \(id) made, not asked for", into: &out) }
        copies[index].node = node
        guard let waiting = awaitingCopy, waiting.copy == id else { return bug("copy \(id) made for no panel", into: &out) }
        awaitingCopy = nil
        filter(waiting.device, hold: waiting.hold, geometry: waiting.geometry, through: index, into: &out)
        attachDone(waiting.device, into: &out)
    }

    /// The copy asked for could not be made (`error` says why): the UI gets
    /// none of the panel's touches; its attach ends.
    mutating func copyFailed(_ id: CopyID, error: String, into out: inout Output) {
        guard let waiting = awaitingCopy, waiting.copy == id else { return bug("copy \(id) failed for no panel", into: &out) }
        awaitingCopy = nil
        copies.removeAll { $0.id == id }
        out.log(.error, "filter: cannot make a copy of \(waiting.device.path) \"\(waiting.device.description.name)\": \(error); the UI gets none of its touches")
        attachDone(waiting.device, into: &out)
    }

    /// A write to a copy (`node`) was refused: the first since its panel took it is logged.
    mutating func writeFailed(_ id: CopyID, node: String?, into out: inout Output) {
        failedWrites[id, default: 0] += 1
        if failedWrites[id] == 1 { out.log(.warning, "filter: a write to \(node ?? "the copy") failed; the UI may miss touches") }
    }

    /// The panel's filter, writing to the copy at `index`.
    private mutating func filter(_ attached: AttachedDevice, hold: Double, geometry: ScreenGeometry, through index: Int,
                                 into out: inout Output) {
        do {
            let panel = try FilteredPanel(description: attached.description, hold: hold, rules: settings.filterRules,
                                          geometry: geometry, copy: copies[index].id)
            copies[index].user = attached.source
            copies[index].identity = Self.identity(of: attached)
            failedWrites[copies[index].id] = nil
            filters[attached.source] = panel
            out.log(.info, "filter: the touches of \(attached.path) that no transition claims go to \(copies[index].node ?? "its copy") \"\(UinputCopy.name(for: attached.description.name))\" (hold \(hold) s\(Self.rulesText(settings.filterRules)))")
        } catch {
            out.log(.error, "filter: \(attached.path) \"\(attached.description.name)\": \(error.message); the UI gets none of its touches")
        }
    }

    /// The rules a filter applies, for its log line: `""` with none, else
    /// `"; max_contacts 1, block pinch swipe-2, 2 regions, palm_mm 8,
    /// transform, ghost_touches quarantine"` (what is on).
    static func rulesText(_ rules: FilterRules) -> String {
        var parts: [String] = []
        if let max = rules.maxContacts { parts.append("max_contacts \(max)") }
        if !rules.block.isEmpty { parts.append("block " + BlockedGesture.ordered(rules.block).map(\.rawValue).joined(separator: " ")) }
        if !rules.regions.isEmpty { parts.append("\(rules.regions.count) region\(rules.regions.count == 1 ? "" : "s")") }
        if let mm = rules.palmMillimetres { parts.append("palm_mm \(mm)") }
        if let after = rules.stuckAfter { parts.append("stuck_after \(after) s") }
        if rules.transform { parts.append("transform") }
        switch rules.ghostTouches {
        case .off: break
        case .quarantine: parts.append("ghost_touches quarantine")
        }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: ", ")
    }

    /// A panel's port (its by-path link), else its node, else its path.
    static func identity(of attached: AttachedDevice) -> String {
        attached.aliases.first { $0.contains("/by-path/") }
            ?? attached.aliases.first { $0.hasPrefix("/dev/input/event") } ?? attached.path
    }

    /// A description without its axes' current values (what a copy copies).
    static func shape(of description: DeviceDescription) -> DeviceDescription {
        var shape = description
        for (code, var info) in shape.absInfo {
            info.value = 0
            shape.absInfo[code] = info
        }
        return shape
    }
}
