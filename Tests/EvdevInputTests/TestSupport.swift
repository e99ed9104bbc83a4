import Foundation
import TestSupport
import Engine
@testable import EvdevInput

// MARK: Paths

/// The project's own recordings (`<repo>/Recordings`).
enum ProjectRecordings {
    static func path(_ name: String) -> String { ProjectPaths.file("Recordings/" + name) }

    /// Every `.events` file, sorted.
    static var all: [String] { ProjectPaths.ownRecordings.map(path) }
}

// MARK: Devices

/// Descriptions of typical devices, as the kernel would report them.
enum SampleDevices {
    static let evSyn: UInt16 = 0, evKey: UInt16 = 1, evAbs: UInt16 = 3

    /// A 10-slot protocol-B touchscreen.
    static func touchscreen(name: String = "Test Panel", slots: Int32 = 10,
                            properties: Set<Int> = [EventCode.INPUT_PROP_DIRECT]) -> DeviceDescription {
        DeviceDescription(
            name: name, bus: 0x03, vendor: 0x0eef, product: 0x0001, version: 0x0111,
            codes: [evSyn: [0, 1, 3], evKey: [0x14a, 0x145],
                    evAbs: [0x00, 0x01, 0x2f, 0x35, 0x36, 0x39]],
            properties: properties,
            absInfo: [0x00: AbsInfo(minimum: 0, maximum: 4095, resolution: 16),
                      0x01: AbsInfo(minimum: 0, maximum: 2303, resolution: 16),
                      0x2f: AbsInfo(minimum: 0, maximum: slots - 1),
                      0x35: AbsInfo(minimum: 0, maximum: 4095, resolution: 16),
                      0x36: AbsInfo(minimum: 0, maximum: 2303, resolution: 16),
                      0x39: AbsInfo(minimum: 0, maximum: 65535)])
    }

    /// A keyboard: keys only.
    static let keyboard = DeviceDescription(name: "Keyboard", bus: 0x11, codes: [evSyn: [0, 1], evKey: [1, 2, 30]])

    /// A single-touch resistive panel.
    static let singleTouch = DeviceDescription(
        name: "Resistive", bus: 0x18, codes: [evSyn: [0, 1, 3], evKey: [0x14a], evAbs: [0, 1]],
        properties: [EventCode.INPUT_PROP_DIRECT],
        absInfo: [0: AbsInfo(minimum: 100, maximum: 3900), 1: AbsInfo(minimum: 200, maximum: 3800)])
}

/// A scan result for a fake node.
func discovered(_ number: Int, _ result: Result<DeviceDescription, DeviceOpenError>,
                links: [String] = []) -> DiscoveredDevice {
    DiscoveredDevice(node: DeviceNode(path: "/dev/input/event\(number)", number: number, links: links), result: result)
}
