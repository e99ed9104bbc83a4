import CLibevdev
import Engine

/// Converts between a libevdev device (`struct libevdev *`, from a kernel
/// node or built in memory) and the engine's `DeviceDescription`.
///
/// One convention follows evemu: the codes of `EV_SYN` are the event
/// *types* the device supports (the kernel's `EVIOCGBIT(0)`), which is what
/// `evemu-record` writes on its `B: 00` line — so a description read from a
/// device and one read back from its recording are equal.
public enum EvdevDescription {
    /// The largest event type (`EV_MAX`) and input property (`INPUT_PROP_MAX`).
    static let typeMaximum: UInt32 = 0x1f
    static let propertyMaximum: UInt32 = 0x1f

    // MARK: libevdev → description

    /// Reads name, ids, supported codes, properties and axis ranges.
    public static func describe(_ handle: OpaquePointer) -> DeviceDescription {
        let name = libevdev_get_name(handle).map { String(cString: $0) } ?? ""
        var codes: [UInt16: Set<UInt16>] = [:]
        var types = Set<UInt16>()
        for type in 0...typeMaximum where libevdev_has_event_type(handle, type) != 0 {
            types.insert(UInt16(type))
            guard type != 0 else { continue }
            let maximum = libevdev_event_type_get_max(type)
            guard maximum >= 0 else { continue }
            var set = Set<UInt16>()
            for code in 0...UInt32(maximum) where libevdev_has_event_code(handle, type, code) != 0 {
                set.insert(UInt16(code))
            }
            if !set.isEmpty { codes[UInt16(type)] = set }
        }
        codes[EventCode.EV_SYN] = types
        var properties = Set<Int>()
        for property in 0...propertyMaximum where libevdev_has_property(handle, property) != 0 {
            properties.insert(Int(property))
        }
        var absInfo: [UInt16: AbsInfo] = [:]
        for code in codes[EventCode.EV_ABS] ?? [] {
            guard let info = libevdev_get_abs_info(handle, UInt32(code))?.pointee else { continue }
            absInfo[code] = AbsInfo(value: info.value, minimum: info.minimum, maximum: info.maximum,
                                    fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
        }
        return DeviceDescription(name: name,
                                 bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(handle)),
                                 vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(handle)),
                                 product: UInt16(truncatingIfNeeded: libevdev_get_id_product(handle)),
                                 version: UInt16(truncatingIfNeeded: libevdev_get_id_version(handle)),
                                 codes: codes, properties: properties, absInfo: absInfo)
    }

    // MARK: description → libevdev

    /// A new in-memory libevdev device with the description's name, ids,
    /// properties, codes and axis ranges (for uinput, and for tests: no
    /// kernel needed). `EV_REP` is left out (it would make the kernel
    /// auto-repeat keys); an axis without a range gets 0…0. The caller
    /// frees it with `libevdev_free`.
    public static func makeDevice(_ description: DeviceDescription, name: String? = nil) -> OpaquePointer {
        let handle = libevdev_new()!
        libevdev_set_name(handle, name ?? description.name)
        libevdev_set_id_bustype(handle, Int32(description.bus))
        libevdev_set_id_vendor(handle, Int32(description.vendor))
        libevdev_set_id_product(handle, Int32(description.product))
        libevdev_set_id_version(handle, Int32(description.version))
        for property in description.properties.sorted() where property >= 0 && property <= Int(propertyMaximum) {
            libevdev_enable_property(handle, UInt32(property))
        }
        let repeatType: UInt16 = 0x14
        for type in description.codes.keys.sorted() where type != EventCode.EV_SYN && type != repeatType {
            for code in (description.codes[type] ?? []).sorted() {
                enable(handle, type: type, code: code, description: description)
            }
        }
        for code in description.absInfo.keys.sorted() where !description.supports(type: EventCode.EV_ABS, code: code) {
            enable(handle, type: EventCode.EV_ABS, code: code, description: description)
        }
        return handle
    }

    private static func enable(_ handle: OpaquePointer, type: UInt16, code: UInt16, description: DeviceDescription) {
        guard type == EventCode.EV_ABS else {
            libevdev_enable_event_code(handle, UInt32(type), UInt32(code), nil)
            return
        }
        let a = description.absInfo[code] ?? AbsInfo(minimum: 0, maximum: 0)
        var info = input_absinfo(value: a.value, minimum: a.minimum, maximum: a.maximum,
                                 fuzz: a.fuzz, flat: a.flat, resolution: a.resolution)
        libevdev_enable_event_code(handle, UInt32(type), UInt32(code), &info)
    }
}
