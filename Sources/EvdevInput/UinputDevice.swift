#if canImport(Glibc)
import Glibc
#endif
import CLibevdev
import Engine

/// A virtual input device made through `/dev/uinput` from a description
/// (libevdev opens and closes `/dev/uinput` itself: `LIBEVDEV_UINPUT_OPEN_MANAGED`).
/// For tests on a real kernel: events written here come out of its
/// `/dev/input/eventN` node with kernel timestamps. Destroyed by `destroy()`
/// or deinit.
public final class UinputDevice {
    private var uinput: OpaquePointer?
    /// `/dev/input/eventN`, or nil if libevdev could not find it.
    public let devnode: String?
    /// `/sys/devices/virtual/input/inputN`, or nil.
    public let syspath: String?

    /// Creates the device: name (`name` or the description's), ids,
    /// properties, event codes and axis ranges from `description`.
    public init(description: DeviceDescription, name: String? = nil) throws(DeviceOpenError) {
        let template = EvdevDescription.makeDevice(description, name: name)
        defer { libevdev_free(template) }
        var created: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(template, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &created)
        guard rc == 0, let created else {
            var error = DeviceOpenError.from(errno: -rc)
            if -rc == ENOENT {
                error.message = "/dev/uinput does not exist: load the uinput module (modprobe uinput)"
            } else if error.kind == .permissionDenied {
                error.message = "/dev/uinput: permission denied (run as root)"
            } else {
                error.message = "cannot create a uinput device: \(error.message)"
            }
            throw error
        }
        uinput = created
        devnode = libevdev_uinput_get_devnode(created).map { String(cString: $0) }
        syspath = libevdev_uinput_get_syspath(created).map { String(cString: $0) }
    }

    deinit {
        destroy()
    }

    /// Writes one event; the kernel stamps it. Returns 0 or a negative errno.
    @discardableResult
    public func write(type: UInt16, code: UInt16, value: Int32) -> Int32 {
        guard let uinput else { return -ENODEV }
        return libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value)
    }

    /// Removes the device at once (readers get `ENODEV`).
    public func destroy() {
        if let uinput { libevdev_uinput_destroy(uinput) }
        uinput = nil
    }
}
