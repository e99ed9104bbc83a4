import Testing
@testable import ReplayPlot

@Suite("Internals: numbers, ticks, escaping, thinning, wording")
struct InternalsTests {
    @Test func fixedDecimals() {
        #expect(NumberFormatting.fixed(0.5, decimals: 2) == "0.50")
        #expect(NumberFormatting.fixed(1234.5678, decimals: 2) == "1234.57")
        #expect(NumberFormatting.fixed(-0.001, decimals: 2) == "0.00")
        #expect(NumberFormatting.fixed(-2.5, decimals: 0) == "-3")
        #expect(NumberFormatting.fixed(.nan, decimals: 2) == "0")
        #expect(NumberFormatting.fixed(.infinity, decimals: 2) == "0")
        #expect(NumberFormatting.fixed(1e20, decimals: 2) == "1e+20")
        #expect(NumberFormatting.fixed(-.greatestFiniteMagnitude, decimals: 0) == "-1.8e+308")
        #expect(NumberFormatting.scientific(9.999e16) == "1e+17")
        #expect(NumberFormatting.scientific(2.5e-300) == "2.5e-300")
        #expect(NumberFormatting.label(-1.5e300) == "−1.5e+300")
        #expect(NumberFormatting.coordinate(64) == "64")
        #expect(NumberFormatting.coordinate(64.5) == "64.5")
        #expect(NumberFormatting.coordinate(64.256) == "64.26")
        #expect(NumberFormatting.coordinate(-0.004) == "0")
        #expect(NumberFormatting.label(-1.5, maxDecimals: 1, minDecimals: 1) == "−1.5")
        #expect(NumberFormatting.label(0.5, maxDecimals: 3, minDecimals: 1) == "0.5")
        #expect(NumberFormatting.label(1, maxDecimals: 3, minDecimals: 1) == "1.0")
        #expect(NumberFormatting.label(0.75, maxDecimals: 2) == "0.75")
        #expect(NumberFormatting.label(2, maxDecimals: 2) == "2")
    }

    @Test func wholeNumbersWithoutTheMathLibrary() {
        #expect(WholeNumbers.down(-1.5) == -2 && WholeNumbers.up(-1.5) == -1)
        #expect(WholeNumbers.down(2) == 2 && WholeNumbers.up(2) == 2)
        #expect(WholeNumbers.nearest(2.5) == 3 && WholeNumbers.nearest(-2.5) == -3 && WholeNumbers.nearest(2.49) == 2)
        #expect(WholeNumbers.nearest(1e300) == 1e300)
        #expect(WholeNumbers.up(.nan).isNaN)
    }

    @Test func niceSteps() throws {
        let cases: [(Double, Double, Int)] = [(0.125, 0.2, 1), (0.3, 0.5, 1), (2.2, 2.5, 1), (7, 10, 0), (0.0125, 0.02, 2),
                                               (1, 1, 0), (0.21, 0.25, 2), (4000, 5000, 0), (0.0006, 0.001, 3)]
        for (minimum, step, decimals) in cases {
            let nice = try #require(NiceStep(atLeast: minimum))
            #expect(abs(nice.value - step) < step * 1e-12, "\(minimum) → \(nice.value)")
            #expect(nice.decimals == decimals, "\(minimum)")
        }
        #expect(NiceStep(atLeast: 0) == nil && NiceStep(atLeast: .nan) == nil && NiceStep(atLeast: .infinity) == nil)
        let quarter = try #require(NiceStep(atLeast: 0.21))
        #expect(quarter.ticks(from: 0.1, to: 1.1) == [0.25, 0.5, 0.75, 1])
        #expect(quarter.ticks(from: 1e300, to: 1e301) == nil)
    }

    @Test func escaping() {
        #expect(XMLEscaping.escaped("a&b<c>\"d'") == "a&amp;b&lt;c&gt;&quot;d&apos;")
        #expect(XMLEscaping.escaped("plain — ±1.0/s") == "plain — ±1.0/s")
        #expect(XMLEscaping.escaped("bell\u{7}tab\t") == "bell\u{FFFD}tab\t")
        #expect(DisplayText.truncated("abcdef", to: 4) == "abc…")
        #expect(DisplayText.truncated("abc", to: 4) == "abc")
    }

    @Test func thinningKeepsExtremesAndJoins() {
        let crowded = (0..<1_000).map { PlotPoint(x: 10 + Double($0) * 0.0001, y: Double(($0 * 37 + 50) % 101)) }
        let thinned = PointThinning.thinned(crowded)
        #expect(thinned.count == 4)
        #expect(thinned.first == crowded.first && thinned.last == crowded.last)
        #expect(thinned.contains { $0.y == 0 } && thinned.contains { $0.y == 100 })
        let spread = (0..<100).map { PlotPoint(x: Double($0), y: 0) }
        #expect(PointThinning.thinned(spread) == spread)
    }

    @Test func wording() {
        #expect(PanelWording.releaseLabel(Fixtures.finishByThreshold) == "finish (threshold)")
        #expect(PanelWording.releaseLabel(Fixtures.cancelByFlick) == "cancel (flick)")
        #expect(PanelWording.releaseLabel(Fixtures.deviceLost) == "cancel (device-lost)")
        let command = PlotRelease(time: 1, progress: 0.7, velocity: 0, decision: "finish", reason: "command", decidedBy: "threshold")
        #expect(PanelWording.releaseLabel(command) == "finish (threshold, command)")
        #expect(PanelWording.outcomePhrase(command) == "finish by threshold (command) at 0.70")
        #expect(PanelWording.outcomePhrase(Fixtures.deviceLost) == "cancel (device-lost) at 0.40")
        #expect(PanelWording.heading(PlotTransition(name: "x", samples: [PlotSample(time: 0, progress: 0)])) == "x — no release")
    }

    @Test func labelsDoNotOverlap() {
        var placer = LabelPlacer(bounds: LabelBox(left: 0, top: 0, right: 200, bottom: 100), limit: 3)
        let spot = LabelSpot(x: 10, baseline: 50, alignment: .start)
        #expect(placer.place("first", at: [spot]) == spot)
        #expect(placer.place("second", at: [spot]) == nil)
        let below = LabelSpot(x: 10, baseline: 80, alignment: .start)
        #expect(placer.place("second", at: [spot, below]) == below)
        #expect(placer.place("outside", at: [LabelSpot(x: 190, baseline: 20, alignment: .start)]) == nil)
        #expect(placer.place("third", at: [LabelSpot(x: 190, baseline: 20, alignment: .end)]) != nil)
        #expect(placer.place("fourth", at: [LabelSpot(x: 100, baseline: 95, alignment: .start)]) == nil)
    }
}
