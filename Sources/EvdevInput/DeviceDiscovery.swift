#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import Engine

/// One evdev node in the input directory, with the stable links udev made
/// for it.
public struct DeviceNode: Sendable, Equatable {
    /// `ROOT/eventN`.
    public var path: String
    /// N.
    public var number: Int
    /// `ROOT/by-id/…` links first, then `ROOT/by-path/…`, each sorted.
    public var links: [String]

    public init(path: String, number: Int, links: [String] = []) {
        self.path = path
        self.number = number
        self.links = links
    }

    /// The path to tell a person to pin: a by-id link (survives reboots and
    /// re-plugging), else a by-path link (survives re-plugging into the same
    /// port), else the node.
    public var stablePath: String { links.first ?? path }
}

/// A node and what opening it gave: its description, or why it cannot be read.
public struct DiscoveredDevice: Sendable, Equatable {
    public var node: DeviceNode
    public var result: Result<DeviceDescription, DeviceOpenError>

    public init(node: DeviceNode, result: Result<DeviceDescription, DeviceOpenError>) {
        self.node = node
        self.result = result
    }

    /// The description, when the node could be read.
    public var description: DeviceDescription? {
        if case .success(let d) = result { return d }
        return nil
    }
}

/// Lists the input devices under a directory (`/dev/input`, or a test's
/// fake tree): the `eventN` nodes in numeric order, each with the
/// `by-id`/`by-path` links that resolve to it, each described by opening it.
public struct DeviceDiscovery: Sendable {
    /// The input directory.
    public var root: String
    /// Opens and describes one node (libevdev by default; tests fake it).
    public var describe: @Sendable (String) -> Result<DeviceDescription, DeviceOpenError>

    public init(root: String = "/dev/input",
                describe: @escaping @Sendable (String) -> Result<DeviceDescription, DeviceOpenError> = DeviceDiscovery.open) {
        self.root = root
        self.describe = describe
    }

    /// Describes `path` with libevdev.
    @Sendable public static func open(_ path: String) -> Result<DeviceDescription, DeviceOpenError> {
        do {
            return .success(try EvdevDevice(path: path).description)
        } catch {
            return .failure(error)
        }
    }

    // MARK: Nodes

    /// N for a name `eventN` (digits only), else nil.
    public static func eventNumber(_ name: String) -> Int? {
        guard name.hasPrefix("event") else { return nil }
        let digits = name.dropFirst(5)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// The `eventN` nodes, in numeric order, with their links. Throws
    /// `.missing` when the directory does not exist.
    public func nodes() throws(DeviceOpenError) -> [DeviceNode] {
        guard let names = Self.entries(of: root) else {
            let code = errno
            throw code == ENOENT ? DeviceOpenError(kind: .missing, errno: ENOENT, message: "\(root) does not exist")
                                 : DeviceOpenError.from(errno: code)
        }
        var nodes = names.compactMap { name in
            Self.eventNumber(name).map { DeviceNode(path: root + "/" + name, number: $0) }
        }
        nodes.sort { $0.number < $1.number }
        var byTarget: [String: [String]] = [:]
        for folder in ["by-id", "by-path"] {
            let directory = root + "/" + folder
            for name in (Self.entries(of: directory) ?? []).sorted() {
                let link = directory + "/" + name
                if let target = Self.resolve(link) { byTarget[target, default: []].append(link) }
            }
        }
        for i in nodes.indices {
            if let target = Self.resolve(nodes[i].path) { nodes[i].links = byTarget[target] ?? [] }
        }
        return nodes
    }

    /// Every node, described (or with the reason it cannot be read).
    public func scan() throws(DeviceOpenError) -> [DiscoveredDevice] {
        try nodes().map { DiscoveredDevice(node: $0, result: describe($0.path)) }
    }

    // MARK: Paths

    /// The canonical path of `path` (symlinks resolved), nil if it does not resolve.
    public static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The names in a directory (without `.` and `..`), nil if it cannot be
    /// read (errno tells why).
    static func entries(of directory: String) -> [String]? { FolderNames.names(in: directory) }
}
