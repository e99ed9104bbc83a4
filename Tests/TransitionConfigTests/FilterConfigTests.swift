import TestSupport
import Testing
@testable import TransitionConfig
import TouchFilter
import Engine

// The [filter] table and its [[filter.region]] tables: each key read, each
// error at its file:line and key, the render read back, regions in order.

extension Fixture {
    /// Lines 1–5 (a transition, then `[filter]`); the next key is on line 6.
    static let filter = edgePan + "[filter]\n"
    /// Lines 1–6 (a transition, `[filter]`, then a `[[filter.region]]`
    /// header on line 6); the next key is on line 7.
    static let region = filter + "[[filter.region]]\n"
    /// A region's rectangle, two lines.
    static let rectangle = "x = [0, 0.5]\ny = [0.25, 1]\n"
}

/// The rules `text` reads to, its render read back to the same configuration.
private func filterRules(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> FilterRules {
    let config = try parseDaemonValid(text, sourceLocation: sourceLocation)
    let rendered = ConfigLoader.render(config)
    #expect(try ConfigLoader.parseDaemon(text: rendered, file: "rendered.toml") == config, "\(rendered)",
            sourceLocation: sourceLocation)
    return config.filter
}

// MARK: - Defaults

@Test func noFilterTableOrAnEmptyOneChangesNothing() throws {
    #expect(DaemonConfiguration.standard.filter == .none)
    #expect(DaemonConfiguration(engine: .standard, server: .standard).filter == .none)
    #expect(try parseDaemonValid(Fixture.edgePan).filter == .none)
    #expect(try parseDaemonValid(Fixture.filter).filter == .none)
    #expect(try parseDaemonValid("[filter]\n" + Fixture.edgePan).filter == .none)
    // [filter] changes nothing of the engine's part, nor of [input].
    let given = try parseDaemonValid(Fixture.filter + "max_contacts = 1\ntransform = true\n")
    #expect(given.engine == (try parseValid(Fixture.edgePan)))
    #expect(given.input == .standard)
}

// MARK: - Each key

@Test func maxContactsIsRead() throws {
    #expect(try filterRules(Fixture.filter + "max_contacts = 1\n").maxContacts == 1)
    #expect(try filterRules(Fixture.filter + "max_contacts = 10\n").maxContacts == 10)
    #expect(try filterRules(Fixture.filter).maxContacts == nil)
}

@Test func blockIsRead() throws {
    #expect(try filterRules(Fixture.filter + "block = [\"pinch\", \"swipe-2\"]\n").block == [.pinch, .swipe2])
    let all = "block = [\"swipe-5\", \"swipe-4\", \"swipe-3\", \"swipe-2\", \"pinch\"]\n"
    #expect(try filterRules(Fixture.filter + all).block == Set(BlockedGesture.allCases))
    #expect(try filterRules(Fixture.filter + "block = []\n").block.isEmpty)
}

@Test func ghostTouchesIsRead() throws {
    #expect(try filterRules(Fixture.filter + "ghost_touches = \"quarantine\"\n").ghostTouches == .quarantine)
    #expect(try filterRules(Fixture.filter + "ghost_touches = \"off\"\n").ghostTouches == .off)
}

@Test func stuckAfterIsRead() throws {
    #expect(try filterRules(Fixture.filter + "stuck_after = 30\n").stuckAfter == 30)
    #expect(try filterRules(Fixture.filter + "stuck_after = 0.25\n").stuckAfter == 0.25)
    #expect(try filterRules(Fixture.filter + "stuck_after = 3600\n").stuckAfter == 3600)
}

@Test func palmMillimetresIsRead() throws {
    #expect(try filterRules(Fixture.filter + "palm_mm = 25\n").palmMillimetres == 25)
    #expect(try filterRules(Fixture.filter + "palm_mm = 500\n").palmMillimetres == 500)
    #expect(try filterRules(Fixture.filter + "palm_mm = 0.5\n").palmMillimetres == 0.5)
}

@Test func transformIsRead() throws {
    #expect(try filterRules(Fixture.filter + "transform = true\n").transform)
    #expect(try !filterRules(Fixture.filter + "transform = false\n").transform)
}

@Test func everyFilterKeyReachesItsField() throws {
    let text = Fixture.filter + """
        max_contacts = 2
        block = ["swipe-3", "pinch"]
        ghost_touches = "quarantine"
        stuck_after = 45
        palm_mm = 30
        transform = true

        """
    #expect(try filterRules(text) == FilterRules(maxContacts: 2, block: [.swipe3, .pinch], ghostTouches: .quarantine,
                                                 stuckAfter: 45, palmMillimetres: 30, transform: true))
}

// MARK: - Regions

@Test func aRegionIsReadWithItsOwnLimits() throws {
    let text = Fixture.region + Fixture.rectangle + "max_contacts = 2\nblock = [\"swipe-2\"]\n"
    let rules = try filterRules(text)
    #expect(rules.regions == [FilterRegion(x: 0...0.5, y: 0.25...1, maxContacts: 2, block: [.swipe2])])
    // A region without its own limits takes the table's.
    let plain = try filterRules(Fixture.filter + "max_contacts = 1\nblock = [\"pinch\"]\n[[filter.region]]\n" + Fixture.rectangle)
    #expect(plain.regions == [FilterRegion(x: 0...0.5, y: 0.25...1)])
    #expect(plain.maxContacts(atX: 0.25, y: 0.5) == 1 && plain.block(atX: 0.25, y: 0.5) == [.pinch])
    // `block = []` in a region is its own list: nothing blocked there.
    let open = try filterRules(Fixture.filter + "block = [\"pinch\"]\n[[filter.region]]\n" + Fixture.rectangle + "block = []\n")
    #expect(open.regions.first?.block == [])
    #expect(open.block(atX: 0.25, y: 0.5).isEmpty && open.block(atX: 0.75, y: 0.5) == [.pinch])
}

@Test func aRegionAloneMakesTheFilterTable() throws {
    // `[[filter.region]]` without a `[filter]` header: the table's keys are their defaults.
    let rules = try filterRules(Fixture.edgePan + "[[filter.region]]\n" + Fixture.rectangle + "max_contacts = 3\n")
    #expect(rules == FilterRules(regions: [FilterRegion(x: 0...0.5, y: 0.25...1, maxContacts: 3)]))
}

@Test func regionsKeepTheirOrder() throws {
    var text = Fixture.filter
    for index in 0..<5 {
        let low = Double(index) / 10
        text += "[[filter.region]]\nx = [\(low), 1]\ny = [0, \(1 - low)]\nmax_contacts = \(index + 1)\n"
    }
    let rules = try filterRules(text)
    #expect(rules.regions.map(\.maxContacts) == [1, 2, 3, 4, 5])
    #expect(rules.regions.map(\.x.lowerBound) == [0, 0.1, 0.2, 0.3, 0.4])
    // The first region that contains a point decides: (0.5, 0.5) is in all five.
    #expect(rules.maxContacts(atX: 0.5, y: 0.5) == 1)
    // The rendered regions are in the same order.
    let rendered = ConfigLoader.render(try parseDaemonValid(text))
    let limits = rendered.split(separator: "\n").filter { $0.hasPrefix("  max_contacts = ") }
    #expect(limits.map { $0.dropFirst("  max_contacts = ".count).prefix(1) } == ["1", "2", "3", "4", "5"], "\(rendered)")
}

@Test func regionsInlineReadAsTheirTables() throws {
    let inline = Fixture.filter + "region = [{ x = [0, 0.5], y = [0.25, 1], block = [\"pinch\"] }, { x = [0.5, 1], y = [0, 1] }]\n"
    #expect(try filterRules(inline).regions == [FilterRegion(x: 0...0.5, y: 0.25...1, block: [.pinch]),
                                                FilterRegion(x: 0.5...1, y: 0...1)])
}

@Test func thirtyTwoRegionsAreAllowedAndAThirtyThirdIsNot() throws {
    let one = "[[filter.region]]\n" + Fixture.rectangle
    let most = Fixture.filter + String(repeating: one, count: 32)
    #expect(try filterRules(most).regions.count == 32)
    // The 33rd header is on line 6 + 32 × 3.
    expectDaemonConfigError(most + one, line: 6 + 32 * 3, key: "filter.region[33]",
                      "one [[filter.region]] too many: at most 32", engineToo: false)
}

// MARK: - Errors

@Test func outOfRangeValuesAreNamedAtTheirLine() {
    for (line, key, fragment) in [
        ("max_contacts = 0", "max_contacts", "must be from 1 to 10 (got 0)"),
        ("max_contacts = 11", "max_contacts", "must be from 1 to 10 (got 11)"),
        ("stuck_after = 0", "stuck_after", "must be > 0 and <= 3600 (got 0)"),
        ("stuck_after = 3600.5", "stuck_after", "must be > 0 and <= 3600"),
        ("stuck_after = -1", "stuck_after", "must be > 0 and <= 3600"),
        ("palm_mm = 0", "palm_mm", "must be > 0 and <= 500 (got 0)"),
        ("palm_mm = 501", "palm_mm", "must be > 0 and <= 500 (got 501)"),
        ("palm_mm = inf", "palm_mm", "must be a finite number"),
        ("ghost_touches = \"on\"", "ghost_touches", "must be one of off, quarantine (got \"on\")"),
        ("block = [\"pinch\", \"swipe-6\"]", "block", "item 2: must be one of pinch, swipe-2, swipe-3, swipe-4, swipe-5 (got \"swipe-6\")"),
    ] {
        expectDaemonConfigError(Fixture.filter + line + "\n", line: 6, key: "filter." + key, fragment)
    }
}

@Test func wrongTypesAreNamedAtTheirLine() {
    for (line, key, fragment) in [
        ("max_contacts = 1.5", "max_contacts", "expected an integer, found a float (got 1.5)"),
        ("max_contacts = \"1\"", "max_contacts", "expected an integer, found a string"),
        ("block = \"pinch\"", "block", "expected an array, found a string (got \"pinch\")"),
        ("block = [1]", "block", "item 1: expected a string, found an integer (got 1)"),
        ("ghost_touches = true", "ghost_touches", "expected a string, found a boolean (got true)"),
        ("stuck_after = \"30s\"", "stuck_after", "expected a number, found a string (got \"30s\")"),
        ("palm_mm = [20]", "palm_mm", "expected a number, found an array"),
        ("transform = \"yes\"", "transform", "expected a boolean (true or false), found a string"),
        ("transform = 1", "transform", "expected a boolean (true or false), found an integer (got 1)"),
    ] {
        expectDaemonConfigError(Fixture.filter + line + "\n", line: 6, key: "filter." + key, fragment)
    }
}

@Test func aGestureBlockedTwiceIsAnError() {
    expectDaemonConfigError(Fixture.filter + "max_contacts = 2\nblock = [\"pinch\", \"swipe-2\", \"pinch\"]\n",
                      line: 7, key: "filter.block", "names \"pinch\" twice", engineToo: false)
    expectDaemonConfigError(Fixture.region + Fixture.rectangle + "block = [\"swipe-3\", \"swipe-3\"]\n",
                      line: 9, key: "filter.region[1].block", "names \"swipe-3\" twice", engineToo: false)
}

@Test func aBadRegionIsNamedAtItsLine() {
    let region = Fixture.region
    for (text, line, key, fragment, engineToo) in [
        (region + "x = [0.5, 0.2]\ny = [0, 1]\n", 7, "x", "must be [x0, x1] with x0 < x1 (got [0.5, 0.2])", false),
        (region + "x = [0.5, 0.5]\ny = [0, 1]\n", 7, "x", "with x0 < x1", false),
        (region + "x = [0, 1]\ny = [1, 0]\n", 8, "y", "must be [y0, y1] with y0 < y1 (got [1.0, 0.0])", false),
        (region + "x = [0, 0.5, 1]\ny = [0, 1]\n", 7, "x", "must be [x0, x1], 2 numbers from 0 to 1 (got 3)", false),
        (region + "x = [0, 1]\ny = [0.5]\n", 8, "y", "must be [y0, y1], 2 numbers from 0 to 1 (got 1)", false),
        (region + "x = [-0.1, 1]\ny = [0, 1]\n", 7, "x", "item 1: must be >= 0 and <= 1 (got -0.1)", true),
        (region + "x = [0, 1]\ny = [0, 1.5]\n", 8, "y", "item 2: must be >= 0 and <= 1 (got 1.5)", true),
        (region + "x = [0, \"1\"]\ny = [0, 1]\n", 7, "x", "item 2: expected a number, found a string", true),
        (region + "x = 0.5\ny = [0, 1]\n", 7, "x", "expected an array, found a float (got 0.5)", true),
        (region + "y = [0, 1]\n", 6, "x", "required key is missing", true),
        (region + "x = [0, 1]\n", 6, "y", "required key is missing", true),
        (region + Fixture.rectangle + "max_contacts = 0\n", 9, "max_contacts", "must be from 1 to 10 (got 0)", true),
        (region + Fixture.rectangle + "block = [\"tap\"]\n", 9, "block", "item 1: must be one of pinch", true),
    ] {
        expectDaemonConfigError(text, line: line, key: "filter.region[1]." + key, fragment, engineToo: engineToo)
    }
    // The second region is named as such, at its own lines.
    expectDaemonConfigError(region + Fixture.rectangle + "[[filter.region]]\nx = [0.2, 0.1]\ny = [0, 1]\n",
                      line: 10, key: "filter.region[2].x", "with x0 < x1", engineToo: false)
}

@Test func unknownKeysSuggestTheNearest() {
    expectDaemonConfigError(Fixture.filter + "max_contact = 1\n", line: 6, key: "filter.max_contact",
                      "unknown key; did you mean 'max_contacts'?")
    expectDaemonConfigError(Fixture.filter + "plam_mm = 20\n", line: 6, key: "filter.plam_mm",
                      "unknown key; did you mean 'palm_mm'?")
    expectDaemonConfigError(Fixture.filter + "ghost_touch = \"off\"\n", line: 6, key: "filter.ghost_touch",
                      "unknown key; did you mean 'ghost_touches'?")
    expectDaemonConfigError(Fixture.region + Fixture.rectangle + "blocks = []\n", line: 9, key: "filter.region[1].blocks",
                      "unknown key; did you mean 'block'?")
    // A key of [filter] that is not a region's.
    expectDaemonConfigError(Fixture.region + Fixture.rectangle + "zzz = 1\n", line: 9, key: "filter.region[1].zzz",
                      "unknown key; the keys of [[filter.region]] are x, y, max_contacts, block")
    // A [filter] key under [input] is unknown there, with the nearest [input] key.
    expectDaemonConfigError(Fixture.input + "max_contacts = 1\n", line: 6, key: "input.max_contacts", "unknown key")
}

@Test func theTablesMustHaveTheirShapes() {
    expectDaemonConfigError("filter = 1\n" + Fixture.edgePan, line: 1, key: "filter",
                      "must be written as a [filter] table, found an integer (got 1)")
    expectDaemonConfigError(Fixture.filter + "[filter.region]\n" + Fixture.rectangle, line: 6, key: "filter.region",
                      "must be written as [[filter.region]] tables, found a table")
}

// MARK: - Rendering

@Test func theFilterTableIsWrittenWithTheOthers() throws {
    // The default: the table with every key that has a value, as [input] and [metrics] are written.
    let standard = ConfigLoader.render(DaemonConfiguration.standard)
    for line in ["[filter]", "block = []", "ghost_touches = \"off\"", "transform = false"] {
        #expect(standard.contains("\n" + line), "missing \(line) in\n\(standard)")
    }
    for absent in ["max_contacts", "stuck_after", "palm_mm", "[[filter.region]]"] {
        #expect(!standard.contains(absent), "\(absent) in\n\(standard)")
    }
    // Given values, and the gestures in one order whatever the file's.
    let text = Fixture.filter + "max_contacts = 1\nblock = [\"swipe-4\", \"pinch\"]\nstuck_after = 20\npalm_mm = 35.5\n"
        + "[[filter.region]]\n" + Fixture.rectangle + "block = [\"swipe-2\"]\n"
    let rendered = ConfigLoader.render(try parseDaemonValid(text))
    for line in ["max_contacts = 1", "block = [\"pinch\", \"swipe-4\"]", "stuck_after = 20.0", "palm_mm = 35.5",
                 "  [[filter.region]]", "  x = [0.0, 0.5]", "  y = [0.25, 1.0]", "  block = [\"swipe-2\"]"] {
        #expect(rendered.contains("\n" + line + " ") || rendered.contains("\n" + line + "\n"), "missing \(line) in\n\(rendered)")
    }
    #expect(!rendered.contains("  max_contacts"), "the region has no limit of its own:\n\(rendered)")
    // The filter's tables come before [metrics], the region under [filter].
    let filterAt = rendered.range(of: "\n[filter]\n")?.lowerBound
    let regionAt = rendered.range(of: "\n  [[filter.region]]\n")?.lowerBound
    let metricsAt = rendered.range(of: "\n[metrics]\n")?.lowerBound
    #expect(filterAt != nil && regionAt != nil && metricsAt != nil)
    if let filterAt, let regionAt, let metricsAt { #expect(filterAt < regionAt && regionAt < metricsAt) }
}

@Test func filterRulesMadeInCodeRoundTrip() throws {
    let rules = FilterRules(maxContacts: 3, block: Set(BlockedGesture.allCases), ghostTouches: .quarantine,
                            stuckAfter: 1.0 / 3, palmMillimetres: 499.999, transform: true, regions: [
                                FilterRegion(x: 0...1, y: 0...0.1, maxContacts: 10, block: []),
                                FilterRegion(x: 0.1 + 0.2...0.7, y: 1e-9...1),
                                FilterRegion(x: 0.5...0.75, y: 0.25...0.5, block: [.swipe5, .pinch]),
                            ])
    var config = DaemonConfiguration.standard
    config.filter = rules
    try expectDeclaredKeysRoundTrip(config)
    config.filter.regions.reverse()
    try expectDeclaredKeysRoundTrip(config)
}

@Test func randomFilterRulesRoundTrip() throws {
    var random = SeededRandom(seed: 0x6669_6C74_6572)
    func fraction() -> Double { Double(random.below(1001)) / 1000 }
    func gestures() -> Set<BlockedGesture> { Set(BlockedGesture.allCases.filter { _ in random.below(2) == 0 }) }
    func span() -> ClosedRange<Double> {
        let a = fraction(), b = fraction()
        return a == b ? 0...1 : min(a, b)...max(a, b)
    }
    for _ in 0..<200 {
        var rules = FilterRules()
        if random.below(2) == 0 { rules.maxContacts = 1 + random.below(10) }
        rules.block = gestures()
        rules.ghostTouches = random.below(2) == 0 ? .off : .quarantine
        if random.below(2) == 0 { rules.stuckAfter = Double(1 + random.below(3_600_000)) / 1000 }
        if random.below(2) == 0 { rules.palmMillimetres = Double(1 + random.below(500_000)) / 1000 }
        rules.transform = random.below(2) == 0
        for _ in 0..<random.below(FilterKeys.maxRegions + 1) {
            rules.regions.append(FilterRegion(x: span(), y: span(),
                                              maxContacts: random.below(2) == 0 ? nil : 1 + random.below(10),
                                              block: random.below(2) == 0 ? nil : gestures()))
        }
        var config = DaemonConfiguration.standard
        config.filter = rules
        let text = ConfigLoader.render(config)
        #expect(try ConfigLoader.parseDaemon(text: text, file: "rendered.toml") == config, "\(text)")
    }
}
