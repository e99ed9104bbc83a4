#if canImport(Glibc)
import Glibc
#endif
import CLibevdev
import Engine

/// One open evdev device node (`/dev/input/eventN`) read through libevdev:
/// opened non-blocking and close-on-exec, described, optionally grabbed,
/// its timestamps on `CLOCK_MONOTONIC`. Not thread-safe: one thread owns it
/// (the input thread of the daemon, or the recorder). Closing (deinit)
/// releases a grab with the descriptor.
public final class EvdevDevice {
    /// The path it was opened by (a by-id link stays a link here).
    public let path: String
    /// The file descriptor, for `poll(2)`.
    public let fd: Int32
    private let handle: OpaquePointer
    /// What the device is, read once when it was opened.
    public let description: DeviceDescription
    /// Whether this process holds `EVIOCGRAB` on it.
    public private(set) var isGrabbed = false
    /// How many `SYN_DROPPED` resyncs `readAvailable` went through.
    public private(set) var resyncCount = 0
    private var event = input_event()

    // MARK: Opening

    /// Opens `path` read-only, non-blocking and close-on-exec, and reads
    /// its description with libevdev.
    public init(path: String) throws(DeviceOpenError) {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceOpenError.from(errno: errno) }
        var created: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &created)
        guard rc == 0, let created else {
            Glibc.close(fd)
            throw DeviceOpenError.from(errno: -rc)
        }
        self.path = path
        self.fd = fd
        self.handle = created
        self.description = EvdevDescription.describe(created)
    }

    deinit {
        libevdev_free(handle)
        Glibc.close(fd)
    }

    // MARK: Settings

    /// Timestamps on `CLOCK_MONOTONIC` (`EVIOCSCLOCKID`): the clock the
    /// event loop's deadlines use, immune to wall-clock changes.
    public func useMonotonicClock() throws(DeviceOpenError) {
        let rc = libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
        if rc != 0 { throw DeviceOpenError.from(errno: -rc) }
    }

    /// Takes `EVIOCGRAB`: no other reader (the desktop, a console) sees
    /// the device's events while this process holds it.
    public func grab() throws(DeviceOpenError) {
        let rc = libevdev_grab(handle, LIBEVDEV_GRAB)
        if rc != 0 { throw DeviceOpenError.from(errno: -rc) }
        isGrabbed = true
    }

    /// Releases `EVIOCGRAB`.
    public func ungrab() {
        _ = libevdev_grab(handle, LIBEVDEV_UNGRAB)
        isGrabbed = false
    }

    // MARK: Reading

    /// How a read ended.
    public enum ReadResult: Sendable, Equatable {
        /// Everything available was read (`-EAGAIN`).
        case drained
        /// `limit` events were read; there may be more.
        case limitReached
        /// The device is gone (`-ENODEV`) or failed; close it.
        case lost(DeviceOpenError)
    }

    /// Reads every available event with `libevdev_next_event` (normal
    /// mode) into `events`, up to about `limit` of them. After a
    /// `SYN_DROPPED` the device's state is resynchronised
    /// (`LIBEVDEV_READ_FLAG_SYNC` until `-EAGAIN`) and reported as a
    /// **resync batch**: a `SYN_DROPPED` marker event, then the state
    /// delta libevdev computed, which ends with a `SYN_REPORT`. Times are
    /// the kernel's, in microseconds.
    public func readAvailable(into events: inout [InputEvent], limit: Int = Int.max) -> ReadResult {
        var count = 0
        while count < limit {
            let rc = libevdev_next_event(handle, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &event)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                events.append(Self.convert(event))
                count += 1
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                resyncCount += 1
                events.append(InputEvent(time: Self.microseconds(event), type: EventCode.EV_SYN,
                                         code: EventCode.SYN_DROPPED, value: 0))
                if case .lost(let error) = readResync(into: &events, count: &count) { return .lost(error) }
            } else if rc == -EAGAIN {
                return .drained
            } else if rc == -EINTR {
                continue
            } else {
                return .lost(DeviceOpenError.from(errno: -rc))
            }
        }
        return .limitReached
    }

    /// The state delta after a `SYN_DROPPED`, read whole.
    private func readResync(into events: inout [InputEvent], count: inout Int) -> ReadResult {
        while true {
            let rc = libevdev_next_event(handle, LIBEVDEV_READ_FLAG_SYNC.rawValue, &event)
            if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                events.append(Self.convert(event))
                count += 1
            } else if rc == -EAGAIN {
                return .drained
            } else if rc == -EINTR {
                continue
            } else {
                return .lost(DeviceOpenError.from(errno: -rc))
            }
        }
    }

    @inline(__always)
    static func microseconds(_ e: input_event) -> Int64 {
        Int64(e.time.tv_sec) &* 1_000_000 &+ Int64(e.time.tv_usec)
    }

    @inline(__always)
    static func convert(_ e: input_event) -> InputEvent {
        InputEvent(time: microseconds(e), type: e.type, code: e.code, value: e.value)
    }
}
