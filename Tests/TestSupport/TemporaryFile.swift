import Foundation

/// The private temporary directory this test process writes its files to,
/// removed when it exits.
private let sessionDirectory: TemporaryDirectory = {
    let directory = TemporaryDirectory(prefix: "transitiond-tests")
    directory.removeAtExit()
    return directory
}()

/// Writes `contents` to the file `name` in this process's private temporary
/// directory (replacing one of that name) and returns its path. Names must
/// be unique across tests that run at the same time; the caller may remove
/// the file.
public func temporaryFile(_ name: String, _ contents: [UInt8]) throws -> String {
    let path = sessionDirectory.path + "/" + name
    try Data(contents).write(to: URL(fileURLWithPath: path))
    return path
}

public func temporaryFile(_ name: String, _ text: String) throws -> String {
    try temporaryFile(name, Array(text.utf8))
}
