/// A tiny XML reader for the tests, without Foundation: it checks that a document
/// is well-formed in the ways the plot could get wrong (every element closed in
/// order, one root, quoted attribute values without `<`, no duplicate attribute,
/// only known entities, no stray `<` or `&` in text) and returns its elements.
struct XMLNode {
    var name: String
    var attributes: [String: String]
    /// The text directly inside the element, entities decoded.
    var text: String
    /// The index of the parent element in the list, `nil` for the root.
    var parent: Int?

    var classes: [Substring] { (attributes["class"] ?? "").split(separator: " ") }

    func number(_ attribute: String) -> Double? { attributes[attribute].flatMap { Double($0) } }
}

struct XMLFailure: Error, CustomStringConvertible {
    let description: String
}

struct XMLDocument {
    private(set) var nodes: [XMLNode] = []

    init(_ text: String) throws(XMLFailure) {
        var reader = Reader(bytes: Array(text.utf8))
        nodes = try reader.document()
    }

    var root: XMLNode { nodes[0] }

    /// Elements carrying the class token `name`.
    func elements(class name: String) -> [XMLNode] {
        nodes.filter { $0.classes.contains(Substring(name)) }
    }

    /// Elements inside the element with `id` (at any depth).
    func elements(inside id: String) -> [XMLNode] {
        guard let container = nodes.firstIndex(where: { $0.attributes["id"] == id }) else { return [] }
        return nodes.filter { node in
            var parent = node.parent
            while let index = parent {
                if index == container { return true }
                parent = nodes[index].parent
            }
            return false
        }
    }

    /// Elements inside `id` carrying the class token `name`.
    func elements(class name: String, inside id: String) -> [XMLNode] {
        elements(inside: id).filter { $0.classes.contains(Substring(name)) }
    }

    /// The element's parent.
    func parent(of node: XMLNode) -> XMLNode? { node.parent.map { nodes[$0] } }

    // MARK: - Reading

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        mutating func document() throws(XMLFailure) -> [XMLNode] {
            var nodes: [XMLNode] = []
            var open: [Int] = []
            var roots = 0
            while position < bytes.count {
                if bytes[position] != UInt8(ascii: "<") {
                    let text = try characterData()
                    if let current = open.last {
                        nodes[current].text += text
                    } else if !text.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) {
                        throw XMLFailure(description: "text outside the root element: \(text.prefix(40))")
                    }
                    continue
                }
                position += 1
                guard position < bytes.count else { throw XMLFailure(description: "document ends inside a tag") }
                if bytes[position] == UInt8(ascii: "/") {
                    position += 1
                    let name = try self.name()
                    skipSpace()
                    try expect(">")
                    guard let current = open.popLast() else { throw XMLFailure(description: "</\(name)> closes nothing") }
                    guard nodes[current].name == name else {
                        throw XMLFailure(description: "</\(name)> closes <\(nodes[current].name)>")
                    }
                    continue
                }
                guard bytes[position] != UInt8(ascii: "!"), bytes[position] != UInt8(ascii: "?") else {
                    throw XMLFailure(description: "unexpected declaration or comment at \(position)")
                }
                if open.isEmpty {
                    roots += 1
                    guard roots == 1 else { throw XMLFailure(description: "a second root element") }
                }
                let name = try self.name()
                var attributes: [String: String] = [:]
                var selfClosing = false
                while true {
                    let spaced = skipSpace()
                    guard position < bytes.count else { throw XMLFailure(description: "document ends inside <\(name)>") }
                    if bytes[position] == UInt8(ascii: ">") { position += 1; break }
                    if bytes[position] == UInt8(ascii: "/") {
                        position += 1
                        try expect(">")
                        selfClosing = true
                        break
                    }
                    guard spaced else { throw XMLFailure(description: "attributes of <\(name)> not separated") }
                    let attribute = try self.name()
                    skipSpace()
                    try expect("=")
                    skipSpace()
                    let value = try quoted()
                    guard attributes.updateValue(value, forKey: attribute) == nil else {
                        throw XMLFailure(description: "attribute \(attribute) twice in <\(name)>")
                    }
                }
                nodes.append(XMLNode(name: name, attributes: attributes, text: "", parent: open.last))
                if !selfClosing { open.append(nodes.count - 1) }
            }
            guard open.isEmpty else { throw XMLFailure(description: "<\(nodes[open.last!].name)> is never closed") }
            guard roots == 1 else { throw XMLFailure(description: "no root element") }
            return nodes
        }

        private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "_"), UInt8(ascii: ":"): true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."): !first
            default: false
            }
        }

        private mutating func name() throws(XMLFailure) -> String {
            let start = position
            while position < bytes.count, Reader.isNameByte(bytes[position], first: position == start) { position += 1 }
            guard position > start else { throw XMLFailure(description: "a name expected at \(start)") }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        @discardableResult
        private mutating func skipSpace() -> Bool {
            let start = position
            while position < bytes.count, [0x20, 0x0A, 0x09, 0x0D].contains(bytes[position]) { position += 1 }
            return position > start
        }

        private mutating func expect(_ character: Unicode.Scalar) throws(XMLFailure) {
            guard position < bytes.count, bytes[position] == UInt8(ascii: character) else {
                throw XMLFailure(description: "'\(character)' expected at \(position)")
            }
            position += 1
        }

        private mutating func quoted() throws(XMLFailure) -> String {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw XMLFailure(description: "an unquoted attribute value at \(position)")
            }
            let quote = bytes[position]
            position += 1
            let start = position
            while position < bytes.count, bytes[position] != quote {
                guard bytes[position] != UInt8(ascii: "<") else { throw XMLFailure(description: "'<' in an attribute value at \(position)") }
                position += 1
            }
            guard position < bytes.count else { throw XMLFailure(description: "an attribute value never ends") }
            position += 1
            return try Reader.decoded(bytes[start..<(position - 1)])
        }

        private mutating func characterData() throws(XMLFailure) -> String {
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "<") {
                guard bytes[position] != UInt8(ascii: ">") else { throw XMLFailure(description: "a raw '>' in text at \(position)") }
                position += 1
            }
            return try Reader.decoded(bytes[start..<position])
        }

        private static func decoded(_ slice: ArraySlice<UInt8>) throws(XMLFailure) -> String {
            var output: [UInt8] = []
            var index = slice.startIndex
            while index < slice.endIndex {
                let byte = slice[index]
                guard byte == UInt8(ascii: "&") else {
                    output.append(byte)
                    index += 1
                    continue
                }
                guard let end = slice[index...].firstIndex(of: UInt8(ascii: ";")) else {
                    throw XMLFailure(description: "a bare '&'")
                }
                let entity = String(decoding: slice[(index + 1)..<end], as: UTF8.self)
                switch entity {
                case "amp": output.append(UInt8(ascii: "&"))
                case "lt": output.append(UInt8(ascii: "<"))
                case "gt": output.append(UInt8(ascii: ">"))
                case "quot": output.append(UInt8(ascii: "\""))
                case "apos": output.append(UInt8(ascii: "'"))
                default: throw XMLFailure(description: "an unknown entity &\(entity);")
                }
                index = end + 1
            }
            return String(decoding: output, as: UTF8.self)
        }
    }
}
