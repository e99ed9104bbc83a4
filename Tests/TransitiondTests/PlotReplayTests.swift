import Foundation
import Testing
import TestSupport

/// `replay --plot` through the real binary: every project recording's plot
/// renders with librsvg (`rsvg-convert`) without a warning, and the release
/// marker and the threshold line are drawn where the stream says.
@Suite("replay --plot")
struct PlotReplayTests {
    static let recordings = ["back-drag-cancel", "back-drag-finish", "back-flick-back-cancel", "back-flick-finish",
                             "forward-edge-right-spring", "pinch-in-2-fingers", "swipe-up-3-fingers"]

    static var rsvg: String? {
        ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func plot(_ name: String) throws -> String {
        let result = try runTransitiond(["replay", "--plot", "-", "--config", ProjectPaths.file("config/example.toml"),
                                         ProjectPaths.file("Recordings/\(name).events")])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutText
    }

    @Test(.enabled(if: PlotReplayTests.rsvg != nil, "rsvg-convert (librsvg2-bin) is not installed"),
          arguments: PlotReplayTests.recordings)
    func rendersWithoutWarnings(_ name: String) throws {
        let png = try render(try plot(name), named: name)
        let size = (try? FileManager.default.attributesOfItem(atPath: png)[.size] as? Int) ?? 0
        #expect(size > 10_000, "a PNG of \(size) bytes")
    }

    /// The first `<TAG ... class="CLASS" ...>` element's attributes.
    func element(_ svg: String, _ tag: String, class name: String) -> [String: Double]? {
        for piece in svg.components(separatedBy: "<\(tag) ").dropFirst() {
            let head = piece.prefix { $0 != ">" }
            guard head.contains("class=\"\(name)\"") else { continue }
            var values: [String: Double] = [:]
            for key in ["x1", "y1", "x2", "y2", "cx", "cy", "x", "y", "width", "height"] {
                if let range = head.range(of: " \(key)=\"") {
                    let rest = head[range.upperBound...]
                    values[key] = Double(rest.prefix { $0 != "\"" })
                }
            }
            return values
        }
        return nil
    }

    /// The time axis's ticks: (x, seconds) of each `<text class="time-tick">`.
    func timeTicks(_ svg: String) -> [(Double, Double)] {
        svg.components(separatedBy: "<text ").dropFirst().compactMap { piece in
            let head = piece.prefix { $0 != ">" }
            guard head.contains("class=\"time-tick\""), let r = head.range(of: " x=\"") else { return nil }
            let x = Double(head[r.upperBound...].prefix { $0 != "\"" })
            let label = piece.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }
            guard let x, let t = Double(label) else { return nil }
            return (x, t)
        }
    }

    /// The texts of every `<text class="CLASS">`, unescaped enough for the plot's words.
    func texts(_ svg: String, class name: String) -> [String] {
        svg.components(separatedBy: "<text ").dropFirst().compactMap { piece in
            let head = piece.prefix { $0 != ">" }
            guard head.contains("class=\"\(name)\"") else { return nil }
            return String(piece.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" })
                .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// Renders `svg` to a PNG with librsvg, expecting no error and no
    /// warning (`RSVG_LOG`: librsvg says what it could not render); the
    /// PNG's path.
    @discardableResult
    func render(_ svg: String, named name: String) throws -> String {
        let path = try temporaryFile("\(name).svg", svg)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PlotReplayTests.rsvg!)
        process.arguments = [path, "-o", path + ".png"]
        var environment = ProcessInfo.processInfo.environment
        environment["RSVG_LOG"] = "1"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(stderr.isEmpty, "\(stderr)")
        return path + ".png"
    }

    @Test func theFlickBandIsInTheVelocityStripNotOnTheThreshold() throws {
        let svg = try plot("back-flick-back-cancel")
        let band = try #require(element(svg, "rect", class: "flick-band"))
        let strip = try #require(element(svg, "rect", class: "velocity-area"))
        let area = try #require(element(svg, "rect", class: "plot-area"))
        let threshold = try #require(element(svg, "line", class: "threshold"))
        let top = band["y"]!, bottom = band["y"]! + band["height"]!
        #expect(top >= strip["y"]! - 0.01 && bottom <= strip["y"]! + strip["height"]! + 0.01)
        #expect(top > area["y"]! + area["height"]!, "the band lies below the progress plot")
        #expect(abs((top + bottom) / 2 - threshold["y1"]!) > 50, "the band is not centred on the threshold")
        #expect(texts(svg, class: "flick-label").first?.hasPrefix("flick band ±1.0/s") == true)
    }

    @Test func everyRejectionMarkHasItsWords() throws {
        // back passes over the swipe's touch-downs, then drags: a panel with rejections.
        let result = try runTransitiond(["replay", "--plot", "-", "--config", ProjectPaths.file("config/example.toml"),
                                         ProjectPaths.file("Recordings/swipe-up-3-fingers.events"),
                                         ProjectPaths.file("Recordings/back-drag-finish.events")])
        #expect(result.status == 0, "\(result.stderr)")
        let svg = result.stdoutText
        let crosses = svg.components(separatedBy: "class=\"rejection\"").count - 1
        let labels = texts(svg, class: "rejection-label")
        #expect(crosses > 0)
        #expect(labels.count == crosses)
        #expect(labels.contains { $0.contains("outside the left edge margin 0.05") })
        #expect(labels.allSatisfy { !$0.hasSuffix("…") || $0.dropLast().last?.isLetter == true })
    }

    @Test func aPlotWhereNothingBeganSaysWhyInTheWordsOfExplain() throws {
        let config = try temporaryFile("nothing-began.toml", """
            [[transition]]
            name = "back"
            gesture = "edge-pan"
            edge = "left"
            edge_margin = 0.01

            [[transition]]
            name = "zoom"
            gesture = "pinch"
            direction = "in"
            """)
        let recording = ProjectPaths.file("Recordings/back-drag-finish.events")
        let result = try runTransitiond(["replay", "--plot", "-", "--config", config, recording])
        #expect(result.status == 0, "\(result.stderr)")
        let svg = result.stdoutText
        #expect(texts(svg, class: "nothing") == ["nothing happened"])
        let why = texts(svg, class: "nothing-why")
        #expect(why == ["no transition began: 1 touch-down",
                        "back: the touch-down was not within the left edge margin 0.01 (nearest at x = 0.02)",
                        "zoom: pinch 'zoom' takes 2 fingers; at most 1 was down"])
        // --explain ends with the same words.
        let explained = try runTransitiond(["replay", "--fast", "--explain", "--config", config, recording])
        let tail = explained.lines.suffix(why.count).map { $0.drop { $0 != " " }.trimmingCharacters(in: .whitespaces) }
        #expect(tail == why, "\(explained.lines)")
        if PlotReplayTests.rsvg != nil { try render(svg, named: "nothing-began") }
    }

    @Test func theReleaseAndTheThresholdAreWhereTheStreamSays() throws {
        let svg = try plot("back-drag-finish")
        // The stream: back ended at 1.30517 s with progress 0.659829 (Tests/Golden).
        let golden = try String(contentsOfFile: ProjectPaths.file("Tests/Golden/back-drag-finish.example.ndjson"), encoding: .utf8)
        let ended = try #require(golden.split(separator: "\n").first { $0.contains("\"type\":\"ended\"") })
        func field(_ name: String) -> Double? {
            guard let r = ended.range(of: "\"\(name)\":") else { return nil }
            return Double(ended[r.upperBound...].prefix { "0123456789.-e".contains($0) })
        }
        let time = try #require(field("time")), progress = try #require(field("progress"))
        let release = try #require(element(svg, "circle", class: "release"))
        let threshold = try #require(element(svg, "line", class: "threshold"))
        // The plot area's bottom is progress 0, its top progress 1.
        let frame = try #require(element(svg, "rect", class: "plot-area"))
        let bottom = frame["y"]! + frame["height"]!, height = frame["height"]!
        #expect(abs(threshold["y1"]! - (bottom - 0.5 * height)) < 0.6, "threshold at y \(threshold["y1"]!)")
        #expect(abs(release["cy"]! - (bottom - progress * height)) < 0.6, "release at y \(release["cy"]!)")
        // In time: the time axis's tick labels give its scale.
        let ticks = timeTicks(svg)
        try #require(ticks.count >= 2, "time ticks: \(ticks)")
        let (x0, t0) = ticks.first!, (x1, t1) = ticks.last!
        let expected = x0 + (time - t0) * (x1 - x0) / (t1 - t0)
        #expect(abs(release["cx"]! - expected) < 0.6, "release at x \(release["cx"]!), expected \(expected)")
    }
}
