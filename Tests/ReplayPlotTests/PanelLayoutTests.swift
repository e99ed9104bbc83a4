import Testing
import ReplayPlot

@Suite("Panel layout: where values are drawn")
struct PanelLayoutTests {
    let transitions = Fixtures.all
    var layouts: [PanelLayout] { PlotDocument.layout(transitions) }

    @Test func onePanelPerTransitionWithSamplesStackedInOrder() throws {
        let layouts = self.layouts
        #expect(layouts.map(\.name) == ["back", "home"])
        #expect(layouts.map(\.transitionIndex) == [0, 2])
        let first = try #require(layouts.first), second = try #require(layouts.last)
        #expect(first.panelTop == 40)
        #expect(second.panelTop == first.panelTop + first.panelHeight)
        #expect(first.plotTop > first.panelTop && first.plotBottom < first.panelTop + first.panelHeight)
        #expect(first.plotLeft > 0 && first.plotRight < 900 && first.plotLeft < first.plotRight)
    }

    @Test func timeMapsMonotonicallyInsideThePlotArea() throws {
        let layout = try #require(layouts.first)
        let range = layout.timeRange
        let times = Fixtures.back.samples.map(\.time) + Fixtures.back.releases.map(\.time) + Fixtures.back.rejections.map(\.time)
        #expect(times.allSatisfy { range.contains($0) })
        #expect(layout.x(time: range.lowerBound) == layout.plotLeft)
        #expect(layout.x(time: range.upperBound) == layout.plotRight)
        var previous = -Double.infinity
        for step in 0...500 {
            let x = layout.x(time: range.lowerBound + (range.upperBound - range.lowerBound) * Double(step) / 500)
            #expect(x > previous)
            #expect(x >= layout.plotLeft && x <= layout.plotRight)
            previous = x
        }
        // Beyond the range and not a number: still inside, still monotonic.
        #expect(layout.x(time: range.lowerBound - 10) == layout.plotLeft)
        #expect(layout.x(time: range.upperBound + 10) == layout.plotRight)
        #expect(layout.x(time: .nan) == layout.plotLeft)
    }

    @Test func progressAndVelocityAxes() throws {
        let layout = try #require(layouts.first)
        #expect(layout.y(progress: 0) == layout.plotBottom)
        #expect(layout.y(progress: 1) == layout.plotTop)
        #expect(layout.y(progress: 0.5) == (layout.plotTop + layout.plotBottom) / 2)
        #expect(layout.y(progress: -0.3) == layout.plotBottom)
        #expect(layout.y(progress: 1.4) == layout.plotTop)
        // Velocity has a strip of its own, below the plot area.
        #expect(layout.velocityTop > layout.plotBottom && layout.velocityBottom > layout.velocityTop)
        #expect(layout.velocityBottom < layout.panelTop + layout.panelHeight)
        #expect(layout.y(velocity: 0) == (layout.velocityTop + layout.velocityBottom) / 2)
        #expect(layout.y(velocity: layout.velocityLimit) == layout.velocityTop)
        #expect(layout.y(velocity: -layout.velocityLimit) == layout.velocityBottom)
        #expect(layout.y(velocity: 1) < layout.y(velocity: -1))
        // The velocity axis holds the data (|v| ≤ 2.4) and the flick velocity.
        #expect(layout.velocityLimit >= 2.4)
        #expect(layout.progressTicks == [0, 0.25, 0.5, 0.75, 1])
    }

    @Test func ticksAreNice() throws {
        for layout in layouts {
            for (ticks, range) in [(layout.timeTicks, layout.timeRange),
                                   (layout.velocityTicks, -layout.velocityLimit...layout.velocityLimit)] {
                #expect(ticks.count >= 3 && ticks.count <= 12)
                #expect(ticks.allSatisfy { range.contains($0) })
                let step = ticks[1] - ticks[0]
                var mantissa = step
                while mantissa >= 10 { mantissa /= 10 }
                while mantissa < 1 { mantissa *= 10 }
                #expect([1, 2, 2.5, 5].contains { abs($0 - mantissa) < 1e-9 }, "step \(step)")
                for (a, b) in zip(ticks, ticks.dropFirst()) { #expect(abs((b - a) - step) < 1e-9) }
            }
            #expect(layout.velocityTicks.contains(0))
            #expect(layout.velocityTicks.first == -layout.velocityLimit && layout.velocityTicks.last == layout.velocityLimit)
        }
        let labels = try XMLDocument(PlotDocument.svg(transitions, title: "t")).elements(class: "velocity-tick", inside: "panel-0")
        #expect(labels.map(\.text) == ["−4", "−2", "0", "2", "4"])
    }

    @Test func thresholdLineIsWhereTheLayoutPutsTheThreshold() throws {
        let document = try XMLDocument(PlotDocument.svg(transitions, title: "t"))
        for (number, layout) in layouts.enumerated() {
            let threshold = transitions[layout.transitionIndex].finishThreshold
            let lines = document.elements(class: "threshold", inside: "panel-\(number)")
            #expect(lines.count == 1)
            let line = try #require(lines.first)
            #expect(line.name == "line")
            #expect(near(line.number("y1"), layout.y(progress: threshold)))
            #expect(near(line.number("y2"), layout.y(progress: threshold)))
            #expect(near(line.number("x1"), layout.plotLeft))
            #expect(near(line.number("x2"), layout.plotRight))
        }
    }

    @Test func releaseMarkersSitAtTheirTimeAndProgress() throws {
        let document = try XMLDocument(PlotDocument.svg(transitions, title: "t"))
        for (number, layout) in layouts.enumerated() {
            let releases = transitions[layout.transitionIndex].releases
            let markers = document.elements(class: "release", inside: "panel-\(number)")
            #expect(markers.count == releases.count)
            for (marker, release) in zip(markers, releases) {
                #expect(marker.name == "circle")
                #expect(near(marker.number("cx"), layout.x(time: release.time)))
                #expect(near(marker.number("cy"), layout.y(progress: release.progress)))
            }
            let guides = document.elements(class: "release-guide", inside: "panel-\(number)")
            #expect(zip(guides, releases).allSatisfy { near($0.number("x1"), layout.x(time: $1.time)) })
        }
    }

    @Test func flickBandSpansPlusAndMinusTheFlickVelocity() throws {
        let document = try XMLDocument(PlotDocument.svg(transitions, title: "t"))
        for (number, layout) in layouts.enumerated() {
            let flick = transitions[layout.transitionIndex].flickVelocity
            let band = try #require(document.elements(class: "flick-band", inside: "panel-\(number)").first)
            let top = try #require(band.number("y")), height = try #require(band.number("height"))
            #expect(near(top, layout.y(velocity: flick)))
            #expect(near(top + height, layout.y(velocity: -flick), within: 0.012))
        }
    }

    @Test func progressLineFollowsTheSamplesByPhase() throws {
        let document = try XMLDocument(PlotDocument.svg([Fixtures.back], title: "t"))
        let layout = try #require(PlotDocument.layout([Fixtures.back]).first)
        let dragging = document.elements(class: "progress-interacting")
        let animating = document.elements(class: "progress-animating")
        // Two interactions, each followed by its completion.
        #expect(dragging.count == 2 && animating.count == 2)
        let first = try #require(dragging.first.map(points)?.first)
        let sample = Fixtures.back.samples[0]
        #expect(near(first.x, layout.x(time: sample.time)) && near(first.y, layout.y(progress: sample.progress)))
        #expect(animating.allSatisfy { $0.attributes["stroke-dasharray"] != nil })
        #expect(dragging.allSatisfy { $0.attributes["stroke-dasharray"] == nil })
        // The completion continues from the last dragging sample.
        #expect(near(points(animating[0]).first?.y, layout.y(progress: 0.66)))
        // A dot per animation frame (they are more than 3 px apart here).
        let frames = document.nodes.filter { node in
            node.name == "circle" && document.parent(of: node)?.classes.contains("animation-frames") == true
        }
        #expect(frames.count == 17)
        // Velocity: one line per interaction, in the velocity strip.
        let velocity = document.elements(class: "velocity")
        #expect(velocity.count == 2)
        #expect(near(points(velocity[0]).first?.y, layout.y(velocity: sample.velocity)))
    }

    @Test func outOfRangeProgressIsClampedToTheAxis() throws {
        let samples = [PlotSample(time: 0, progress: -0.4), PlotSample(time: 0.1, progress: 0.5),
                       PlotSample(time: 0.2, progress: 1.3, velocity: 0, phase: .animating)]
        let transition = PlotTransition(name: "spring", samples: samples,
                                        releases: [PlotRelease(time: 0.15, progress: 1.2, velocity: 0, decision: "finish", decidedBy: "threshold")])
        let layout = try #require(PlotDocument.layout([transition]).first)
        let document = try XMLDocument(PlotDocument.svg([transition], title: "t"))
        let drawn = document.elements(class: "progress-interacting").flatMap(points)
            + document.elements(class: "progress-animating").flatMap(points)
        #expect(drawn.count == 4)
        #expect(drawn.allSatisfy { $0.y >= layout.plotTop && $0.y <= layout.plotBottom })
        #expect(drawn.contains { near($0.y, layout.plotBottom) } && drawn.contains { near($0.y, layout.plotTop) })
        let marker = try #require(document.elements(class: "release").first)
        #expect(near(marker.number("cy"), layout.plotTop))
    }

    @Test func aSingleSampleOrEqualTimesGetAOneSecondAxis() throws {
        let single = PlotTransition(name: "one", samples: [PlotSample(time: 5, progress: 0.3)])
        let equal = PlotTransition(name: "same", samples: [0.1, 0.2, 0.3].map { PlotSample(time: 2, progress: $0) })
        let layouts = PlotDocument.layout([single, equal])
        #expect(layouts.map(\.timeRange) == [4.5...5.5, 1.5...2.5])
        #expect(layouts.allSatisfy { $0.timeTicks.count >= 3 })
        #expect(layouts[0].x(time: 5) == (layouts[0].plotLeft + layouts[0].plotRight) / 2)
        let document = try XMLDocument(PlotDocument.svg([single], title: "t"))
        // One sample: a dot, since a one-point line would not show.
        let dot = try #require(document.elements(class: "progress-interacting").first)
        #expect(dot.name == "circle")
        #expect(near(dot.number("cx"), layouts[0].x(time: 5)) && near(dot.number("cy"), layouts[0].y(progress: 0.3)))
    }
}
