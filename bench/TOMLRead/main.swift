// bench-toml-read: the config reader's time per byte on documents of
// several shapes at 1, 2, 4 and 8 times a size, to show it is linear (the
// time per byte stays flat as the size grows) whatever the shape.
//
//   swift build -c release --product bench-toml-read
//   .build/release/bench-toml-read [MEGABYTES] [ROUNDS]
import Foundation
import TransitionConfig

/// Documents of about `bytes` bytes of one shape.
func document(_ shape: String, bytes: Int) -> String {
    var text = ""
    text.reserveCapacity(bytes + 256)
    var k = 0
    switch shape {
    case "keys":           // many short key = value lines
        while text.utf8.count < bytes { text += "key_\(k) = \(k)\n"; k += 1 }
    case "one-line-array": // one line holding a huge array of mixed values
        text = "a = ["
        while text.utf8.count < bytes { text += "\(k), \"s\(k)\", 1.5e3, 1979-05-27T07:32:00Z, "; k += 1 }
        text += "]\n"
    case "nested":         // arrays nested to the limit, over and over
        while text.utf8.count < bytes {
            text += "n\(k) = " + String(repeating: "[", count: 100) + "1" + String(repeating: "]", count: 100) + "\n"
            k += 1
        }
    case "strings":        // long multi-line strings full of escapes
        while text.utf8.count < bytes {
            text += "s\(k) = \"\"\"\n" + String(repeating: "line \\t with \\u00e9scapes \\\"q\\\" \\\n   joined\n", count: 50) + "\"\"\"\n"
            k += 1
        }
    case "tables":         // many headers, dotted keys and inline tables
        while text.utf8.count < bytes {
            text += "[t\(k).sub]\nx.y.z = \(k)\ninline = { a = 1, b.c = [1, 2], d = \"e\" }\n[[arr]]\nv = \(k)\n"
            k += 1
        }
    case "long-key":       // one key half the document long, over an array of tiny inline tables
        text = String(repeating: "k", count: bytes / 2) + " = ["
        while text.utf8.count < bytes { text += "{},"; k += 1 }
        text += "]\n"
    default: fatalError("unknown shape \(shape)")
    }
    return text
}

let arguments = CommandLine.arguments
let megabytes = arguments.count > 1 ? Double(arguments[1]) ?? 1 : 1
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5
let base = Int(megabytes * 1_000_000)
print("bench-toml-read: \(rounds) rounds per document, median ns per byte (flat across sizes = linear)")
print("shape".padding(toLength: 16, withPad: " ", startingAt: 0) + [1, 2, 4, 8].map { "\(Double(base * $0) / 1e6) MB".padding(toLength: 12, withPad: " ", startingAt: 0) }.joined())
for shape in ["keys", "one-line-array", "nested", "strings", "tables", "long-key"] {
    var row = shape.padding(toLength: 16, withPad: " ", startingAt: 0)
    for factor in [1, 2, 4, 8] {
        let text = document(shape, bytes: base * factor)
        let size = text.utf8.count
        var times: [Double] = []
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            // The whole document is read before the schema looks at it; its
            // first key is not a config key, so the schema stops there.
            do {
                _ = try ConfigLoader.parse(text: text, file: "bench.toml")
                fatalError("\(shape): read as a config")
            } catch let error as ConfigError where error.key != nil && error.column == nil {
            } catch {
                fatalError("\(shape): \(error)")
            }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(size))
        }
        times.sort()
        row += String(format: "%.2f", times[times.count / 2]).padding(toLength: 12, withPad: " ", startingAt: 0)
    }
    print(row)
}
