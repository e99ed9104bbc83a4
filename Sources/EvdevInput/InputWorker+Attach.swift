#if canImport(Glibc)
import Glibc
#endif
import Engine

extension InputWorker {
    // MARK: Watching for devices

    /// The directories where a wanted node or link appears: the input
    /// directory and its `by-id`/`by-path` (or, while the input directory
    /// does not exist, its parent), and the directory of `--device PATH`.
    func setUpWatches() {
        let root = options.root
        if watcher.isWatching(root) || watcher.watch(root) {
            for folder in ["by-id", "by-path"] where !watcher.isWatching(root + "/" + folder) {
                watcher.watch(root + "/" + folder)
            }
        } else {
            watcher.watch(Self.parent(of: root))
        }
        if case .paths(let paths) = options.selector {
            for path in paths {
                let directory = Self.parent(of: path)
                if !watcher.isWatching(directory) { watcher.watch(directory) }
            }
        }
    }

    /// Reacts to inotify changes: new directories get watches; a change
    /// to a node or link while a wanted device is missing brings an attempt.
    func handle(_ changes: [DirectoryWatcher.Change]) {
        var relevant = false
        let now = Self.now()
        for change in changes {
            switch change.kind {
            case .overflow:
                relevant = true
            case .directoryGone:
                setUpWatches()
            case .created where change.isDirectory:
                setUpWatches()
                relevant = true
            case .created, .attributesChanged:
                if change.kind == .created, change.directory == options.root,
                   DeviceDiscovery.eventNumber(change.name) != nil,
                   let canonical = DeviceDiscovery.resolve(change.path) {
                    appeared[canonical] = now
                    retryAttempts[canonical] = 0
                    gaveUp.remove(canonical)
                }
                relevant = true
            case .removed:
                continue
            }
        }
        appeared = appeared.filter { now - $0.value < options.retry.giveUpAfter }
        if relevant && wantsMore { attemptAttach() }
    }

    /// Whether a selected device is not attached (for `all`: always, a new
    /// touchscreen may come).
    var wantsMore: Bool {
        switch options.selector {
        case .auto: return devices.isEmpty
        case .all: return devices.count < TouchFrame.maximumSources
        case .paths(let paths): return devices.count < paths.count
        }
    }

    // MARK: Attaching

    /// Tries to attach the selected devices that are missing now; reports
    /// `waiting` (with the reason) while none is attached.
    func attemptAttach() {
        switch options.selector {
        case .auto:
            if devices.isEmpty { attachAuto() }
        case .all:
            attachAll()
        case .paths(let paths):
            var reasons: [String] = []
            for (index, path) in paths.enumerated() where devices[index] == nil {
                if let reason = attachPath(path, as: index) {
                    reasons.append(reason)
                    if missing[index] != reason, !devices.isEmpty || paths.count > 1 {
                        source.push([.message(.info, "\(reason)")])
                    }
                    missing[index] = reason
                } else {
                    missing[index] = nil
                }
            }
            if devices.isEmpty {
                setWaiting(reasons.joined(separator: "; "))
            }
        }
    }

    /// Attaches `path` as source `index`; nil when attached, else the
    /// waiting reason.
    private func attachPath(_ path: String, as index: Int) -> String? {
        guard let canonical = DeviceDiscovery.resolve(path) else {
            return "waiting for \(path) to appear"
        }
        if devices.values.contains(where: { DeviceDiscovery.resolve($0.path) == canonical }) {
            return "waiting for \(path): it is the same device as another --device"
        }
        let opened: EvdevDevice
        do {
            opened = try EvdevDevice(path: path)
        } catch {
            if error.kind == .permissionDenied { scheduleRetry(canonical, path: path) }
            return error.kind == .missing || error.kind == .gone
                ? "waiting for \(path) to appear" : "waiting for \(path): \(error.message)"
        }
        if isFilterCopy(opened.description) {
            return "waiting for \(path): it is a filter mode copy for the UI (\"\(opened.description.name)\"), not a panel"
        }
        if let rejection = engineRejection(of: opened.description) {
            source.push([.message(.error, "\(path) \"\(opened.description.name)\" cannot drive the engine: \(rejection)")])
            return "waiting for \(path) to become a touch device"
        }
        let check = TouchscreenCheck(opened.description)
        if !check.isTouchscreen {
            source.push([.message(.warning, "\(path) \"\(opened.description.name)\" is not a touchscreen (\(check.reason)); using it as --device asks")])
        }
        return attach(opened, as: index) ? nil : "waiting for \(path): it does not take CLOCK_MONOTONIC"
    }

    /// `all`: every touchscreen not attached yet, each as the lowest source
    /// number free.
    private func attachAll() {
        guard let choice = scanTouchscreens(waitingText: "waiting for touchscreens") else { return }
        let attachedNodes = Set(devices.values.compactMap { DeviceDiscovery.resolve($0.path) })
        for candidate in choice.candidates {
            guard let canonical = DeviceDiscovery.resolve(candidate.node.path), !attachedNodes.contains(canonical),
                  let index = (0..<TouchFrame.maximumSources).first(where: { devices[$0] == nil }) else { continue }
            guard let opened = try? EvdevDevice(path: candidate.node.path),
                  opened.description.isTouchscreen, !isFilterCopy(opened.description),
                  engineRejection(of: opened.description) == nil else { continue }
            _ = attach(opened, as: index, aliases: candidate.node.links)
        }
        if devices.isEmpty {
            var text = "waiting for touchscreens"
            if let unreadable = choice.unreadableSummary { text += " (\(unreadable))" }
            setWaiting(text)
        }
    }

    /// Scans the input directory for touchscreens, scheduling retries of
    /// nodes that refused us; nil (and, while nothing is attached, `waiting`
    /// with the reason) when the directory cannot be read.
    private func scanTouchscreens(waitingText: String) -> AutoChoice? {
        let scan: [DiscoveredDevice]
        do {
            scan = try discovery.scan()
        } catch {
            if devices.isEmpty {
                setWaiting("\(waitingText) (\(error.kind == .missing ? error.message : options.root + ": " + error.message))")
            }
            return nil
        }
        let choice = AutoChoice(scan)
        for device in choice.unreadable {
            guard case .failure(let error) = device.result, error.kind == .permissionDenied,
                  let canonical = DeviceDiscovery.resolve(device.node.path) else { continue }
            scheduleRetry(canonical, path: device.node.path)
        }
        return choice
    }

    private func attachAuto() {
        guard let choice = scanTouchscreens(waitingText: "waiting for a touchscreen") else { return }
        for candidate in choice.candidates {
            do {
                let opened = try EvdevDevice(path: candidate.node.path)
                guard opened.description.isTouchscreen, !isFilterCopy(opened.description),
                      engineRejection(of: opened.description) == nil else { continue }
                if let several = choice.severalMessage, candidate == choice.chosen {
                    source.push([.message(.notice, several)])
                }
                if attach(opened, as: 0, aliases: candidate.node.links) { return }
            } catch {
                continue   // gone or changed between the scan and now
            }
        }
        var text = "waiting for a touchscreen"
        if let unreadable = choice.unreadableSummary { text += " (\(unreadable))" }
        setWaiting(text)
    }

    /// Sets the clock, grabs if asked, and reports the device as source
    /// `index`; false when its clock cannot be set.
    private func attach(_ opened: EvdevDevice, as index: Int, aliases: [String] = []) -> Bool {
        do {
            try opened.useMonotonicClock()
        } catch {
            source.push([.message(.error, "\(opened.path): cannot set its clock to CLOCK_MONOTONIC: \(error.message)")])
            if devices.isEmpty { setWaiting("waiting for a touchscreen that takes CLOCK_MONOTONIC") }
            return false
        }
        if options.grab, let reason = options.grabRefusal?(opened.description) {
            source.push([.message(.warning, "\(opened.path) \"\(opened.description.name)\": not grabbed: \(reason); other readers see its touches")])
        } else if options.grab {
            do {
                try opened.grab()
            } catch {
                source.push([.message(.warning, "\(opened.path): cannot grab it (\(error.message)): reading without a grab; other readers still see the touches")])
            }
        }
        devices[index] = opened
        waitingText = nil
        var names = aliases
        if let canonical = DeviceDiscovery.resolve(opened.path), canonical != opened.path { names.append(canonical) }
        source.push([.attached(AttachedDevice(path: opened.path, description: opened.description,
                                              grabbed: opened.isGrabbed, source: index, aliases: names))])
        return true
    }

    // MARK: Waiting and retrying

    func setWaiting(_ text: String) {
        guard text != waitingText else { return }
        waitingText = text
        source.push([.waiting(text)])
    }

    /// A node that refused us: retry by the policy if it appeared recently.
    private func scheduleRetry(_ canonical: String, path: String) {
        guard let since = appeared[canonical] else { return }
        let attempt = retryAttempts[canonical] ?? 0
        let now = Self.now()
        guard let delay = options.retry.delay(beforeRetry: attempt, elapsed: now - since) else {
            if gaveUp.insert(canonical).inserted {
                source.push([.message(.warning, "\(path): still permission denied \(Int(options.retry.giveUpAfter)) s after it appeared: add the user to the input group; a change of its permissions will be noticed")])
            }
            return
        }
        retryAttempts[canonical] = attempt + 1
        retryAt = min(retryAt ?? .infinity, now + delay)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
