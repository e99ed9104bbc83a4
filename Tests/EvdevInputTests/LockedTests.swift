import Foundation
import SystemSupport
import TestSupport
import Testing

/// The project's lock (`Locked`): what it guards is changed by one thread
/// at a time, and nothing in the project locks another way (the standard
/// library's `Mutex` hides its contended path from ThreadSanitizer, which
/// then reports races on what it guards only when threads happen to meet).
@Suite struct LockedTests {
    @Test func threadsThatMeetAtTheLockLoseNoChange() throws {
        let counts = Locked([0, 0])
        let threads = try (0..<4).map { index in
            try NativeThread(name: "adder \(index)") {
                for _ in 0..<20_000 { counts.withLock { $0[index % 2] += 1 } }
            }
        }
        for thread in threads { thread.join() }
        #expect(counts.withLock { $0 } == [40_000, 40_000])
    }

    @Test func nothingLocksWithTheStandardLibrarysMutex() throws {
        let name = ["Mu", "tex"].joined()   // not spelled whole, so this file is not a user
        var users: [String] = []
        for folder in ["Sources", "Tests", "bench"] {
            let base = ProjectPaths.file(folder)
            let files = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty, "\(folder) has Swift files")
            for file in files where file.hasSuffix(".swift") {
                let code = try String(contentsOfFile: base + "/" + file, encoding: .utf8)
                let uses = [" ", "(", "[", ":"].flatMap { before in ["(", "<"].map { before + name + $0 } }
                if uses.contains(where: code.contains) { users.append(folder + "/" + file) }
            }
        }
        #expect(users.isEmpty, "\(users): use SystemSupport's Locked")
    }
}
