import FuzzSupport
import Engine

/// The fingers on each of three touchscreens, as the input moves them: five
/// places per screen, each empty or holding a touch that keeps its id (never
/// reused, as the frame assembler promises) and its touch-down position.
struct FingerBoard {
    static let sources = 3
    static let places = 5

    private var touches = [[Contact?]](repeating: [Contact?](repeating: nil, count: places), count: sources)
    private var nextID = 1

    /// The next frame of a source: a byte says which places are touched;
    /// a new touch lands where the input says (often on or near an edge), a
    /// held one stays, moves a little or jumps.
    mutating func frame(source: Int, time: Double, _ input: inout FuzzBytes) -> TouchFrame {
        let down = input.byte()
        var contacts: [Contact] = []
        for place in 0..<Self.places {
            guard down & (1 << place) != 0 else {
                touches[source][place] = nil
                continue
            }
            var touch: Contact
            if let held = touches[source][place] {
                touch = held
                switch input.below(4) {
                case 0: break
                case 1, 2:
                    touch.x += step(&input)
                    touch.y += step(&input)
                default:
                    touch.x = coordinate(&input)
                    touch.y = coordinate(&input)
                }
            } else {
                let x = coordinate(&input), y = coordinate(&input)
                touch = Contact(id: nextID, x: x, y: y)
                nextID += 1
            }
            touches[source][place] = touch
            contacts.append(touch)
        }
        return TouchFrame(time: time, contacts: contacts, source: source)
    }

    /// A position: the edges, just inside and outside them, or anywhere.
    private func coordinate(_ input: inout FuzzBytes) -> Double {
        switch input.below(4) {
        case 0: return input.pick([0, 1, 0.01, 0.99, 0.04, 0.5, -0.01, 1.01])
        default: return input.unit()
        }
    }

    /// A move of up to ±0.1 either way.
    private func step(_ input: inout FuzzBytes) -> Double {
        Double(Int8(bitPattern: input.byte())) / 1270
    }
}
