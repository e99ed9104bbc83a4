import Testing
import ReplayPlot

@Suite("Robustness: odd numbers, many samples, crowds of markers")
struct RobustnessTests {
    /// Attributes that hold numbers or lists of them.
    static let numeric: Set<String> = ["x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height", "points", "d"]

    /// Every number in a coordinate attribute is finite and within the document.
    func expectCoordinatesInside(_ document: XMLDocument, sourceLocation: SourceLocation = #_sourceLocation) {
        let height = document.root.number("height") ?? 0
        for node in document.nodes {
            for (name, value) in node.attributes where RobustnessTests.numeric.contains(name) {
                let lowered = value.lowercased()
                #expect(!lowered.contains("nan") && !lowered.contains("inf"), "\(name)=\(value)", sourceLocation: sourceLocation)
                let numbers = value.split(whereSeparator: { " ,MLZ".contains($0) }).map { Double($0) }
                #expect(numbers.allSatisfy { $0 != nil && $0!.isFinite }, "\(name)=\(value)", sourceLocation: sourceLocation)
                #expect(numbers.allSatisfy { ($0 ?? 0) >= -1 && ($0 ?? 0) <= max(height, 900) + 1 },
                        "\(name)=\(value)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func notANumberAndInfinitiesAreSkipped() throws {
        let samples = [
            PlotSample(time: .nan, progress: 0.5, velocity: 1),
            PlotSample(time: 0.1, progress: .nan, velocity: .nan),
            PlotSample(time: 0.2, progress: 0.3, velocity: .infinity),
            PlotSample(time: .infinity, progress: 0.4, velocity: 0),
            PlotSample(time: 0.3, progress: -.infinity, velocity: -.infinity, phase: .animating),
            PlotSample(time: 0.4, progress: 0.6, velocity: 0.5),
        ]
        let transition = PlotTransition(
            name: "odd", finishThreshold: .nan, flickVelocity: .nan, samples: samples,
            releases: [PlotRelease(time: .nan, progress: 0.2, velocity: 1, decision: "finish", decidedBy: "threshold"),
                       PlotRelease(time: 0.35, progress: .nan, velocity: .nan, decision: "cancel", reason: "command")],
            rejections: [PlotMarker(time: -.infinity, text: "lost"), PlotMarker(time: 0.25, text: "fine")])
        let svg = PlotDocument.svg([transition], title: "odd")
        let document = try XMLDocument(svg)
        expectCoordinatesInside(document)
        let layout = try #require(PlotDocument.layout([transition]).first)
        #expect(layout.timeRange.lowerBound <= 0.1 && layout.timeRange.upperBound >= 0.4)
        #expect(layout.velocityLimit.isFinite && layout.velocityLimit > 0)
        #expect(document.elements(class: "threshold").isEmpty)
        #expect(document.elements(class: "flick-band").isEmpty)
        #expect(document.elements(class: "release").isEmpty)
        #expect(document.elements(class: "release-guide").count == 1)
        #expect(document.elements(class: "rejection").count == 1)
        // What is left of the progress: one sample before the command's cancel, one after (dots).
        #expect(document.elements(class: "progress-interacting").map(\.name) == ["circle", "circle"])
        #expect(document.elements(class: "velocity").flatMap(points).count == 0)
    }

    @Test func hugeAndTinyNumbersDoNotTrap() throws {
        let transitions = [
            PlotTransition(name: "far", finishThreshold: 1e300, flickVelocity: 1e308, samples: [
                PlotSample(time: -1e308, progress: 1e10, velocity: -1e308),
                PlotSample(time: 1e308, progress: -1e10, velocity: .greatestFiniteMagnitude),
            ], releases: [PlotRelease(time: 1e308, progress: 0, velocity: 1e308, decision: "finish", decidedBy: "flick")]),
            PlotTransition(name: "late", samples: [
                PlotSample(time: 1e17, progress: 0.2), PlotSample(time: 1e17 + 16, progress: 0.4),
            ]),
            PlotTransition(name: "tiny", flickVelocity: 1e-300, samples: [
                PlotSample(time: 1e-300, progress: 0.2, velocity: 1e-300), PlotSample(time: 2e-300, progress: 0.4),
            ]),
        ]
        let document = try XMLDocument(PlotDocument.svg(transitions, title: "far"))
        expectCoordinatesInside(document)
        #expect(document.elements(class: "panel").count == 3)
        let far = try #require(PlotDocument.layout(transitions).first)
        #expect(far.y(velocity: 0) == (far.velocityTop + far.velocityBottom) / 2)
        #expect(far.x(time: 0) == (far.plotLeft + far.plotRight) / 2)
        for layout in PlotDocument.layout(transitions) {
            #expect(layout.timeRange.lowerBound.isFinite && layout.timeRange.upperBound.isFinite)
            #expect(layout.velocityLimit.isFinite && layout.velocityLimit > 0)
            #expect(!layout.timeTicks.isEmpty)
        }
    }

    @Test func aHundredThousandSamplesMakeASmallFile() throws {
        let transition = Fixtures.many(100_000)
        let svg = PlotDocument.svg([transition], title: "many")
        #expect(svg.utf8.count < 300_000, "\(svg.utf8.count) bytes")
        let document = try XMLDocument(svg)
        expectCoordinatesInside(document)
        let layout = try #require(PlotDocument.layout([transition]).first)
        // Thinning keeps the extremes: the spike to 1 and the dip to 0 are drawn.
        let drawn = document.elements(class: "progress-interacting").flatMap(points)
            + document.elements(class: "progress-animating").flatMap(points)
        #expect(drawn.contains { near($0.y, layout.plotTop) })
        #expect(drawn.contains { near($0.y, layout.plotBottom) })
        #expect(drawn.count < 20_000)
        // The lines still start and end at the first and last sample.
        let first = try #require(document.elements(class: "progress-interacting").first.map(points)?.first)
        #expect(near(first.x, layout.x(time: 0)))
        let last = try #require(document.elements(class: "progress-animating").last.map(points)?.last)
        #expect(near(last.x, layout.x(time: 99.999)))
    }

    @Test func crowdsOfMarkersKeepTheirTooltipsAndEveryMarkHasItsWords() throws {
        var transition = Fixtures.back
        transition.rejections = (0..<60).map { PlotMarker(time: 0.1 + Double($0) * 0.025, text: "rejected number \($0)") }
        transition.releases = (0..<40).map {
            PlotRelease(time: 0.1 + Double($0) * 0.04, progress: 0.5, velocity: 0, decision: $0 % 2 == 0 ? "finish" : "cancel",
                        decidedBy: "threshold")
        }
        let document = try XMLDocument(PlotDocument.svg([transition], title: "crowd"))
        // Markers about 10 px apart share ✕s 16 px or more apart, each with its tooltip.
        let crosses = document.elements(class: "rejection")
        #expect(crosses.count > 20 && crosses.count < 60)
        let tooltips = crosses.compactMap { cross in
            document.nodes.first { $0.name == "title" && $0.parent.map { document.nodes[$0].attributes["d"] } == cross.attributes["d"] }
        }
        #expect(tooltips.count == crosses.count)
        #expect(tooltips.map { $0.text.split(separator: "\n").count }.reduce(0, +) == 60)
        // Every ✕ has its number, and its line in the list under the panel.
        let labels = document.elements(class: "rejection-label")
        #expect(labels.count == crosses.count)
        let numbers = document.elements(class: "rejection-number").map(\.text)
        let expected: [String] = (1...crosses.count).map { String($0) }
        #expect(numbers == expected + expected)
        #expect(labels.allSatisfy { $0.text.contains("rejected number") })
        #expect(document.elements(class: "release").count == 40)
        let releaseLabels = document.elements(class: "release-label")
        #expect(releaseLabels.count >= 1 && releaseLabels.count <= 12)
        #expect(document.elements(class: "heading").first?.text == "back — 40 releases: 20 finish, 20 cancel · 60 rejected")
    }

    @Test func rejectionsAtTheSameMomentShareOneMarker() throws {
        var transition = Fixtures.back
        transition.rejections = (0..<500).map { PlotMarker(time: 1.1, text: "same \($0)") }
        let document = try XMLDocument(PlotDocument.svg([transition], title: "same"))
        #expect(document.elements(class: "rejection").count == 1)
        let tooltip = document.nodes.first { $0.name == "title" && $0.text.hasPrefix("rejected at 1.1 s: same 0") }
        #expect(tooltip?.text.hasSuffix("and 495 more") == true)
        #expect(document.elements(class: "rejection-label").map(\.text) == ["1.1 s: same 0, and 499 more"])
    }
}
