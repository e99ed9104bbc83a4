import Engine

/// `[filter] block`: pinches and swipes of N fingers kept from the copy.
///
/// The touches on their way to the copy (held or forwarded) make a group
/// once there are two or more; its reference (the fingers' centroid and
/// their mean distance from it, as the engine measures a gesture) is taken
/// when the group forms and again whenever a finger joins or leaves it. The
/// `block` list in force is the one where the group's centroid was then
/// (the table's, or a region's). A group of N fingers is a blocked gesture
/// once, from its reference, its centroid has travelled `activation` and
/// further than its spread changed (`swipe-N`), or its spread has changed
/// by `activation` and by at least the centroid's travel (`pinch`, two
/// fingers): the engine's own measures, at its default activation.
///
/// What the UI never gets then is every finger of the group but the first:
/// the oldest, when it is already on the copy (forwarded). A touch that
/// lands while another is on its way to the copy is held, if the `block`
/// list where it lands has a gesture of as many fingers as are down or
/// more (the same hold as an edge touch, `hold`): recognised meanwhile, it
/// is swallowed; else it is released with its lag, and ended on the copy
/// at once if the gesture is recognised later. The first finger goes on
/// unbroken: ending it would be a tap the UI did not see coming (a click);
/// the UI sees a one-finger drag, not a pinch. Fingers that land together
/// are all held, so a gesture recognised within their hold never reaches
/// the copy at all. While a withheld finger is down, every touch that
/// lands is withheld too (a third finger of a blocked pinch). Each touch
/// withheld is noticed once (`touchWithheld(.block)`).
extension TouchFilterMachine {
    /// Screen units the fingers' centroid (or their spread, for a pinch)
    /// must travel: the engine's default `activation`.
    static let blockActivation = 0.02

    /// A group of touches that may be a blocked gesture.
    struct BlockGroup: Sendable, Equatable {
        var ids: [UInt64]
        var reference: GestureReference
        /// The blocked gestures with as many fingers as the group has.
        var gestures: Set<BlockedGesture>
    }

    /// True while a finger of a blocked gesture is down: a touch landing
    /// now is withheld.
    var isBlocking: Bool {
        touches.contains { $0?.blocked == true }
    }

    /// For a new touch in `slot` (admitted, not claimed): the seconds to
    /// hold it as a finger that may be a blocked gesture's (nil: no such
    /// hold), when another touch is on its way to the copy or lands in the
    /// same frame.
    func blockHold(inSlot slot: Int) -> Double? {
        guard applied.blocksGestures, hold > 0, let place = applied.screenPosition(inSlot: slot, of: frame) else {
            return nil
        }
        var count = 1
        for other in frame.activeSlots where other != slot {
            guard let id = frame.touch(in: other) else { continue }
            guard let touch = touches[other], touch.id == id else {
                // Not decided yet: it lands in this same frame, in a higher slot.
                if other > slot { count += 1 }
                continue
            }
            switch touch.disposition {
            case .held, .forwarded: count += 1
            case .swallowed, .withheld: continue
            }
        }
        guard count >= 2, rules.block(atX: place.x, y: place.y).contains(where: { $0.fingers >= count }) else { return nil }
        return hold
    }

    /// After a frame's touches are decided: follows the group and, when it
    /// makes a blocked gesture, withholds its extra fingers (ending on the
    /// copy those already out, in the frame the caller writes next, as for
    /// a touch claimed once out).
    mutating func checkBlock() {
        guard applied.blocksGestures else { return }
        // Most frames have one touch or none: no group, nothing to gather.
        var count = 0
        for case let touch? in touches {
            switch touch.disposition {
            case .held, .forwarded: count += 1
            case .swallowed, .withheld: continue
            }
        }
        guard count >= 2 else {
            blockGroup = nil
            return
        }
        var ids: [UInt64] = []
        var contacts: [Contact] = []
        for slot in touches.indices {
            guard let touch = touches[slot], let place = applied.screenPosition(inSlot: slot, of: frame) else { continue }
            switch touch.disposition {
            case .held, .forwarded:
                ids.append(touch.id)
                contacts.append(Contact(id: contacts.count, x: place.x, y: place.y))
            case .swallowed, .withheld:
                continue
            }
        }
        guard ids.count >= 2 else {
            blockGroup = nil
            return
        }
        let current = GestureReference(of: contacts)
        guard let group = blockGroup, group.ids == ids else {
            let gestures = rules.block(atX: current.centroidX, y: current.centroidY).filter { $0.fingers == ids.count }
            blockGroup = BlockGroup(ids: ids, reference: current, gestures: gestures)
            return
        }
        guard Self.recognise(group, now: current) != nil else { return }
        blockGroup = nil
        // The oldest finger the copy already has stays.
        var first: UInt64? = nil
        for case let touch? in touches where group.ids.contains(touch.id) && touch.id < (first ?? .max) {
            switch touch.disposition {
            case .forwarded: first = touch.id
            case .held, .swallowed, .withheld: continue
            }
        }
        for slot in touches.indices {
            guard var touch = touches[slot], group.ids.contains(touch.id), touch.id != first else { continue }
            switch touch.disposition {
            case .held:
                break
            case .forwarded:
                delayed.removeSteps(for: touch.id)
                clone.end(touch.id)
            case .swallowed, .withheld:
                continue
            }
            touch.disposition = .swallowed
            touch.blocked = true
            touches[slot] = touch
            notify(.touchWithheld(.block))
        }
    }

    /// The blocked gesture `group` makes at `current`, if any.
    static func recognise(_ group: BlockGroup, now current: GestureReference) -> BlockedGesture? {
        guard !group.gestures.isEmpty else { return nil }
        let dx = current.centroidX - group.reference.centroidX
        let dy = current.centroidY - group.reference.centroidY
        let travel = (dx * dx + dy * dy).squareRoot()
        let spread = abs(current.spread - group.reference.spread)
        if group.gestures.contains(.pinch), spread >= blockActivation, spread >= travel { return .pinch }
        guard travel >= blockActivation, travel > spread else { return nil }
        return group.gestures.first { $0 != .pinch }
    }
}
