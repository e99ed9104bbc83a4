/// A failure of the test harness itself (a daemon that did not start, a
/// socket that did not connect), with a message for the test report.
public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
