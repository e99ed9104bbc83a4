import Testing
@testable import ReplayPlot

/// What a reader could misread (issue 25): velocity and progress on one
/// scale, text running off the image, labels cut mid-word or missing,
/// legend entries for what is not drawn, an empty plot that does not say why.
@Suite("Readability")
struct ReadabilityTests {
    /// Whether `shown` is `original`, or its start cut between words and marked "…".
    static func cutBetweenWords(_ shown: String, of original: String) -> Bool {
        guard shown != original else { return true }
        guard shown.hasSuffix("…") else { return false }
        let kept = shown.dropLast()
        guard original.hasPrefix(kept), let next = original.dropFirst(kept.count).first else { return false }
        return !next.isLetter && !next.isNumber
    }

    @Test func theFlickBandIsOnTheVelocityScaleNotOnTheThreshold() throws {
        let document = try XMLDocument(PlotDocument.svg(Fixtures.all, title: "t"))
        for (number, layout) in PlotDocument.layout(Fixtures.all).enumerated() {
            let transition = Fixtures.all[layout.transitionIndex]
            let band = try #require(document.elements(class: "flick-band", inside: "panel-\(number)").first)
            let top = try #require(band.number("y")), bottom = top + (try #require(band.number("height")))
            // Inside the velocity strip, wholly below the plot area where progress is drawn.
            let strip = try #require(document.elements(class: "velocity-area", inside: "panel-\(number)").first)
            let stripTop = try #require(strip.number("y")), stripBottom = stripTop + (try #require(strip.number("height")))
            #expect(top >= stripTop - 0.01 && bottom <= stripBottom + 0.01)
            #expect(top > layout.plotBottom)
            // Centred on the strip's zero line, not on the threshold.
            let zero = try #require(document.elements(class: "velocity-zero", inside: "panel-\(number)").first)
            #expect(near(zero.number("y1"), (top + bottom) / 2, within: 0.02))
            #expect(abs((top + bottom) / 2 - layout.y(progress: transition.finishThreshold)) > 50)
            // The strip's own ticks, labelled, within the strip.
            let ticks = document.elements(class: "velocity-tick", inside: "panel-\(number)")
            #expect(ticks.count >= 3)
            #expect(ticks.allSatisfy { ($0.number("y") ?? 0) - 4 >= stripTop - 0.01 && ($0.number("y") ?? 0) - 4 <= stripBottom + 0.01 })
            // Its label says it is a velocity.
            let label = try #require(document.elements(class: "flick-label", inside: "panel-\(number)").first)
            #expect(label.text.contains("/s"))
        }
    }

    @Test func aLongTitleIsShortenedBetweenWordsToFitTheWidth() throws {
        let title = (1...30).map { "recording-\($0).events" }.joined(separator: ", ")
        var long = Fixtures.back
        long.name = String(repeating: "very-long-name-", count: 3) + "back"
        long.releases = [Fixtures.finishByThreshold, Fixtures.cancelByFlick, Fixtures.deviceLost]
        let document = try XMLDocument(PlotDocument.svg([long], title: title))
        let shown = try #require(document.elements(class: "title").first).text
        #expect(shown.count < title.count)
        #expect(Self.cutBetweenWords(shown, of: title), "\(shown)")
        #expect(16 + PlotStyle.width(of: shown, size: PlotStyle.titleSize, bold: true) <= 900 - 16)
        // The whole title stays in the document's <title>.
        #expect(document.nodes.first { $0.name == "title" }?.text == title)
        let heading = try #require(document.elements(class: "heading").first).text
        #expect(16 + PlotStyle.width(of: heading, size: PlotStyle.headingSize, bold: true) <= 900 - 16)
    }

    @Test func everyRejectionMarkHasALabelCutOnlyBetweenWords() throws {
        var transition = Fixtures.back
        let long = "touch-down at x = 0.31, outside the left edge margin 0.05, and then a great deal more said about it, "
            + "enough to run well past any column the list could give it on a page nine hundred pixels wide"
        // Close together (labels beside them would collide) and far apart.
        transition.rejections = [PlotMarker(time: 0.2, text: long), PlotMarker(time: 0.25, text: "perpendicular"),
                                 PlotMarker(time: 0.3, text: "lifted before the activation travel"),
                                 PlotMarker(time: 1.3, text: long), PlotMarker(time: 1.31, text: "too many fingers"),
                                 PlotMarker(time: 1.8, text: "short")]
        let document = try XMLDocument(PlotDocument.svg([transition], title: "t"))
        let crosses = document.elements(class: "rejection")
        let labels = document.elements(class: "rejection-label")
        #expect(crosses.count >= 3)
        #expect(labels.count == crosses.count)
        // Each ✕'s number appears over it and leads its line in the list.
        let numbers = document.elements(class: "rejection-number").map(\.text)
        let expected: [String] = (1...crosses.count).map { String($0) }
        #expect(numbers == expected + expected)
        let columnWidth = (884 - 16) / 2.0
        for label in labels {
            var reason = try #require(label.text.split(separator: ": ", maxSplits: 1).last.map(String.init))
            // A shared ✕ says how many more it stands for; the count is not part of the reason.
            if reason.hasSuffix(" more"), let count = reason.ranges(of: ", and ").last { reason = String(reason[..<count.lowerBound]) }
            let original = transition.rejections.map(\.text).first { Self.cutBetweenWords(reason, of: $0) }
            #expect(original != nil, "\(label.text) is cut mid-word")
            // Within its column of the list.
            let x = try #require(label.number("x"))
            let column = ((x - 16) / columnWidth).rounded(.down)
            #expect(x + PlotStyle.width(of: label.text) <= 16 + (column + 1) * columnWidth, "\(label.text)")
        }
        #expect(labels.contains { $0.text.hasSuffix("…") })
        #expect(labels.allSatisfy { !$0.text.isEmpty })
    }

    @Test func theLegendListsOnlyWhatIsDrawn() throws {
        let quiet = PlotTransition(name: "quiet", finishThreshold: 0.5, flickVelocity: 0,
                                   samples: [PlotSample(time: 0, progress: 0.1), PlotSample(time: 0.1, progress: 0.2)])
        let document = try XMLDocument(PlotDocument.svg([quiet], title: "t"))
        let texts = document.elements(inside: "panel-0").filter { $0.name == "text" }.map(\.text)
        let legend = document.elements(inside: "panel-0")
            .filter { $0.name == "text" && document.parent(of: $0)?.classes.contains("legend") == true }.map(\.text)
        #expect(legend == ["progress (finger)", "finish threshold"])
        #expect(!texts.contains { $0.contains("rejected") || $0.contains("flick") || $0.hasPrefix("release") })
        #expect(document.elements(class: "flick-band").isEmpty && document.elements(class: "rejection").isEmpty)
    }

    @Test func anEmptyPlotSaysWhyInWholeLines() throws {
        let why = ["no transition began: 3 touch-downs",
                   "back: none of the 3 touch-downs within the left edge margin 0.05 (nearest at x = 0.31); "
                   + "moved 0.04 sideways before 0.02 along (2 times); and a long tail of words so that the line must wrap"]
        let svg = PlotDocument.svg([], title: "nothing", whyEmpty: why)
        let document = try XMLDocument(svg)
        #expect(document.elements(class: "nothing").map(\.text) == ["nothing happened"])
        let lines = document.elements(class: "nothing-why").map(\.text)
        #expect(lines.count == 3)
        #expect(lines.joined(separator: " ") == why.joined(separator: " "))
        #expect(lines.allSatisfy { 16 + PlotStyle.width(of: $0, size: PlotStyle.headingSize) <= 900 - 16 })
        let height = try #require(document.root.number("height"))
        #expect(lines.indices.allSatisfy { 98 + Double($0) * 18 < height })
        // Without a reason, as before; with panels, no reason is shown.
        #expect(try XMLDocument(PlotDocument.svg([], title: "t")).elements(class: "nothing-why").isEmpty)
        #expect(try XMLDocument(PlotDocument.svg(Fixtures.all, title: "t", whyEmpty: why)).elements(class: "nothing-why").isEmpty)
    }

    @Test func shorteningAndWrappingCutBetweenWords() {
        #expect(DisplayText.shortened("outside the left edge margin", toAtMost: 20) == "outside the left…")
        #expect(DisplayText.shortened("outside the left edge margin", toAtMost: 17) == "outside the left…")
        #expect(DisplayText.shortened("outside the left edge margin", toAtMost: 16) == "outside the…")
        #expect(DisplayText.shortened("touch-down at x = 0.31, outside", toAtMost: 26) == "touch-down at x = 0.31…")
        #expect(DisplayText.shortened("short", toAtMost: 20) == "short")
        // One word longer than the room: nowhere else to cut.
        #expect(DisplayText.shortened("abcdefghij", toAtMost: 5) == "abcd…")
        #expect(DisplayText.wrapped("one two three four", toLinesOf: 9) == ["one two", "three", "four"])
        #expect(DisplayText.wrapped("abcdefghijkl mn", toLinesOf: 5) == ["abcde", "fghij", "kl mn"])
        #expect(DisplayText.wrapped("a b c d e f", toLinesOf: 2, maxLines: 3) == ["a", "b", "c…"])
    }
}
