import Foundation
import TestSupport
import Testing
import Engine
@testable import EvdevInput

/// Discovery on a fake `/dev/input` tree of files and symlinks, and the
/// `--device auto` rule.
@Suite("Device discovery and the auto rule")
struct DiscoveryTests {
    // MARK: Nodes and links

    @Test func eventNumbers() {
        #expect(DeviceDiscovery.eventNumber("event0") == 0)
        #expect(DeviceDiscovery.eventNumber("event12") == 12)
        #expect(DeviceDiscovery.eventNumber("event") == nil)
        #expect(DeviceDiscovery.eventNumber("eventX") == nil)
        #expect(DeviceDiscovery.eventNumber("event1x") == nil)
        #expect(DeviceDiscovery.eventNumber("mouse0") == nil)
        #expect(DeviceDiscovery.eventNumber("event-1") == nil)
    }

    @Test func listsNodesNumericallyWithTheirLinks() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        for name in ["event10", "event2", "event1", "mouse0", "mice"] { tree.file(name) }
        tree.directory("by-id")
        tree.directory("by-path")
        tree.link("by-id/usb-Panel_Co_Touch-event-if00", to: "../event2")
        tree.link("by-id/usb-Keys-event-kbd", to: "../event10")
        tree.link("by-path/pci-0000:00:14.0-usb-0:1:1.0-event", to: "../event2")
        tree.link("by-id/dangling", to: "../event99")

        let discovery = DeviceDiscovery(root: tree.path) { _ in .failure(DeviceOpenError.from(errno: ENOTTY)) }
        let nodes = try discovery.nodes()
        #expect(nodes.map(\.number) == [1, 2, 10])
        #expect(nodes.map(\.path) == [1, 2, 10].map { tree.path + "/event\($0)" })
        #expect(nodes[0].links.isEmpty)
        #expect(nodes[1].links == [tree.path + "/by-id/usb-Panel_Co_Touch-event-if00",
                                   tree.path + "/by-path/pci-0000:00:14.0-usb-0:1:1.0-event"])
        #expect(nodes[1].stablePath == tree.path + "/by-id/usb-Panel_Co_Touch-event-if00")
        #expect(nodes[2].links == [tree.path + "/by-id/usb-Keys-event-kbd"])
        #expect(nodes[0].stablePath == nodes[0].path)
    }

    @Test func scanDescribesEveryNode() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        tree.file("event0")
        tree.file("event1")
        let discovery = DeviceDiscovery(root: tree.path) { path in
            path.hasSuffix("event1") ? .success(SampleDevices.touchscreen())
                                     : .failure(DeviceOpenError.from(errno: EACCES))
        }
        let scan = try discovery.scan()
        #expect(scan.count == 2)
        #expect(scan[0].description == nil)
        #expect(scan[1].description == SampleDevices.touchscreen())
        if case .failure(let error) = scan[0].result {
            #expect(error.kind == .permissionDenied)
            #expect(error.message == "permission denied: add the user to the input group (or run as root)")
        } else {
            Issue.record("event0 should be unreadable")
        }
    }

    @Test func realOpenOfAPlainFileIsNotEvdev() throws {
        let tree = TemporaryDirectory()
        defer { tree.remove() }
        tree.file("event0", "not a device")
        let scan = try DeviceDiscovery(root: tree.path).scan()
        guard case .failure(let error) = scan[0].result else {
            Issue.record("a plain file opened as a device")
            return
        }
        #expect(error.kind == .notEvdev)
        #expect(DeviceDiscovery.open(tree.path + "/event7") == .failure(DeviceOpenError.from(errno: ENOENT)))
    }

    @Test func missingRootIsMissing() {
        do {
            _ = try DeviceDiscovery(root: "/nonexistent/input").nodes()
            Issue.record("no error")
        } catch {
            #expect(error.kind == .missing)
            #expect(error.message == "/nonexistent/input does not exist")
        }
    }

    // MARK: The auto rule

    @Test func autoPicksTheLowestNumberedTouchscreen() {
        let scan = [
            discovered(7, .success(SampleDevices.touchscreen(name: "B")), links: ["/dev/input/by-id/usb-B-event-if00"]),
            discovered(0, .success(SampleDevices.keyboard)),
            discovered(3, .success(SampleDevices.touchscreen(name: "A")), links: ["/dev/input/by-id/usb-A-event-if00"]),
            discovered(1, .success(SampleDevices.touchscreen(name: "pad", properties: []))),
        ]
        let choice = AutoChoice(scan)
        #expect(choice.chosen?.node.number == 3)
        #expect(choice.candidates.map(\.node.number) == [3, 7])
        let message = try! #require(choice.severalMessage)
        #expect(message.hasPrefix("auto: 2 touchscreens; chose /dev/input/event3 \"A\" (the lowest event number) over /dev/input/by-id/usb-B-event-if00 \"B\""))
        #expect(message.contains("pin one with --device PATH"))
        #expect(message.hasSuffix("/dev/input/by-id/usb-A-event-if00, /dev/input/by-id/usb-B-event-if00"))
    }

    @Test func autoWithOneCandidateSaysNothingMore() {
        let choice = AutoChoice([discovered(4, .success(SampleDevices.singleTouch))])
        #expect(choice.chosen?.node.number == 4)
        #expect(choice.severalMessage == nil)
        #expect(choice.unreadableSummary == nil)
    }

    @Test func autoSkipsUnusableAndNamesUnreadable() {
        var broken = SampleDevices.touchscreen(name: "broken")
        broken.absInfo[0x36] = AbsInfo(minimum: 5, maximum: 5)
        let choice = AutoChoice([
            discovered(0, .success(broken)),
            discovered(1, .failure(DeviceOpenError.from(errno: EACCES))),
            discovered(2, .success(SampleDevices.keyboard)),
        ])
        #expect(choice.chosen == nil)
        #expect(choice.candidates.isEmpty)
        #expect(choice.unreadable.map(\.node.number) == [1])
        #expect(choice.unreadableSummary == "cannot read /dev/input/event1: permission denied: add the user to the input group (or run as root)")
    }

    @Test func unreadableNodesAreGroupedByReason() {
        let denied = DeviceOpenError.from(errno: EACCES)
        let choice = AutoChoice([
            discovered(4, .failure(denied)),
            discovered(1, .failure(denied)),
            discovered(2, .failure(DeviceOpenError.from(errno: ENOTTY))),
            discovered(3, .failure(DeviceOpenError.from(errno: ENODEV))),   // vanished: not named
        ])
        #expect(choice.unreadableSummary == "cannot read /dev/input/event1, /dev/input/event4: permission denied: "
                + "add the user to the input group (or run as root); /dev/input/event2: not an evdev input device")
    }

    @Test func selectorArgument() {
        #expect(DeviceSelector(argument: nil) == .auto)
        #expect(DeviceSelector(argument: "auto") == .auto)
        #expect(DeviceSelector(argument: "all") == .all)
        #expect(DeviceSelector(argument: "/dev/input/by-id/x") == .path("/dev/input/by-id/x"))
        #expect(DeviceSelector(arguments: ["/dev/input/event3", "/dev/input/event5"]) == .paths(["/dev/input/event3", "/dev/input/event5"]))
    }

    @Test func aFilterCopyIsNeverAPanelToRead() {
        let copy = SampleDevices.touchscreen(name: "Test Panel" + filteredDeviceSuffix)
        let choice = AutoChoice([discovered(5, .success(copy)), discovered(6, .success(SampleDevices.touchscreen()))])
        #expect(choice.chosen?.node.number == 6)
        #expect(choice.candidates.map(\.node.number) == [6])
        let text = DeviceListing.text(for: [discovered(5, .success(copy))])
        #expect(text.contains("a filter mode copy for the UI, never read as a panel"))
        #expect(text.hasSuffix("--device auto picks nothing: no readable touchscreen\n"))
    }

    // MARK: Listing

    @Test func listingShowsDevicesAndTheAutoPick() {
        let text = DeviceListing.text(for: [
            discovered(0, .success(SampleDevices.keyboard)),
            discovered(1, .failure(DeviceOpenError.from(errno: EACCES)), links: ["/dev/input/by-path/platform-x-event"]),
            discovered(2, .success(SampleDevices.touchscreen()), links: ["/dev/input/by-id/usb-P-event-if00"]),
        ])
        #expect(text.contains("Device:       Test Panel\nPath:         /dev/input/event2\nBy-id:        /dev/input/by-id/usb-P-event-if00\n"))
        #expect(text.contains("Id:           usb 0eef:0001 (version 0111)\n"))
        #expect(text.contains("Touchscreen:  yes (direct touch, multitouch (10 slots))\n"))
        #expect(text.contains("Slots:        10\n"))
        #expect(text.contains("Axes:         ABS_X 0…4095 (resolution 16/mm)\n"))
        #expect(text.contains("              ABS_MT_POSITION_Y 0…2303 (resolution 16/mm)\n"))
        #expect(text.contains("Properties:   INPUT_PROP_DIRECT\n"))
        #expect(text.contains("Path:         /dev/input/event1\nBy-path:      /dev/input/by-path/platform-x-event\nError:        permission denied"))
        #expect(text.contains("Touchscreen:  no (no position axes"))
        #expect(text.hasSuffix("--device auto picks /dev/input/event2 (the touchscreen with the lowest event number)\n"))
    }
}
