import EvdevInput
import Engine

extension LiveInputMachine {
    // MARK: Lengths in millimetres

    /// On attach: millimetres become this panel's screen units when it is
    /// the one they are resolved for (nothing in flight moves; what the UI
    /// enabled stays so); another panel of a different size is named.
    mutating func resolveLengths(attaching attached: AttachedDevice, geometry: ScreenGeometry, resolves: Bool,
                                 into out: inout Output) {
        guard baseConfiguration.usesPhysicalLengths else { return }
        if resolves {
            applyLengths(for: attached, geometry: geometry, into: &out)
        } else if let first = lengthsSource, let other = devices[first] {
            let here = ScreenSize(device: attached.description, geometry: geometry)
            let there = ScreenSize(device: other.description, geometry: geometries[first] ?? .identity)
            if here != there {
                out.log(.warning, "\(attached.path) \"\(attached.description.name)\": its size differs from \(other.path)'s; lengths in millimetres stay resolved for \(other.path)")
            }
        }
    }

    /// The panel the millimetres were resolved for went: they are resolved
    /// for the first panel still attached (nothing in flight moves).
    mutating func lengthsFollowFirstPanel(into out: inout Output) {
        lengthsSource = firstDevice?.source
        guard baseConfiguration.usesPhysicalLengths, let (source, device) = firstDevice else { return }
        if applyLengths(for: device, geometry: geometries[source] ?? .identity, into: &out) {
            out.log(.info, "lengths in millimetres now resolved for \(device.path)")
        }
    }

    /// The engine's lengths from the config resolved for this panel; a
    /// panel without resolution is named, and the lengths in screen units
    /// are used. False then.
    @discardableResult
    private mutating func applyLengths(for device: AttachedDevice, geometry: ScreenGeometry, into out: inout Output) -> Bool {
        do {
            engine.applyLengths(from: try baseConfiguration.resolved(for: ScreenSize(device: device.description,
                                                                                     geometry: geometry)))
            return true
        } catch {
            out.log(.error, "\(device.path) \"\(device.description.name)\": \(error.message); using the lengths in screen units")
            engine.applyLengths(from: baseConfiguration)
            return false
        }
    }

    /// The config the engine is to run for `configuration`: its millimetres
    /// resolved for the panel they are for (the first attached), when there is one.
    func resolved(_ configuration: EngineConfiguration, into out: inout Output) -> EngineConfiguration {
        guard configuration.usesPhysicalLengths, let source = lengthsSource, let device = devices[source] else {
            return configuration
        }
        do {
            return try configuration.resolved(for: ScreenSize(device: device.description,
                                                              geometry: geometries[source] ?? .identity))
        } catch {
            out.log(.error, "reload: \(device.path): \(error.message); using the screen-unit lengths until a panel that has it")
            return configuration
        }
    }
}
