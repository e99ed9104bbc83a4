import Testing
@testable import Engine

/// The panel's geometry: each rotation and flip maps a known touch to the
/// expected screen point, a calibration matrix from a real udev rule, the
/// assembler applying it, and edge segments.
@Suite("Screen geometry and edge segments")
struct ScreenGeometryTests {
    /// A touch near the panel's left edge, a third of the way down.
    let touch = (x: 0.1, y: 0.3)

    @Test func eachRotationAndFlipMapsAKnownTouch() {
        func at(_ g: ScreenGeometry) -> (Double, Double) {
            let p = g.map(x: touch.x, y: touch.y)
            return ((p.x * 1000).rounded() / 1000, (p.y * 1000).rounded() / 1000)
        }
        #expect(at(.identity) == (0.1, 0.3))
        // At 90° clockwise the panel's left edge is the screen's top.
        #expect(at(ScreenGeometry(rotation: .quarter)) == (0.7, 0.1))
        #expect(at(ScreenGeometry(rotation: .half)) == (0.9, 0.7))
        #expect(at(ScreenGeometry(rotation: .threeQuarters)) == (0.3, 0.9))
        #expect(at(ScreenGeometry(flipX: true)) == (0.9, 0.3))
        #expect(at(ScreenGeometry(flipY: true)) == (0.1, 0.7))
        // Flips come after the rotation.
        #expect(at(ScreenGeometry(rotation: .quarter, flipX: true)) == (0.3, 0.1))
    }

    /// libinput's documented matrix for a panel rotated 90° clockwise, as a
    /// udev rule writes it, is the same map as `rotation = 90`.
    @Test func aUdevCalibrationMatrixIsLibinputsMatrix() throws {
        let matrix = try #require(ScreenGeometry.calibration(fromUdev: "0 -1 1 1 0 0"))
        let calibrated = ScreenGeometry(calibration: matrix, calibrationSource: .udev)
        let rotated = ScreenGeometry(rotation: .quarter)
        for (x, y) in [(0.0, 0.0), (0.1, 0.3), (1.0, 0.5), (0.25, 1.0)] {
            let a = calibrated.map(x: x, y: y), b = rotated.map(x: x, y: y)
            #expect(abs(a.x - b.x) < 1e-12 && abs(a.y - b.y) < 1e-12)
        }
        #expect(calibrated.calibrationSource == .udev)
        #expect(calibrated.description == "rotation 0, calibration [0, -1, 1, 1, 0, 0] (udev)")
        // A scale-and-offset calibration (a panel larger than its screen).
        let shrink = ScreenGeometry(calibration: [1.1, 0, -0.05, 0, 1.2, -0.1])
        let p = shrink.map(x: 0.5, y: 0.5)
        #expect(abs(p.x - 0.5) < 1e-12 && abs(p.y - 0.5) < 1e-12)
        #expect(ScreenGeometry.calibration(fromUdev: "1 0 0 0 1") == nil, "five numbers")
        #expect(ScreenGeometry.calibration(fromUdev: "1 0 0 0 1 nan") == nil)
        #expect(ScreenGeometry.calibration(fromUdev: "1\t0 0  0 1 0") == [1, 0, 0, 0, 1, 0])
        #expect(ScreenGeometry(calibration: [1, 2, 3]).calibration == nil, "not a matrix")
    }

    @Test func theAssemblerAppliesItToPositionsAndTouchDowns() throws {
        let device = DeviceDescription(name: "panel", absInfo: [
            EventCode.ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: 1),
            EventCode.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1000),
            EventCode.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1000),
            EventCode.ABS_MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
        ])
        var a = try TouchFrameAssembler(device: device, geometry: ScreenGeometry(rotation: .quarter))
        let events = [
            InputEvent(time: 0, type: EventCode.EV_ABS, code: EventCode.ABS_MT_TRACKING_ID, value: 1),
            InputEvent(time: 0, type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_X, value: 100),
            InputEvent(time: 0, type: EventCode.EV_ABS, code: EventCode.ABS_MT_POSITION_Y, value: 300),
            InputEvent(time: 0, type: EventCode.EV_SYN, code: EventCode.SYN_REPORT, value: 0),
        ]
        var frame: TouchFrame?
        for e in events where a.feed(e) { frame = a.frame }
        let c = try #require(frame?.contacts.first)
        #expect(abs(c.x - 0.7) < 1e-12 && abs(c.y - 0.1) < 1e-12)
        #expect(c.downX == c.x && c.downY == c.y, "the touch-down the edge test uses is on the screen too")
    }

    @Test func anEdgeSegmentAcceptsATouchInsideAndRejectsOneOutside() {
        let lowerLeft = GestureKind.edgePan(edge: .left, fingers: 1, edgeMargin: 0.05,
                                            range: EdgeRange(start: 0.5, end: 1))
        #expect(lowerLeft.acceptsTouchDown(x: 0.01, y: 0.75))
        #expect(!lowerLeft.acceptsTouchDown(x: 0.01, y: 0.25), "the upper half of the edge")
        #expect(!lowerLeft.acceptsTouchDown(x: 0.2, y: 0.75), "not at the edge")
        let topMiddle = GestureKind.edgePan(edge: .top, fingers: 1, edgeMargin: 0.05,
                                            range: EdgeRange(start: 0.25, end: 0.75))
        #expect(topMiddle.acceptsTouchDown(x: 0.5, y: 0.0))
        #expect(!topMiddle.acceptsTouchDown(x: 0.1, y: 0.0))
        #expect(GestureKind.edgePan(edge: .right, fingers: 1, edgeMargin: 0.05).acceptsTouchDown(x: 0.99, y: 0.01),
                "the whole edge by default")
    }
}

/// Lengths in millimetres: resolved with the panel's axes' resolution (and
/// its mounting), or a clear error for a panel that gives none.
@Suite("Lengths in millimetres")
struct PhysicalLengthTests {
    func panel(resolution: Int32) -> DeviceDescription {
        DeviceDescription(name: "panel", absInfo: [
            EventCode.ABS_MT_SLOT: AbsInfo(minimum: 0, maximum: 9),
            EventCode.ABS_MT_POSITION_X: AbsInfo(minimum: 0, maximum: 4000, resolution: resolution),
            EventCode.ABS_MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 2000, resolution: resolution),
            EventCode.ABS_MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
        ])
    }

    func config(_ gesture: GestureKind, _ lengths: PhysicalLengths) -> EngineConfiguration {
        EngineConfiguration(transitions: [TransitionSpec(name: "t", gesture: gesture, physical: lengths)])
    }

    @Test func theScreensSizeComesFromTheAxesAndTheMounting() throws {
        let size = try #require(ScreenSize(device: panel(resolution: 20)))
        #expect(size == ScreenSize(widthMM: 200, heightMM: 100))
        #expect(ScreenSize(device: panel(resolution: 20), geometry: ScreenGeometry(rotation: .quarter))
                == ScreenSize(widthMM: 100, heightMM: 200))
        #expect(ScreenSize(device: panel(resolution: 0)) == nil)
        // A quarter turn by a udev matrix measures as `rotation = 90` does,
        // and a matrix's scale counts too.
        let turned = try #require(ScreenSize(device: panel(resolution: 20),
                                             geometry: ScreenGeometry(calibration: [0, -1, 1, 1, 0, 0])))
        #expect(near(turned.widthMM, 100) && near(turned.heightMM, 200), "\(turned)")
        let zoomed = try #require(ScreenSize(device: panel(resolution: 20),
                                             geometry: ScreenGeometry(calibration: [2, 0, 0, 0, 2, 0])))
        #expect(near(zoomed.widthMM, 100) && near(zoomed.heightMM, 50), "half the panel fills the screen: \(zoomed)")
        #expect(ScreenSize(device: panel(resolution: 20), geometry: ScreenGeometry(calibration: [0, 0, 0, 0, 0, 0])) == nil)
    }

    @Test func lengthsAlongTheGesturesAxisUseThatAxis() throws {
        let size = ScreenSize(widthMM: 200, heightMM: 100)
        let left = try config(.edgePan(edge: .left, fingers: 1, edgeMargin: 0.05),
                              PhysicalLengths(edgeMarginMM: 10, activationMM: 4, distanceMM: 100)).resolved(for: size)
        let spec = left.transitions[0]
        guard case .edgePan(_, _, let margin, _) = spec.gesture else { Issue.record("not an edge-pan"); return }
        #expect(near(margin, 0.05) && near(spec.activation, 0.02) && near(spec.distance, 0.5))
        let up = try config(.swipe(direction: .up, fingers: 3), PhysicalLengths(distanceMM: 50)).resolved(for: size)
        #expect(near(up.transitions[0].distance, 0.5), "up is along the 100 mm height")
        let pinch = try config(.pinch(direction: .in), PhysicalLengths(activationMM: 15)).resolved(for: size)
        #expect(near(pinch.transitions[0].activation, 0.1), "a pinch's spread: the mean of 200 and 100 mm")
        let plain = config(.edgePan(edge: .left, fingers: 1, edgeMargin: 0.05), PhysicalLengths())
        #expect(try plain.resolved(for: nil) == plain, "nothing in millimetres: nothing to resolve")
    }

    @Test func aPanelWithoutResolutionIsAClearError() {
        let c = config(.edgePan(edge: .left, fingers: 1, edgeMargin: 0.05), PhysicalLengths(edgeMarginMM: 8))
        #expect(throws: DeviceSetupError.self) { try c.resolved(for: nil) }
        do {
            _ = try c.resolved(for: nil)
        } catch {
            #expect(error.message.contains("edge_margin_mm") && error.message.contains("no resolution"), "\(error)")
        }
    }
}
