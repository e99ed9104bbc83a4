/// An engine host whose input may be absent for a while (a touchscreen not
/// plugged in yet, or removed): it says so in `hello` and in the reply to
/// `state`, as extra string fields (e.g. `"input":"waiting"`).
public protocol InputStatusReporting: EngineHost {
    /// Key/values added to `hello` and `state`, in order.
    var inputStatus: [(key: String, value: String)] { get }
    /// With several touchscreens selected: every attached one (`"devices"`
    /// in `hello` and `state`); empty with one.
    var inputDevices: [(source: Int, path: String, name: String)] { get }
}

extension EngineHost {
    /// The extra `hello`/`state` fields of a host that reports its input's status.
    var helloExtra: [(key: String, value: String)] {
        (self as? InputStatusReporting)?.inputStatus ?? []
    }

    /// The attached touchscreens, when several are selected.
    var helloDevices: [(source: Int, path: String, name: String)] {
        (self as? InputStatusReporting)?.inputDevices ?? []
    }
}
