import Foundation
import TestSupport
import Testing

/// The project's recordings replayed with each `[input] rotation`: a
/// left-edge drag on a panel mounted at 90° is a top-edge drag on the
/// screen, with the same progress, and `hello` says which geometry is in
/// force; an edge segment that leaves out the touch recognises nothing.
@Suite struct GeometryReplayTests {
    func config(_ input: String) throws -> String {
        var text = ""
        for edge in ["left", "top", "right", "bottom"] {
            text += "[[transition]]\nname = \"from-\(edge)\"\ngesture = \"edge-pan\"\nedge = \"\(edge)\"\n\n"
        }
        return try temporaryFile("geometry-\(UInt32.random(in: 0...UInt32.max)).toml", text + "[input]\n" + input + "\n")
    }

    func ended(_ lines: [String]) -> [String] {
        lines.filter { $0.contains("\"type\":\"ended\"") }
    }

    @Test(arguments: [("rotation = 0", "left"), ("rotation = 90", "top"), ("rotation = 180", "right"),
                      ("rotation = 270", "bottom"), ("flip_x = true", "right"),
                      ("calibration = [0, -1, 1, 1, 0, 0]", "top")])
    func aLeftEdgeDragFollowsTheMounting(input: String, edge: String) throws {
        let recording = "Recordings/back-drag-finish.events"
        let plain = try runTransitiond(["replay", "--fast", "--json", "--config", try config(""), recording])
        let mounted = try runTransitiond(["replay", "--fast", "--json", "--config", try config(input), recording])
        #expect(mounted.status == 0, "\(mounted.stderr)")
        let reference = ended(plain.lines)
        let got = ended(mounted.lines)
        try #require(reference.count == 1 && got.count == 1, "\(mounted.lines.prefix(3))")
        #expect(got[0] == reference[0].replacingOccurrences(of: "\"from-left\"", with: "\"from-\(edge)\""),
                "the same release, on the \(edge) edge")
        let hello = try #require(mounted.lines.first)
        if input == "rotation = 0" {
            #expect(!hello.contains("geometry"), "no geometry field for the identity: \(hello)")
        } else {
            #expect(hello.contains("\"geometry\":{"), "\(hello)")
        }
    }

    @Test func helloSaysWhichGeometryIsInForce() throws {
        let result = try runTransitiond(["replay", "--fast", "--json", "--config",
                                         try config("rotation = 90\nflip_y = true\ncalibration = [1, 0, 0, 0, 1, 0]"),
                                         "Recordings/back-drag-finish.events"])
        let hello = try #require(result.lines.first)
        #expect(hello.hasSuffix(#","geometry":{"rotation":90,"flip_x":false,"flip_y":true,"calibration":[1,0,0,0,1,0],"calibration_from":"config"}}"#),
                "\(hello)")
    }

    @Test func anEdgeSegmentThatLeavesOutTheTouchRecognisesNothing() throws {
        // The recording's finger comes down a little above the middle of the left edge.
        func began(_ range: String) throws -> Int {
            let file = try temporaryFile("range-\(UInt32.random(in: 0...UInt32.max)).toml",
                                         "[[transition]]\nname = \"back\"\ngesture = \"edge-pan\"\nedge = \"left\"\nedge_range = \(range)\n")
            return try runTransitiond(["replay", "--fast", "--json", "--config", file, "Recordings/back-drag-finish.events"])
                .lines.filter { $0.contains("\"type\":\"began\"") }.count
        }
        #expect(try began("[0, 1]") == 1)
        #expect(try began("[0.0, 0.6]") == 1)
        #expect(try began("[0.6, 1.0]") == 0)
    }
}

/// `_mm` lengths in a replay: the project's panel gives 16 units per mm on
/// both axes, so millimetres that equal the default screen units give the
/// same transitions; a panel without resolution is an error naming the file.
@Suite struct MillimetreReplayTests {
    @Test func millimetresOnAPanelWithResolution() throws {
        // 4095 / 16 mm wide: 0.05 of it is 12.796875 mm, 0.02 is 5.11875 mm.
        let mm = try temporaryFile("mm-\(UInt32.random(in: 0...UInt32.max)).toml",
                                   "[[transition]]\nname = \"back\"\ngesture = \"edge-pan\"\nedge = \"left\"\nedge_margin_mm = 12.796875\nactivation_mm = 5.11875\ndistance_mm = 255.9375\n")
        let plain = try temporaryFile("plain-\(UInt32.random(in: 0...UInt32.max)).toml",
                                      "[[transition]]\nname = \"back\"\ngesture = \"edge-pan\"\nedge = \"left\"\n")
        let a = try runTransitiond(["replay", "--fast", "--json", "--config", mm, "Recordings/back-drag-finish.events"])
        let b = try runTransitiond(["replay", "--fast", "--json", "--config", plain, "Recordings/back-drag-finish.events"])
        #expect(a.status == 0, "\(a.stderr)")
        #expect(a.lines == b.lines)
    }

    /// The project's own recording with its axes' resolution removed (the
    /// last number of each `A:` line), as many real panels report them, so
    /// the test needs nothing beside the checkout.
    @Test func aPanelWithoutResolutionIsAnErrorNamingTheRecording() throws {
        let original = try String(contentsOfFile: ProjectPaths.file("Recordings/back-drag-finish.events"), encoding: .utf8)
        let withoutResolution = original.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("A: ") else { return String(line) }
            var fields = line.split(separator: " ").map(String.init)
            fields[fields.count - 1] = "0"
            return fields.joined(separator: " ")
        }.joined(separator: "\n")
        #expect(withoutResolution != original)
        let tag = UInt32.random(in: 0...UInt32.max)
        let events = try temporaryFile("no-resolution-\(tag).events", withoutResolution)
        let mm = try temporaryFile("mm-\(tag).toml",
                                   "[[transition]]\nname = \"back\"\ngesture = \"edge-pan\"\nedge = \"left\"\nedge_margin_mm = 8\n")
        let result = try runTransitiond(["replay", "--fast", "--json", "--config", mm, events])
        #expect(result.status == 65)
        #expect(result.stderr.contains("no-resolution-\(tag).events: transition 'back' gives edge_margin_mm"), "\(result.stderr)")
        #expect(result.stderr.contains("no resolution"))
    }
}
