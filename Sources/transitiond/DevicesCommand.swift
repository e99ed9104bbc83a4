#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import EvdevInput

/// `transitiond devices`: the input devices a person would pick from, like
/// `libinput list-devices`, and what `--device auto` picks.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List input devices: path, name, ids, touchscreen or not (and why), axes, slots.",
        discussion: """
        Nodes that cannot be read are listed with the reason (e.g. permission \
        denied: add the user to the input group). The last line says which \
        device `run --device auto` would pick: the touchscreen with the lowest \
        event number. Exit 0; 69 when /dev/input does not exist.
        """
    )

    @Option(help: .hidden)
    var inputRoot = "/dev/input"

    func run() throws {
        try reportingFailures {
            let devices: [DiscoveredDevice]
            do {
                devices = try DeviceDiscovery(root: inputRoot).scan()
            } catch let error as DeviceOpenError {
                if error.kind == .missing {
                    throw Failure(.unavailable, "\(inputRoot) does not exist: this system has no input devices "
                                  + "(no evdev driver loaded, or a container without /dev/input)")
                }
                throw Failure(.unavailable, "\(inputRoot): \(error.message)")
            }
            var out = StandardOutput()
            if devices.isEmpty {
                out.write("no input devices in \(inputRoot)\n")
            } else {
                out.write(DeviceListing.text(for: devices))
            }
            try out.checkWritten()
        }
    }
}
