import CLibevdev
import Engine

/// The text `transitiond devices` prints: one block per node, like
/// `libinput list-devices` (name, path, links, ids, whether it is a
/// touchscreen and why, slots, axis ranges and resolutions, properties),
/// unreadable nodes with the reason, and what `--device auto` would pick.
public enum DeviceListing {
    /// The whole listing.
    public static func text(for devices: [DiscoveredDevice]) -> String {
        var out = ""
        for device in devices {
            out += block(for: device) + "\n"
        }
        let choice = AutoChoice(devices)
        if let chosen = choice.chosen {
            out += "--device auto picks \(chosen.node.path) (the touchscreen with the lowest event number)"
            if choice.candidates.count > 1 { out += "; pin another with --device PATH" }
            out += "\n"
        } else {
            out += "--device auto picks nothing: no readable touchscreen"
            if !choice.unreadable.isEmpty { out += " (\(choice.unreadable.count) node(s) could not be read)" }
            out += "\n"
        }
        return out
    }

    /// One device's block (ending with a newline).
    public static func block(for device: DiscoveredDevice) -> String {
        var lines: [(String, String)] = []
        switch device.result {
        case .failure(let error):
            lines.append(("Path", device.node.path))
            lines += links(device.node)
            lines.append(("Error", error.message))
        case .success(let d):
            lines.append(("Device", d.name.isEmpty ? "(unnamed)" : d.name))
            lines.append(("Path", device.node.path))
            lines += links(device.node)
            lines.append(("Id", "\(busName(d.bus)) \(hex4(d.vendor)):\(hex4(d.product)) (version \(hex4(d.version)))"))
            let check = TouchscreenCheck(d)
            var touch = (check.isTouchscreen ? "yes (" : "no (") + check.reason + ")"
            if check.isTouchscreen, let rejection = engineRejection(of: d) { touch += " but unusable: \(rejection)" }
            if isFilterCopy(d) { touch += "; a filter mode copy for the UI, never read as a panel" }
            lines.append(("Touchscreen", touch))
            lines.append(("Slots", check.slots.map(String.init) ?? "n/a"))
            let axes = d.absInfo.keys.sorted().map { code in axisLine(code, d.absInfo[code]!) }
            for (i, axis) in axes.enumerated() { lines.append((i == 0 ? "Axes" : "", axis)) }
            if axes.isEmpty { lines.append(("Axes", "none")) }
            let properties = d.properties.sorted().map(propertyName)
            lines.append(("Properties", properties.isEmpty ? "none" : properties.joined(separator: " ")))
            // What `run` applies unless the config's [input] calibration says otherwise.
            if let matrix = UdevProperties.value("LIBINPUT_CALIBRATION_MATRIX", forDeviceAt: device.node.path) {
                let usable = ScreenGeometry.calibration(fromUdev: matrix) != nil
                lines.append(("Calibration", "\(matrix) (udev LIBINPUT_CALIBRATION_MATRIX\(usable ? "" : ", not 6 numbers: ignored"))"))
            }
        }
        return lines.map { label, value in
            let head = label.isEmpty ? "" : label + ":"
            return head.padding(to: 14) + value
        }.joined(separator: "\n") + "\n"
    }

    // MARK: Pieces

    private static func links(_ node: DeviceNode) -> [(String, String)] {
        node.links.map { link in (link.contains("/by-id/") ? "By-id" : "By-path", link) }
    }

    static func axisLine(_ code: UInt16, _ info: AbsInfo) -> String {
        var text = "\(codeName(type: EventCode.EV_ABS, code: code)) \(info.minimum)…\(info.maximum)"
        if info.resolution != 0 { text += " (resolution \(info.resolution)/mm)" }
        if info.fuzz != 0 || info.flat != 0 { text += " fuzz \(info.fuzz) flat \(info.flat)" }
        return text
    }

    static func codeName(type: UInt16, code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(type), UInt32(code)).map { String(cString: $0) }
            ?? "code 0x" + String(code, radix: 16)
    }

    static func propertyName(_ property: Int) -> String {
        guard property >= 0, let name = libevdev_property_get_name(UInt32(property)) else { return "property \(property)" }
        return String(cString: name)
    }

    /// The kernel's `BUS_*` names for the common buses.
    static func busName(_ bus: UInt16) -> String {
        switch bus {
        case 0x01: return "pci"
        case 0x03: return "usb"
        case 0x05: return "bluetooth"
        case 0x06: return "virtual"
        case 0x11: return "i8042"
        case 0x13: return "rs232"
        case 0x18: return "i2c"
        case 0x19: return "host"
        case 0x1c: return "spi"
        default: return "bus 0x" + hex4(bus)
        }
    }

    static func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension String {
    /// Pads with spaces to `width` characters (never truncates).
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
