/// Why a device cannot be filtered: filter mode re-creates the panel through
/// uinput with the same slots, so it needs a multitouch protocol B panel
/// (`ABS_MT_SLOT` and `ABS_MT_TRACKING_ID`). Also thrown for a `hold` that is
/// not a finite number of seconds ≥ 0.
public struct TouchFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
