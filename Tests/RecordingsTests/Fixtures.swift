import Foundation
@testable import Recordings
import TestSupport
import Testing
import Engine

/// Where the shared third-party recordings live (beside the checkout), and
/// small helpers the tests share.
enum Fixtures {
    /// `<repo>/../shared/recordings` (see `ProjectPaths.shared`).
    static let recordings = URL(fileURLWithPath: ProjectPaths.shared)

    static var available: Bool { ProjectPaths.hasShared }

    static let skipReason: Comment = "the shared recordings folder (../shared/recordings beside the checkout) is absent"

    static func evemu(_ name: String) -> String {
        recordings.appendingPathComponent("evemu-devices").appendingPathComponent(name).path
    }

    static func libinput(_ name: String) -> String {
        recordings.appendingPathComponent("libinput-record").appendingPathComponent(name).path
    }

    /// Every file of a recordings subfolder with one of the extensions.
    static func files(in folder: String, extensions: [String]) -> [String] {
        let url = recordings.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { name in extensions.contains { name.hasSuffix($0) } }
            .sorted()
            .map { url.appendingPathComponent($0).path }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// Parses evemu text given in the test.
func parseEvemu(_ text: String, path: String = "test.events") throws(RecordingError)
    -> (description: DeviceDescription?, events: [InputEvent]) {
    try EvemuParser.parse(bytes: Array(text.utf8), path: path)
}

/// The error parsing `text` gives, or nil if it parses.
func evemuError(_ text: String, path: String = "test.events") -> RecordingError? {
    do {
        _ = try parseEvemu(text, path: path)
        return nil
    } catch {
        return error
    }
}

/// The events between SYN_REPORTs, without the SYN_REPORTs and times.
func frames(_ events: [InputEvent]) -> [[InputEvent]] {
    var frames: [[InputEvent]] = []
    var current: [InputEvent] = []
    for event in events {
        if event.type == EventCode.EV_SYN && event.code == EventCode.SYN_REPORT {
            frames.append(current)
            current = []
        } else {
            current.append(InputEvent(time: 0, type: event.type, code: event.code, value: event.value))
        }
    }
    return frames
}

/// A small evemu 1.3 description used by several tests.
let sampleDescription = """
# EVEMU 1.3
N: Sample Touch
I: 0018 04f3 0001 0100
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 04 00 00 00 00 00 00
B: 03 03 00 00 00 00 80 60 02
A: 00 0 1279 0 0 12
A: 01 0 767 0 0 12
A: 2f 0 4 0 0 0
A: 35 0 1279 0 0 12
A: 36 0 767 0 0 12
A: 39 0 65535 0 0 0

"""
