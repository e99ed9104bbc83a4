import Testing
import Engine
@testable import EvdevInput
@testable import Inputs

/// Lengths in millimetres: resolved for the first panel attached, named
/// for another of a different size, following the first panel still
/// attached, and resolved on reload.
@Suite("Live input machine: millimetres")
struct MachineLengthsTests {
    /// `back`'s edge margin: 8 mm.
    static let millimetres: EngineConfiguration = {
        var spec = EngineConfiguration.standard
        spec.transitions[0].physical = PhysicalLengths(edgeMarginMM: 8)
        return spec
    }()

    /// A panel like the sample one at `resolution` units per mm.
    static func panel(resolution: Int32) -> DeviceDescription {
        var panel = SampleDevices.touchscreen(name: "Other Panel")
        for code in [EventCode.ABS_X, EventCode.ABS_Y, EventCode.ABS_MT_POSITION_X, EventCode.ABS_MT_POSITION_Y] {
            panel.absInfo[code]?.resolution = resolution
        }
        return panel
    }

    /// `back`'s edge margin in the engine now, in screen units.
    func margin(_ s: MachineScript) -> Double { Self.margin(s.machine.engine.configuration) }

    static func margin(_ configuration: EngineConfiguration) -> Double {
        guard case .edgePan(_, _, let margin, _) = configuration.transitions[0].gesture else { return -1 }
        return margin
    }

    @Test func theFirstPanelsLengthsHoldAndAnotherSizeIsNamed() {
        var s = MachineScript(Self.millimetres)
        s.attach("/dev/input/event4", source: 0)
        // 8 mm of a 4096-unit axis at 16 units/mm.
        #expect(abs(margin(s) - 8.0 / (4095.0 / 16.0)) < 1e-9)
        s.attach("/dev/input/event5", Self.panel(resolution: 8), source: 1)
        #expect(s.logged.first == "log-warning /dev/input/event5 \"Other Panel\": its size differs from /dev/input/event4's; lengths in millimetres stay resolved for /dev/input/event4")
        #expect(abs(margin(s) - 8.0 / (4095.0 / 16.0)) < 1e-9)
        // The first goes: the lengths follow the first still attached.
        s.lose("/dev/input/event4", source: 0, at: 1)
        #expect(s.logged.first == "log-info lengths in millimetres now resolved for /dev/input/event5")
        #expect(abs(margin(s) - 8.0 / (4095.0 / 8.0)) < 1e-9)
    }

    @Test func aPanelWithoutResolutionUsesTheScreenUnits() {
        var s = MachineScript(Self.millimetres)
        s.attach("/dev/input/event4", Self.panel(resolution: 0))
        #expect(s.logged.first?.hasPrefix("log-error /dev/input/event4 \"Other Panel\": ") == true)
        #expect(s.logged.first?.hasSuffix("; using the lengths in screen units") == true)
        #expect(margin(s) == Self.margin(.standard))
    }

    @Test func millimetresFromAReloadAreResolvedForTheAttachedPanel() {
        var s = MachineScript()
        s.attach()
        var moved: [Int?] = []
        s.run { moved = $0.reload(Self.millimetres, into: &$1) }
        #expect(moved.count == EngineConfiguration.standard.transitions.count)
        #expect(abs(margin(s) - 8.0 / (4095.0 / 16.0)) < 1e-3, "\(margin(s))")
        #expect(s.last == ["no tick"])
    }
}
