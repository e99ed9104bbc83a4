#if canImport(Glibc)
import Glibc
#endif

/// Why an input device node could not be opened or read, with the errno
/// it came from and a sentence a person can act on.
public struct DeviceOpenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, by kind (the caller's policy depends on it).
    public enum Kind: Sendable, Equatable {
        /// EACCES / EPERM: the node exists but this user may not read it.
        case permissionDenied
        /// ENOENT: no such node (yet, or any more).
        case missing
        /// ENODEV / ENXIO: the device went away.
        case gone
        /// The node is not an evdev device (libevdev refused it).
        case notEvdev
        /// Anything else.
        case other
    }

    public var kind: Kind
    /// The errno (positive), 0 when there is none.
    public var errno: Int32
    public var message: String

    public init(kind: Kind, errno: Int32, message: String) {
        self.kind = kind
        self.errno = errno
        self.message = message
    }

    public var description: String { message }

    // MARK: From errno

    /// The error for `open(2)` or an ioctl failing with `code`.
    public static func from(errno code: Int32) -> DeviceOpenError {
        switch code {
        case EACCES, EPERM:
            return DeviceOpenError(kind: .permissionDenied, errno: code,
                                   message: "permission denied: add the user to the input group (or run as root)")
        case ENOENT:
            return DeviceOpenError(kind: .missing, errno: code, message: "no such device node")
        case ENODEV, ENXIO:
            return DeviceOpenError(kind: .gone, errno: code, message: "the device is gone")
        case ENOTTY, EINVAL:
            return DeviceOpenError(kind: .notEvdev, errno: code, message: "not an evdev input device")
        default:
            return DeviceOpenError(kind: .other, errno: code, message: String(cString: strerror(code)))
        }
    }
}
