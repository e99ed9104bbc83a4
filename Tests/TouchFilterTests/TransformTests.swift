import Testing
import Engine
@testable import TouchFilter

@Suite("transform: the copy carries the screen's geometry")
struct TransformTests {
    let on = true, off = false

    /// A panel wider than tall: X 0…3999 at 20 units/mm, Y 0…1999 at 10
    /// (the single-touch axes alike).
    static let panel = Panels.tenSlots(extraAbs: [
        Code.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 3999, resolution: 20),
        Code.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1999, resolution: 10),
        Code.ABS_X: AbsInfo(minimum: 0, maximum: 3999, resolution: 20),
        Code.ABS_Y: AbsInfo(minimum: 0, maximum: 1999, resolution: 10),
    ])
    static let transform = FilterRules(transform: true)

    @Test func aQuarterTurnedCopyMapsAKnownTouchToTheExpectedPoint() {
        let geometry = ScreenGeometry(rotation: .quarter)
        var h = FilterHarness(device: Self.panel, rules: Self.transform, geometry: geometry)
        // Panel (1000, 500): normalised (1000/3999, 500/1999); at 90° the
        // screen's x is 1 − 500/1999 = 1499/1999 and its y 1000/3999. The
        // copy's X axis is the panel's Y (0…1999), its Y the panel's X (0…3999).
        let down = h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1000, y: 500))
        #expect(down == frames((1.0, cloneDown(slot: 0, id: 0, x: 1499, y: 1000)
                                    + [.key(Code.BTN_TOUCH, on), .key(Code.BTN_TOOL_FINGER, on), .absX(1499), .absY(1000)])))
        // The panel's top left corner is the screen's top right.
        #expect(h.frame(1.01, [.x(0), .y(0)]) == frames((1.01, [.x(1999), .y(0), .absX(1999), .absY(0)])))
        #expect(h.frame(1.02, [.id(-1)]) == frames((1.02, [.id(-1), .key(Code.BTN_TOUCH, off), .key(Code.BTN_TOOL_FINGER, off)])))
    }

    @Test(arguments: ScreenGeometry.Rotation.allCases)
    func theCopysPositionIsWhatTheEngineSees(_ rotation: ScreenGeometry.Rotation) throws {
        let geometry = ScreenGeometry(rotation: rotation, flipX: true, calibration: [0.9, 0, 0.05, 0, 1.1, -0.05])
        let copy = TouchFilterMachine.copyDescription(of: Self.panel, rules: Self.transform, geometry: geometry)
        let copyX = try #require(copy.absInfo[Code.ABS_MT_POSITION_X]), copyY = try #require(copy.absInfo[Code.ABS_MT_POSITION_Y])
        let points: [(Int32, Int32)] = [(1000, 500), (0, 0), (3999, 1999), (2500, 100), (10, 1990)]
        for (x, y) in points {
            var h = FilterHarness(device: Self.panel, rules: Self.transform, geometry: geometry)
            let out = h.frame(1.0, Ev.down(slot: 0, id: 10, x: x, y: y))
            var engine = try TouchFrameAssembler(device: Self.panel, geometry: geometry)
            for e in Ev.down(slot: 0, id: 10, x: x, y: y) + [.report] {
                _ = engine.feed(InputEvent(time: 0, type: e.type, code: e.code, value: e.value))
            }
            let contact = try #require(engine.frame.contacts.first)
            let expectedX = Int32((Double(copyX.maximum) * min(1, max(0, contact.x))).rounded())
            let expectedY = Int32((Double(copyY.maximum) * min(1, max(0, contact.y))).rounded())
            #expect(out.events.contains(.x(expectedX)) && out.events.contains(.y(expectedY)),
                    "\(rotation) (\(x), \(y)) → \(out.events)")
        }
    }

    @Test func aCalibrationPastTheEdgeIsClampedToTheCopysAxis() {
        let geometry = ScreenGeometry(calibration: [1.2, 0, -0.1, 0, 1, 0])
        var h = FilterHarness(device: Self.panel, rules: Self.transform, geometry: geometry)
        #expect(h.frame(1.0, Ev.down(slot: 0, id: 10, x: 3999, y: 0)).events.contains(.x(3999)))
        #expect(h.frame(1.01, [.x(0)]).events.contains(.x(0)))
        // 1.2 × 1000/3999 − 0.1 of 3999 is 800.1.
        #expect(h.frame(1.02, [.x(1000)]).events.contains(.x(800)))
    }

    @Test func withoutTransformTheCopyCarriesThePanelsPositions() {
        var h = FilterHarness(device: Self.panel, geometry: ScreenGeometry(rotation: .quarter))
        let down = h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1000, y: 500))
        #expect(down.events.contains(.x(1000)) && down.events.contains(.y(500)))
    }

    @Test func aHeldTouchIsReleasedTransformed() {
        var h = FilterHarness(device: Self.panel, rules: Self.transform, geometry: ScreenGeometry(rotation: .half))
        h.frame(1.0, Ev.down(slot: 0, id: 10, x: 1000, y: 500), [0: .startArea])
        h.frame(1.02, [.x(999)], [0: .startArea])
        h.run(until: 1.5)
        // At 180°: 3999 − x and 1999 − y.
        #expect(h.written.events.contains(.x(2999)) && h.written.events.contains(.y(1499)))
        #expect(h.written.events.contains(.x(3000)))
    }

    // MARK: The copy's description

    @Test func aQuarterTurnedCopysDescriptionHasItsAxesSwapped() throws {
        for rotation in [ScreenGeometry.Rotation.quarter, .threeQuarters] {
            let copy = TouchFilterMachine.copyDescription(of: Self.panel, rules: Self.transform,
                                                          geometry: ScreenGeometry(rotation: rotation))
            #expect(copy.absInfo[Code.ABS_MT_POSITION_X] == AbsInfo(minimum: 0, maximum: 1999, resolution: 10))
            #expect(copy.absInfo[Code.ABS_MT_POSITION_Y] == AbsInfo(minimum: 0, maximum: 3999, resolution: 20))
            #expect(copy.absInfo[Code.ABS_X] == AbsInfo(minimum: 0, maximum: 1999, resolution: 10))
            #expect(copy.absInfo[Code.ABS_Y] == AbsInfo(minimum: 0, maximum: 3999, resolution: 20))
            // The rest as the panel's.
            var rest = copy
            for code in [Code.ABS_MT_POSITION_X, Code.ABS_MT_POSITION_Y, Code.ABS_X, Code.ABS_Y] {
                rest.absInfo[code] = Self.panel.absInfo[code]
            }
            #expect(rest == Self.panel)
        }
    }

    @Test func otherwiseTheCopysDescriptionIsThePanels() {
        let flipped = ScreenGeometry(rotation: .half, flipX: true, calibration: [1, 0, 0, 0, 1, 0.1])
        #expect(TouchFilterMachine.copyDescription(of: Self.panel, rules: Self.transform, geometry: flipped) == Self.panel)
        #expect(TouchFilterMachine.copyDescription(of: Self.panel, rules: .none, geometry: ScreenGeometry(rotation: .quarter)) == Self.panel)
        #expect(TouchFilterMachine.copyDescription(of: Self.panel, rules: Self.transform, geometry: .identity) == Self.panel)
    }
}
