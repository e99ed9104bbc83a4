import Testing
import ReplayPlot

@Suite("The SVG document")
struct DocumentStructureTests {
    @Test func startsWithTheSVGElementWithMatchingSize() throws {
        let svg = PlotDocument.svg(Fixtures.all, title: "replay")
        #expect(svg.hasPrefix("<svg"))
        let document = try XMLDocument(svg)
        let root = document.root
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        let width = try #require(root.attributes["width"]), height = try #require(root.attributes["height"])
        #expect(root.attributes["viewBox"] == "0 0 \(width) \(height)")
        #expect(width == "900")
        // A title line, two panels (idle has no samples; back lists its two rejections), a margin.
        let panels = 392 + (6 + 2 * 15 + 4) + 392
        #expect(height == String(40 + panels + 8))
    }

    @Test func isWellFormedAndSelfContained() throws {
        let svg = PlotDocument.svg(Fixtures.all, title: "replay")
        let document = try XMLDocument(svg)
        #expect(document.nodes.count > 50)
        for forbidden in ["<script", "foreignObject", "<style", "href", "var(--", "url("] {
            #expect(!svg.contains(forbidden), "\(forbidden)")
        }
    }

    @Test func panelsComeInOrderWithTheirHeadings() throws {
        let document = try XMLDocument(PlotDocument.svg(Fixtures.all, title: "replay"))
        #expect(document.elements(class: "panel").map { $0.attributes["id"] } == ["panel-0", "panel-1"])
        let headings = document.elements(class: "heading").map(\.text)
        #expect(headings == ["back — finish by threshold at 0.66; cancel by flick at 0.35 · 2 rejected",
                             "home — cancel (device-lost) at 0.40"])
        #expect(document.elements(class: "title").first?.text == "replay")
        #expect(document.nodes.first(where: { $0.name == "title" })?.text == "replay")
    }

    @Test func labelsSayWhatHappened() throws {
        let document = try XMLDocument(PlotDocument.svg(Fixtures.all, title: "replay"))
        #expect(document.elements(class: "release-label", inside: "panel-0").map(\.text) == ["finish (threshold)", "cancel (flick)"])
        #expect(document.elements(class: "release-label", inside: "panel-1").map(\.text) == ["cancel (device-lost)"])
        #expect(document.elements(class: "threshold-label").map(\.text) == ["finish threshold 0.5", "finish threshold 0.3"])
        #expect(document.elements(class: "flick-label").map(\.text)
                == ["flick band ±1.0/s: a release this fast decides by its direction",
                    "flick band ±2.0/s: a release this fast decides by its direction"])
        #expect(document.elements(class: "rejection-label").map(\.text) == ["1.1 s: perpendicular", "1.3 s: too many fingers"])
        func legend(_ panel: String) -> [String] {
            document.elements(inside: panel).filter { document.parent(of: $0)?.classes.contains("legend") == true }
                .filter { $0.name == "text" }.map(\.text)
        }
        #expect(legend("panel-0") == ["progress (finger)", "animation frames", "finish threshold", "release: finish, cancel", "rejected (listed below)"])
        // home has nothing rejected: its legend does not say "rejected".
        #expect(legend("panel-1") == ["progress (finger)", "animation frames", "finish threshold", "release: finish, cancel"])
    }

    @Test func textIsElevenToFifteenPixelSansSerif() throws {
        let document = try XMLDocument(PlotDocument.svg(Fixtures.all, title: "replay"))
        #expect(document.root.attributes["font-family"]?.hasSuffix("sans-serif") == true)
        for node in document.nodes {
            if let size = node.number("font-size") { #expect((11...15).contains(size)) }
        }
    }

    @Test func sameInputGivesTheSameBytes() {
        let first = PlotDocument.svg(Fixtures.all, title: "replay")
        let second = PlotDocument.svg(Fixtures.all, title: "replay")
        #expect(first == second)
        #expect(PlotDocument.svg([Fixtures.many(5_000)], title: "m") == PlotDocument.svg([Fixtures.many(5_000)], title: "m"))
    }

    @Test func escapesNamesAndTexts() throws {
        let name = "<back> & \"front\" 'side'\u{1}"
        var transition = Fixtures.back
        transition.name = name
        transition.rejections = [PlotMarker(time: 1.1, text: "q > d & <count>")]
        transition.releases[0].reason = "a \"quoted\" <reason>"
        let svg = PlotDocument.svg([transition], title: "title & <more>")
        #expect(!svg.contains("<back>"))
        #expect(!svg.contains("<count>"))
        #expect(!svg.contains("<more>"))
        #expect(!svg.contains("\u{1}"))
        let document = try XMLDocument(svg)
        #expect(document.elements(class: "heading").first?.text.hasPrefix("<back> & \"front\" 'side'\u{FFFD} — ") == true)
        #expect(document.elements(class: "title").first?.text == "title & <more>")
        #expect(document.elements(class: "rejection-label").first?.text == "1.1 s: q > d & <count>")
        let tooltips = document.nodes.filter { $0.name == "title" }.map(\.text)
        #expect(tooltips.contains { $0.contains("a \"quoted\" <reason>") })
    }

    @Test func emptyInputSaysNothingHappened() throws {
        for transitions in [[], [Fixtures.idle], [PlotTransition(name: "x", samples: [PlotSample(time: .nan, progress: 0.5)])]] {
            let svg = PlotDocument.svg(transitions, title: "nothing")
            #expect(svg.hasPrefix("<svg"))
            let document = try XMLDocument(svg)
            #expect(document.elements(class: "nothing").map(\.text) == ["nothing happened"])
            #expect(document.elements(class: "panel").isEmpty)
            #expect(document.root.attributes["viewBox"] == "0 0 900 \(document.root.attributes["height"] ?? "?")")
            #expect(PlotDocument.layout(transitions).isEmpty)
        }
    }
}
