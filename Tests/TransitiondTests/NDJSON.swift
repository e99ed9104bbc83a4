import Foundation

/// One decoded line of the event stream.
struct StreamLine {
    var fields: [String: Any]
    var type: String { fields["type"] as? String ?? "" }
    var transition: String { fields["transition"] as? String ?? "" }
    var decision: String? { fields["decision"] as? String }
    var reason: String? { fields["reason"] as? String }
    var progress: Double { (fields["progress"] as? NSNumber)?.doubleValue ?? .nan }
    var velocity: Double { (fields["velocity"] as? NSNumber)?.doubleValue ?? .nan }
    var time: Double { (fields["time"] as? NSNumber)?.doubleValue ?? .nan }
    var seq: Int { (fields["seq"] as? NSNumber)?.intValue ?? -1 }
}

/// Decodes NDJSON, failing on any line that is not a JSON object.
func decodeStream(_ data: Data) throws -> [StreamLine] {
    try data.split(separator: UInt8(ascii: "\n")).map { line in
        guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw DecodeError(line: String(decoding: line, as: UTF8.self))
        }
        return StreamLine(fields: object)
    }
}

struct DecodeError: Error { var line: String }

/// What happened to each transition, in order: "name:began", "name:finish", …
func outcomes(_ lines: [StreamLine]) -> [String] {
    lines.compactMap { line in
        switch line.type {
        case "began": return "\(line.transition):began"
        case "ended": return "\(line.transition):\(line.decision ?? "?")"
        case "finished", "cancelled": return "\(line.transition):\(line.type)"
        default: return nil
        }
    }
}

/// The JSON object of a line (empty if it is not one).
func object(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
}

/// The `type` of a line's object ("" if none).
func typeOf(_ line: String) -> String { object(line)["type"] as? String ?? "" }
