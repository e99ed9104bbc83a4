/// The config's `[identity]` table: which kiosk this is, for a fleet. It
/// names the kiosk in `hello`, in the metrics (`transitiond_info`), in the
/// log's first line and in every flight recording's header, so a number or
/// a misfire can be traced back to the kiosk, its site and its config.
///
/// ```toml
/// [identity]
/// kiosk = "lobby-3"
/// site = "berlin-hbf"
/// labels = { floor = "2", vendor = "acme" }
/// ```
public struct IdentitySettings: Sendable, Equatable {
    /// `kiosk`: this kiosk's name; nil when the config does not say.
    public var kiosk: String?
    /// `site`: where it stands; nil when the config does not say.
    public var site: String?
    /// `labels`: free `name = "value"` pairs, each name a Prometheus label
    /// name that is not one of `reservedLabels`.
    public var labels: [String: String]

    /// The labels `transitiond_info` sets itself, which `labels` may not take.
    /// (`instance` and `job` are Prometheus's own for the scraped target.)
    public static let reservedLabels = [IdentityKeys.kiosk.name, IdentityKeys.site.name, "config_hash", "version",
                                        "instance", "job"]

    public init(kiosk: String? = nil, site: String? = nil, labels: [String: String] = [:]) {
        self.kiosk = kiosk
        self.site = site
        self.labels = labels
    }

    /// A config without `[identity]`: nothing said.
    public static let none = IdentitySettings()

    /// Whether nothing is said.
    public var isEmpty: Bool { kiosk == nil && site == nil && labels.isEmpty }
}

/// The keys of `[identity]`.
enum IdentityKeys {
    static let table = ChildSection("identity", .table, keys: [kiosk, site, labels])

    static let kiosk = ConfigKey<String?>(
        "kiosk", .string(.identifier), summary: "this kiosk's name, in hello, metrics, logs and dumps")
    static let site = ConfigKey<String?>("site", .string(.identifier), summary: "where it stands")
    static let labels = ConfigKey<[String: String]>(
        "labels", .stringTable(keys: .labelName(reserved: IdentitySettings.reservedLabels)), default: .value([:]),
        summary: "free name = \"value\" pairs, on transitiond_info and in hello")
}

extension ValueCodec where Value == [String: String] {
    /// A table of free keys (each following `keys`) with string values.
    static func stringTable(keys: StringRule) -> Self {
        Self(kind: .table(keys: keys, of: .string(.any)),
             decode: { value in
                 guard case .table(let entries) = value else { return nil }
                 var table: [String: String] = [:]
                 for (key, item) in entries {
                     guard case .string(let text) = item else { return nil }
                     table[key] = text
                 }
                 return table
             },
             encode: { .table($0.mapValues { .string($0) }) })
    }
}
