import Testing
@testable import TransitionConfig
import Engine

/// The same config written in each TOML style — tables and arrays of
/// tables, inline tables, dotted keys, multi-line and literal strings,
/// other number forms — reads to the same effective config.
@Suite("Config in every TOML style")
struct TOMLStylesTests {
    static let tables = """
        frame_rate = 120

        [[transition]]
        name = "back"
        gesture = "edge-pan"
        edge = "left"
        duration = 0.25

          [[transition.keyframe]]
          property = "dim"
          from = 1
          to = 0

        [[transition]]
        name = "up"
        gesture = "swipe"
        direction = "up"

        [server]
        max_clients = 16
        allow_groups = ["kiosk"]

        [input]
        rotation = 90
        flip_x = true

        [metrics]
        listen = "127.0.0.1:9464"
        """

    static let inline = """
        frame_rate = 120
        transition = [
          { name = "back", gesture = "edge-pan", edge = "left", duration = 0.25, keyframe = [{ property = "dim", from = 1, to = 0 }] },
          { name = "up", gesture = "swipe", direction = "up" },
        ]
        server = { max_clients = 16, allow_groups = ["kiosk"] }
        input = { rotation = 90, flip_x = true }
        metrics = { listen = "127.0.0.1:9464" }
        """

    static let dotted = """
        frame_rate = 1_2_0   # underscores between digits
        server.max_clients = 0x10
        server.allow_groups = [ '''kiosk''' ]
        input.rotation = 0o132
        input.flip_x = true
        metrics."listen" = \"\"\"
        127.0.0.1:\\
          9464\"\"\"

        [[transition]]
        name = 'back'
        gesture = "edge-pan"
        edge = "left"
        duration = 2.5e-1
        keyframe = [
          { property = "dim", from = 1.0, to = 0.0 },  # a comment inside the array
        ]

        [[transition]]
        name = "up"
        gesture = "swipe"
        direction = "\\u0075p"
        """

    @Test func everyStyleReadsToTheSameConfig() throws {
        let expected = try ConfigLoader.parseDaemon(text: Self.tables, file: "tables.toml")
        #expect(expected.engine.transitions.map(\.name) == ["back", "up"])
        #expect(expected.engine.transitions[0].keyframes.count == 1)
        #expect(expected.server.maxClients == 16 && expected.input.rotation == .quarter)
        for (name, text) in [("inline.toml", Self.inline), ("dotted.toml", Self.dotted)] {
            let config = try ConfigLoader.parseDaemon(text: text, file: name)
            #expect(config == expected, "\(name)")
            #expect(ConfigLoader.render(config) == ConfigLoader.render(expected), "\(name): the same effective config text")
        }
    }

    @Test func aDateWhereANumberBelongsIsASchemaErrorAtItsLine() {
        #expect(throws: ConfigError(file: "d.toml", line: 5, key: "transition[1].duration",
                                    message: "expected a number, found a date (got 1979-05-27)")) {
            try ConfigLoader.parse(text: "[[transition]]\nname = \"back\"\ngesture = \"edge-pan\"\nedge = \"left\"\nduration = 1979-05-27\n",
                                   file: "d.toml")
        }
    }

    @Test func aTableWrittenOverAnInlineOneIsAnErrorAtTheHeader() {
        do {
            _ = try ConfigLoader.parseDaemon(text: Self.inline + "\n[server]\nsocket_mode = \"0600\"\n", file: "i.toml")
            Issue.record("expected an error")
        } catch let error as ConfigError {
            #expect(error.line == 9 && error.key == "server", "\(error)")
            #expect(error.message.contains("inline table"), "\(error)")
        } catch {
            Issue.record("not a ConfigError: \(error)")
        }
    }
}

/// Messages for what people write by mistake, and what a hostile file holds.
@Suite("Config messages")
struct ConfigMessageTests {
    private func error(_ text: String) -> ConfigError? {
        do {
            _ = try ConfigLoader.parseDaemon(text: text, file: "m.toml")
            return nil
        } catch let error as ConfigError {
            return error
        } catch {
            return nil
        }
    }

    @Test func aCapitalisedBooleanSaysBooleansAreLowerCase() {
        let found = error("[[transition]]\nname = \"b\"\ngesture = \"edge-pan\"\nedge = \"left\"\nenabled = True\n")
        #expect(found?.line == 5 && found?.column == 11, "\(String(describing: found))")
        #expect(found?.message == "booleans are written in lower case: true (got True)")
    }

    @Test func transitionsWrittenWithDottedKeysSayToStartEachWithItsHeader() {
        let found = error("transition.name = \"x\"\n")
        #expect(found?.key == "transition" && found?.message.contains("start each with a [[transition]] line") == true,
                "\(String(describing: found))")
    }

    @Test func controlCharactersOfTheFileAreShownNotWritten() {
        let found = error("frame_rate = 1\u{1B}]0;title\u{7}\n")
        let text = found?.description ?? ""
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(text)")
        #expect(text.contains("U+001B"), "\(text)")
    }
}
