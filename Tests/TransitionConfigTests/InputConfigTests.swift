import Testing
@testable import TransitionConfig
import Engine

// The [input] table: the device, by default "auto".

extension Fixture {
    /// Lines 1–5 (a transition, then `[input]`); the next key is on line 6.
    static let input = edgePan + "[input]\n"
}

@Test func noInputTableMeansAuto() throws {
    #expect(try ConfigLoader.parseDaemon(text: Fixture.edgePan, file: "test.toml").input == .standard)
    #expect(InputSettings.standard.device == ["auto"])
    #expect(try ConfigLoader.parseDaemon(text: Fixture.input, file: "test.toml").input.device == ["auto"])
}

@Test func theDeviceIsAutoOrAnAbsolutePath() throws {
    for device in ["auto", "all", "/dev/input/event3", "/dev/input/by-id/usb-Kiosk_Panel-event-if00"] {
        let config = try ConfigLoader.parseDaemon(text: Fixture.input + "device = \"\(device)\"\n", file: "test.toml")
        #expect(config.input.device == [device])
        // The effective config reads back to the same thing.
        let rendered = ConfigRenderer.render(config)
        #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == config, "\(rendered)")
    }
}

@Test func aBadDeviceIsNamedAtItsLine() {
    for (value, fragment) in [("\"event3\"", "must be \"auto\", \"all\" or an absolute path"),
                              ("\"\"", "must be \"auto\", \"all\" or an absolute path"),
                              ("3", "expected"),
                              ("\"/\(String(repeating: "x", count: 4096))\"", "at most 4096 bytes")] {
        do {
            let config = try ConfigLoader.parseDaemon(text: Fixture.input + "device = \(value)\n", file: "test.toml")
            Issue.record("expected an error for device = \(value), parsed \(config)")
        } catch let error as ConfigError {
            #expect(error.line == 6, "\(error)")
            #expect(error.key == "input.device" || error.key == "device", "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        } catch {
            Issue.record("expected a ConfigError, got \(error)")
        }
    }
}

@Test func anUnknownInputKeyIsNamed() {
    do {
        _ = try ConfigLoader.parseDaemon(text: Fixture.input + "devise = \"auto\"\n", file: "test.toml")
        Issue.record("expected an error")
    } catch let error as ConfigError {
        #expect(error.line == 6)
        #expect(error.message.contains("device"), "suggests the nearest key: \(error)")
    } catch {
        Issue.record("expected a ConfigError, got \(error)")
    }
}

// MARK: - Geometry

@Test func theGeometryKeysReachTheSettingsAndReadBack() throws {
    let text = Fixture.input + "rotation = 270\nflip_x = true\ncalibration = [0, -1, 1, 1, 0, 0]\n"
    let config = try ConfigLoader.parseDaemon(text: text, file: "test.toml")
    #expect(config.input.rotation == .threeQuarters && config.input.flipX && !config.input.flipY)
    #expect(config.input.calibration == [0, -1, 1, 1, 0, 0])
    let geometry = config.input.geometry(deviceCalibration: [2, 0, 0, 0, 2, 0])
    #expect(geometry.calibration == [0, -1, 1, 1, 0, 0] && geometry.calibrationSource == .config,
            "the config's matrix wins over the device's")
    let rendered = ConfigRenderer.render(config)
    #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == config, "\(rendered)")
    // Without a matrix in the config, the device's (udev) is used.
    let plain = try ConfigLoader.parseDaemon(text: Fixture.input, file: "test.toml").input
    #expect(plain.geometry(deviceCalibration: [2, 0, 0, 0, 2, 0]).calibrationSource == .udev)
    #expect(plain.geometry().isIdentity)
}

@Test func badGeometryValuesAreNamedAtTheirLine() {
    for (line, fragment) in [("rotation = 45", "must be 0, 90, 180 or 270 (got 45)"),
                             ("rotation = 360", "must be from 0 to 270"),
                             ("flip_x = 1", "expected a boolean"),
                             ("calibration = [1, 0, 0, 0, 1]", "must be 6 numbers"),
                             ("calibration = [1, 0, 0, 0, 1, 1e9]", "from -1000 to 1000"),
                             ("calibration = [1, 0, 0, 0, 1, \"x\"]", "item 6")] {
        do {
            let config = try ConfigLoader.parseDaemon(text: Fixture.input + line + "\n", file: "test.toml")
            Issue.record("expected an error for \(line), parsed \(config)")
        } catch let error as ConfigError {
            #expect(error.line == 6, "\(line): \(error)")
            #expect(error.message.contains(fragment), "\(line): \(error)")
        } catch {
            Issue.record("expected a ConfigError, got \(error)")
        }
    }
}

@Test func anEdgeRangeIsTwoIncreasingFractions() throws {
    let lower = try ConfigLoader.parse(text: Fixture.edgePan + "edge_range = [0.5, 1]\n", file: "test.toml")
    guard case .edgePan(_, _, _, let range)? = lower.transitions.first?.gesture else {
        Issue.record("not an edge-pan")
        return
    }
    #expect(range == EdgeRange(start: 0.5, end: 1))
    #expect(try ConfigLoader.parse(text: ConfigLoader.render(lower), file: "rendered.toml") == lower)
    for (value, fragment) in [("[0.5]", "must be [start, end]"), ("[0.6, 0.4]", "must be [start, end]"),
                              ("[0.5, 0.5]", "must be [start, end]"), ("[0, 1.5]", "must be >= 0 and <= 1")] {
        do {
            _ = try ConfigLoader.parse(text: Fixture.edgePan + "edge_range = \(value)\n", file: "test.toml")
            Issue.record("expected an error for \(value)")
        } catch let error as ConfigError {
            #expect(error.message.contains(fragment), "\(value): \(error)")
            #expect(error.key?.hasSuffix("edge_range") == true, "\(error)")
        } catch {
            Issue.record("expected a ConfigError, got \(error)")
        }
    }
}

// MARK: - Lengths in millimetres

@Test func lengthsInMillimetresAreReadAndReadBack() throws {
    let config = try ConfigLoader.parse(text: Fixture.edgePan + "edge_margin_mm = 8\nactivation_mm = 3\ndistance_mm = 150\n",
                                        file: "test.toml")
    #expect(config.transitions[0].physical == PhysicalLengths(edgeMarginMM: 8, activationMM: 3, distanceMM: 150))
    let rendered = ConfigLoader.render(config)
    #expect(rendered.contains("edge_margin_mm = 8") && !rendered.contains("\nedge_margin ="), "\(rendered)")
    #expect(try ConfigLoader.parse(text: rendered, file: "rendered.toml") == config)
}

@Test func aLengthInBothUnitsOrOnAPinchIsAnError() {
    for (text, line, fragment) in [
        (Fixture.edgePan + "edge_margin = 0.05\nedge_margin_mm = 8\n", 6, "give edge_margin (screen units, line 5) or edge_margin_mm"),
        (Fixture.edgePan + "activation_mm = 0\n", 5, "must be > 0"),
        (Fixture.pinchIn + "distance_mm = 30\n", 5, "distance_mm"),
    ] {
        do {
            _ = try ConfigLoader.parse(text: text, file: "test.toml")
            Issue.record("expected an error for \(text)")
        } catch let error as ConfigError {
            #expect(error.line == line, "\(error)")
            #expect(error.message.contains(fragment) || (error.key ?? "").contains(fragment), "\(error)")
        } catch {
            Issue.record("expected a ConfigError, got \(error)")
        }
    }
}

// MARK: Several touchscreens, the mode

@Test func severalDevicesAreAnArrayOfPaths() throws {
    let text = Fixture.input + "device = [\"/dev/input/by-id/left-event-if00\", \"/dev/input/event7\"]\n"
    let config = try ConfigLoader.parseDaemon(text: text, file: "test.toml")
    #expect(config.input.device == ["/dev/input/by-id/left-event-if00", "/dev/input/event7"])
    let rendered = ConfigRenderer.render(config)
    #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == config, "\(rendered)")
}

@Test(arguments: [
    ("[]", "at least one device"),
    ("[\"auto\", \"/dev/input/event3\"]", "item 1"),
    ("[\"/dev/input/event3\", \"/dev/input/event3\"]", "twice"),
    ("[\"/dev/input/event3\", 4]", "expected"),
])
func aBadDeviceListIsNamedAtItsLine(_ value: String, _ fragment: String) {
    do {
        let config = try ConfigLoader.parseDaemon(text: Fixture.input + "device = \(value)\n", file: "test.toml")
        Issue.record("expected an error for device = \(value), parsed \(config)")
    } catch let error as ConfigError {
        #expect(error.line == 6, "\(error)")
        #expect(error.message.contains(fragment), "\(error)")
    } catch {
        Issue.record("unexpected \(error)")
    }
}

@Test func theModeAndTheFilterHold() throws {
    let plain = try ConfigLoader.parseDaemon(text: Fixture.input, file: "test.toml")
    #expect(plain.input.mode == .shared)
    let filter = try ConfigLoader.parseDaemon(text: Fixture.input + "mode = \"filter\"\nfilter_hold = 0.12\n", file: "test.toml")
    #expect(filter.input.mode == .filter)
    #expect(filter.input.filterHold == 0.12)
    // The hold may be set without the mode (for `run --mode filter`).
    let hold = try ConfigLoader.parseDaemon(text: Fixture.input + "filter_hold = 0.2\n", file: "test.toml")
    #expect(hold.input.mode == .shared && hold.input.filterHold == 0.2)
    let rendered = ConfigRenderer.render(filter)
    #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == filter, "\(rendered)")
    for (text, fragment) in [("mode = \"exclusive\"\n", "shared, grab, filter"),
                             ("mode = \"filter\"\nfilter_hold = 2\n", "filter_hold"),
                             ("filter_hold = 0\n", "filter_hold")] {
        do {
            _ = try ConfigLoader.parseDaemon(text: Fixture.input + text, file: "test.toml")
            Issue.record("expected an error for \(text)")
        } catch let error as ConfigError {
            #expect((error.line ?? 0) >= 6, "\(error)")
            #expect("\(error)".contains(fragment), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

@Test func aTransitionBoundToATouchscreen() throws {
    let text = Fixture.edgePan + "device = \"Left Panel\"\n"
    let config = try ConfigLoader.parseDaemon(text: text, file: "test.toml")
    #expect(config.engine.transitions[0].device == "Left Panel")
    let rendered = ConfigRenderer.render(config)
    #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == config, "\(rendered)")
}

@Test func theEdgeExclusionCap() throws {
    let plain = try ConfigLoader.parseDaemon(text: Fixture.input, file: "test.toml")
    #expect(plain.input.maxEdgeExclusion == 0.5, "the default")
    let set = try ConfigLoader.parseDaemon(text: Fixture.input + "max_edge_exclusion = 0.25\n", file: "test.toml")
    #expect(set.input.maxEdgeExclusion == 0.25)
    let none = try ConfigLoader.parseDaemon(text: Fixture.input + "max_edge_exclusion = 0\n", file: "test.toml")
    #expect(none.input.maxEdgeExclusion == 0, "0: no region may touch an edge")
    let rendered = ConfigRenderer.render(set)
    #expect(rendered.contains("max_edge_exclusion = 0.25"), "\(rendered)")
    #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == set, "\(rendered)")
    for text in ["max_edge_exclusion = 1.5\n", "max_edge_exclusion = -0.1\n", "max_edge_exclusion = \"half\"\n"] {
        do {
            _ = try ConfigLoader.parseDaemon(text: Fixture.input + text, file: "test.toml")
            Issue.record("expected an error for \(text)")
        } catch let error as ConfigError {
            #expect(error.line == 6, "\(error)")
            #expect("\(error)".contains("max_edge_exclusion"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

@Test func theMinimumReportRate() throws {
    let plain = try ConfigLoader.parseDaemon(text: Fixture.input, file: "test.toml")
    #expect(plain.input.minReportRate == 50, "the default")
    let set = try ConfigLoader.parseDaemon(text: Fixture.input + "min_report_rate = 30\n", file: "test.toml")
    #expect(set.input.minReportRate == 30)
    let rendered = ConfigRenderer.render(set)
    #expect(rendered.contains("min_report_rate = 30"), "\(rendered)")
    #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == set, "\(rendered)")
    for text in ["min_report_rate = 0\n", "min_report_rate = 2000\n", "min_report_rate = \"fast\"\n"] {
        do {
            _ = try ConfigLoader.parseDaemon(text: Fixture.input + text, file: "test.toml")
            Issue.record("expected an error for \(text)")
        } catch let error as ConfigError {
            #expect(error.line == 6, "\(error)")
            #expect("\(error)".contains("min_report_rate"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
