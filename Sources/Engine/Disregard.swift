/// Why a transition did not even look at a touch-down: said so that a
/// gesture whose finger count never matched is not silently absent.
public enum Disregard: Sendable, Equatable {
    /// Fewer contacts free of other gestures than its fingers: `free` of the
    /// `down` contacts on the panel.
    case tooFewContacts(free: Int, down: Int, fingers: Int)
    /// It already took or passed over the `down` free contacts; it looks
    /// again once fewer than `fingers` are down.
    case waitingForLift(down: Int, fingers: Int)
    /// It is bound to another touchscreen (`device`).
    case otherDevice(String)

    /// One line for people: "it takes 2 fingers; 1 was down".
    public var text: String {
        switch self {
        case .tooFewContacts(let free, let down, let fingers):
            let held = free < down ? " (\(down - free) held by another gesture)" : ""
            return "it takes \(fingers) \(Disregard.fingers(fingers)); \(free) \(free == 1 ? "was" : "were") down\(held)"
        case .waitingForLift(let down, let fingers):
            let again = fingers == 1 ? "every contact has lifted" : "fewer than \(fingers) are down"
            return "it already took or passed over the \(down) contacts down; it looks again once \(again)"
        case .otherDevice(let device):
            return "it is bound to the device \(device)"
        }
    }

    /// "finger" or "fingers".
    public static func fingers(_ count: Int) -> String { count == 1 ? "finger" : "fingers" }
}
