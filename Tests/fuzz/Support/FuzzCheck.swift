/// Stops the fuzz target when a property it checks does not hold: libFuzzer
/// sees the trap as a crash and keeps the input.
@inline(__always)
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #fileID, line: UInt = #line) {
    if !condition {
        fatalError("fuzz check failed: \(message())", file: file, line: line)
    }
}
