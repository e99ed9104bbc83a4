#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SystemSupport
import Engine

/// The live input source: one input thread that attaches the selected
/// device (`auto` or a path), reads it with libevdev, and re-attaches after
/// it goes away, handing its reports to the host in batches.
///
/// Why a thread: libevdev must do the reads itself (it tracks the device
/// state for the `SYN_DROPPED` resync), and SwiftNIO 2.101 has no public
/// API to watch a foreign descriptor for readability on its event loop
/// (`NIOPipeBootstrap` reads the descriptor itself); polling from the loop
/// on a timer would be a busy loop. So the thread blocks in `poll(2)` on the
/// device, an inotify descriptor (for devices appearing) and a wake-up
/// pipe, reads *everything* available, and hands the whole batch over with
/// one `ready()` call — never one hop per event, and at most one wake-up
/// outstanding: while the host has not taken a batch, later reads append
/// to it.
///
/// Bounded: when more than `maximumPending` events wait untaken, the thread
/// stops reading the device until the host catches up; the kernel's buffer
/// then overflows, and the `SYN_DROPPED` resync brings the state back —
/// the same thing that happens when any reader is too slow.
public final class EvdevSource: InputSource, @unchecked Sendable {
    /// How the source finds and reads its device.
    public struct Options: Sendable {
        public var selector: DeviceSelector
        /// The input directory (`/dev/input`; tests use a temporary one).
        public var root: String
        /// Take `EVIOCGRAB` on the attached device.
        public var grab: Bool
        /// Why not to grab a device after all (filter mode: one it cannot
        /// copy for the UI), or nil to grab it.
        public var grabRefusal: (@Sendable (DeviceDescription) -> String?)?
        public var retry: AccessRetryPolicy
        /// Untaken events above which the thread stops reading.
        public var maximumPending: Int
        /// Events read per `readAvailable` call before polling again.
        public var readChunk: Int

        public init(selector: DeviceSelector, root: String = "/dev/input", grab: Bool = false,
                    retry: AccessRetryPolicy = AccessRetryPolicy(), maximumPending: Int = 1 << 16,
                    readChunk: Int = 4096) {
            self.selector = selector
            self.root = root
            self.grab = grab
            self.retry = retry
            self.maximumPending = maximumPending
            self.readChunk = readChunk
        }
    }

    public let options: Options
    let queue: ReportQueue
    let wake: WakePipe
    let stopping = Atomic<Bool>(false)
    private var thread: NativeThread?

    public init(options: Options) throws(DeviceOpenError) {
        self.options = options
        let wake: WakePipe
        do {
            wake = try WakePipe()
        } catch {
            throw DeviceOpenError.from(errno: error.errno)
        }
        self.wake = wake
        self.queue = ReportQueue(maximumPending: options.maximumPending) { wake.wake() }
    }

    // MARK: InputSource

    public func start(ready: @escaping @Sendable () -> Void) {
        precondition(thread == nil, "EvdevSource started twice")
        queue.setReady(ready)
        let worker: InputWorker
        do {
            worker = try InputWorker(source: self)
        } catch {
            push([.message(.error, "cannot watch \(options.root) for devices: \(error.message)")])
            return
        }
        do {
            thread = try NativeThread(name: "input") { worker.run() }
        } catch {
            push([.message(.error, "cannot read input: \(error)")])
        }
    }

    public func take(into reports: inout [InputReport]) {
        queue.take(into: &reports)
    }

    public func stop() {
        stopping.store(true, ordering: .releasing)
        wake.wake()
        thread?.join()
        thread = nil
    }

    // MARK: From the input thread

    /// Queues reports for the host; true when the thread should stop reading.
    @discardableResult
    func push(_ reports: [InputReport]) -> Bool {
        queue.push(reports)
    }

    /// One report: a device's read, at every wake-up (no array made for it).
    @discardableResult
    func push(_ report: InputReport) -> Bool {
        queue.push(report)
    }

    /// Whether the thread must not read the device now.
    var isPaused: Bool { queue.isPaused }
}
