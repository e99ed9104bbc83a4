import Testing
@testable import TransitionConfig
import TransitionEngine

// The [input] table: the device, by default "auto".

extension Fixture {
    /// Lines 1–5 (a transition, then `[input]`); the next key is on line 6.
    static let input = edgePan + "[input]\n"
}

@Test func noInputTableMeansAuto() throws {
    #expect(try ConfigLoader.parseDaemon(text: Fixture.edgePan, file: "test.toml").input == .standard)
    #expect(InputSettings.standard.device == "auto")
    #expect(try ConfigLoader.parseDaemon(text: Fixture.input, file: "test.toml").input.device == "auto")
}

@Test func theDeviceIsAutoOrAnAbsolutePath() throws {
    for device in ["auto", "/dev/input/event3", "/dev/input/by-id/usb-Kiosk_Panel-event-if00"] {
        let config = try ConfigLoader.parseDaemon(text: Fixture.input + "device = \"\(device)\"\n", file: "test.toml")
        #expect(config.input.device == device)
        // The effective config reads back to the same thing.
        let rendered = ConfigRenderer.render(config)
        #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == config, "\(rendered)")
    }
}

@Test func aBadDeviceIsNamedAtItsLine() {
    for (value, fragment) in [("\"event3\"", "must be \"auto\" or an absolute path"),
                              ("\"\"", "must be \"auto\" or an absolute path"),
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
