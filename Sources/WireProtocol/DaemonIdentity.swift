/// `hello`'s and `state`'s `identity`: which kiosk the daemon is and which
/// config it runs (`[identity]` and the config's hash), so a fleet's tools
/// (a dashboard, the MQTT bridge) name the kiosk without a config of their own.
public struct DaemonIdentity: Sendable, Equatable {
    public var kiosk: String?
    public var site: String?
    /// The config's free labels.
    public var labels: [String: String]
    /// The resolved config's hash (16 hex digits of its SHA-256; `[identity]` left out).
    public var configHash: String

    public init(kiosk: String? = nil, site: String? = nil, labels: [String: String] = [:], configHash: String) {
        self.kiosk = kiosk
        self.site = site
        self.labels = labels
        self.configHash = configHash
    }

    /// `kiosk=lobby-3 site=berlin-hbf config_hash=… floor=2`: the words a log
    /// line or a dump's header gives (what is not said is left out; labels sorted).
    public var words: String {
        var parts: [String] = []
        if let kiosk { parts.append("kiosk=" + kiosk) }
        if let site { parts.append("site=" + site) }
        parts.append("config_hash=" + configHash)
        for (name, value) in labels.sorted(by: { $0.key < $1.key }) { parts.append(name + "=" + Self.quotedIfNeeded(value)) }
        return parts.joined(separator: " ")
    }

    /// A label value as one word: quoted (JSON's way) when it has a space, a
    /// quote, `=` or a control character, or is empty.
    static func quotedIfNeeded(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "\"" && $0 != "=" && $0 != "\\" && $0.value != 0x7f }
        if plain { return value }
        let w = JSONWriter()
        w.string(value)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// `,"identity":{"kiosk":…,"site":…,"labels":{…},"config_hash":…}`.
    func encode(into w: JSONWriter) {
        w.raw(",\"identity\":{")
        if let kiosk {
            w.raw("\"kiosk\":")
            w.string(kiosk)
            w.raw(",")
        }
        if let site {
            w.raw("\"site\":")
            w.string(site)
            w.raw(",")
        }
        if !labels.isEmpty {
            w.raw("\"labels\":{")
            for (k, (name, value)) in labels.sorted(by: { $0.key < $1.key }).enumerated() {
                if k > 0 { w.raw(",") }
                w.string(name)
                w.raw(":")
                w.string(value)
            }
            w.raw("},")
        }
        w.raw("\"config_hash\":")
        w.string(configHash)
        w.raw("}")
    }
}

extension Fields {
    /// A snapshot's `identity` (nil when absent).
    func identity() throws(StreamDecodeError) -> DaemonIdentity? {
        guard let value = object["identity"], !value.isNull else { return nil }
        guard let entry = value.object else { throw bad("identity", "an object") }
        let inner = Fields(type: type, object: entry, prefix: prefix + "identity.")
        var labels: [String: String] = [:]
        if let value = entry["labels"], !value.isNull {
            guard let table = value.object else { throw inner.bad("labels", "an object of strings") }
            for member in table {
                guard let text = member.value.string else { throw inner.bad("labels", "an object of strings") }
                labels[member.key] = text
            }
        }
        return DaemonIdentity(kiosk: try inner.optionalString("kiosk"), site: try inner.optionalString("site"),
                              labels: labels, configHash: try inner.string("config_hash"))
    }
}
