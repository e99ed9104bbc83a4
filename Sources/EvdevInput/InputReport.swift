import Engine

/// A device the input source attached to.
public struct AttachedDevice: Sendable, Equatable {
    /// The node's path as opened (`/dev/input/eventN`, or the link given).
    public var path: String
    /// Its description, already checked: the engine can read its touches.
    public var description: DeviceDescription
    /// Whether `EVIOCGRAB` is held.
    public var grabbed: Bool
    /// Which of the selected touchscreens it is (`TouchFrame.source`): its
    /// place in the `--device` list, or, for `all`, the lowest number free
    /// when it was attached. 0 with one device.
    public var source: Int
    /// Its canonical node and the `by-id`/`by-path` links to it, for
    /// transitions bound to a `device` (the path as given is `path`).
    public var aliases: [String]

    public init(path: String, description: DeviceDescription, grabbed: Bool, source: Int = 0, aliases: [String] = []) {
        self.path = path
        self.description = description
        self.grabbed = grabbed
        self.source = source
        self.aliases = aliases
    }

    /// Every name a transition's `device` may give it: the path, its
    /// aliases and the device name.
    public var names: Set<String> {
        Set([path, description.name] + aliases)
    }
}

/// What an input source tells its host, in order.
public enum InputReport: Sendable, Equatable {
    /// Severity of a `message`.
    public enum Level: Sendable, Equatable {
        case debug, info, notice, warning, error
    }

    /// No device is attached; the text says what the source waits for
    /// ("waiting for a touchscreen", "waiting for /dev/input/by-id/…").
    /// Sent when the waiting starts and when its reason changes.
    case waiting(String)
    /// A device was opened; its events follow.
    case attached(AttachedDevice)
    /// Events of an attached device (`source`), in order. A `SYN_DROPPED` event marks
    /// the start of a resync batch: the state delta that follows, up to and
    /// including its `SYN_REPORT`, rebuilds the device state after the kernel
    /// dropped events (see `EvdevDevice.readAvailable`).
    case events([InputEvent], source: Int = 0)
    /// An attached device went away (removed, or a read failed); when it
    /// was the last one, waiting follows.
    case lost(path: String, reason: String, source: Int = 0)
    /// Something worth logging.
    case message(Level, String)
}

/// Where a device host gets its input: something that attaches devices and
/// reads them on its own thread, and hands over what it has in batches.
/// `ready` is called (from the source's thread) when reports are waiting;
/// it is not called again until `take` has collected them, so a host that
/// falls behind gets one larger batch, not a queue of wake-ups.
public protocol InputSource: AnyObject, Sendable {
    /// Starts the source; `ready` is called whenever reports wait.
    func start(ready: @escaping @Sendable () -> Void)
    /// Moves every waiting report into `reports`, oldest first.
    func take(into reports: inout [InputReport])
    /// Stops the source and releases its devices; no `ready` after it returns.
    func stop()
}
