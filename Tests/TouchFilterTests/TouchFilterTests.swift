import Testing
@testable import TouchFilter

@Suite struct TouchFilterPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
