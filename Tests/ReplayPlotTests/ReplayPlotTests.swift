import Testing
@testable import ReplayPlot

@Suite struct ReplayPlotPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
