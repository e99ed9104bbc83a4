#if canImport(Glibc)
import Glibc
#endif
import TransitionEngine

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
        if case .path(let path) = options.selector {
            let directory = Self.parent(of: path)
            if !watcher.isWatching(directory) { watcher.watch(directory) }
        }
    }

    /// Reacts to inotify changes: new directories get watches; a change
    /// to a node or link while nothing is attached brings an attempt.
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
        if relevant && device == nil { attemptAttach() }
    }

    // MARK: Attaching

    /// Tries to attach the selected device now; reports `waiting` (with
    /// the reason) when it cannot.
    func attemptAttach() {
        guard device == nil else { return }
        switch options.selector {
        case .path(let path): attachPath(path)
        case .auto: attachAuto()
        }
    }

    private func attachPath(_ path: String) {
        guard let canonical = DeviceDiscovery.resolve(path) else {
            setWaiting("waiting for \(path) to appear")
            return
        }
        let opened: EvdevDevice
        do {
            opened = try EvdevDevice(path: path)
        } catch {
            if error.kind == .permissionDenied { scheduleRetry(canonical, path: path) }
            setWaiting(error.kind == .missing || error.kind == .gone
                       ? "waiting for \(path) to appear" : "waiting for \(path): \(error.message)")
            return
        }
        if let rejection = engineRejection(of: opened.description) {
            source.push([.message(.error, "\(path) \"\(opened.description.name)\" cannot drive the engine: \(rejection)")])
            setWaiting("waiting for \(path) to become a touch device")
            return
        }
        let check = TouchscreenCheck(opened.description)
        if !check.isTouchscreen {
            source.push([.message(.warning, "\(path) \"\(opened.description.name)\" is not a touchscreen (\(check.reason)); using it as --device asks")])
        }
        attach(opened)
    }

    private func attachAuto() {
        let scan: [DiscoveredDevice]
        do {
            scan = try discovery.scan()
        } catch {
            setWaiting("waiting for a touchscreen (\(error.kind == .missing ? error.message : options.root + ": " + error.message))")
            return
        }
        let choice = AutoChoice(scan)
        for device in choice.unreadable {
            guard case .failure(let error) = device.result, error.kind == .permissionDenied,
                  let canonical = DeviceDiscovery.resolve(device.node.path) else { continue }
            scheduleRetry(canonical, path: device.node.path)
        }
        for candidate in choice.candidates {
            do {
                let opened = try EvdevDevice(path: candidate.node.path)
                guard opened.description.isTouchscreen, engineRejection(of: opened.description) == nil else { continue }
                if let several = choice.severalMessage, candidate == choice.chosen {
                    source.push([.message(.notice, several)])
                }
                attach(opened)
                return
            } catch {
                continue   // gone or changed between the scan and now
            }
        }
        var text = "waiting for a touchscreen"
        if let unreadable = choice.unreadableSummary { text += " (\(unreadable))" }
        setWaiting(text)
    }

    /// Sets the clock, grabs if asked, and reports the device.
    private func attach(_ opened: EvdevDevice) {
        do {
            try opened.useMonotonicClock()
        } catch {
            source.push([.message(.error, "\(opened.path): cannot set its clock to CLOCK_MONOTONIC: \(error.message)")])
            setWaiting("waiting for a touchscreen that takes CLOCK_MONOTONIC")
            return
        }
        if options.grab {
            do {
                try opened.grab()
            } catch {
                source.push([.message(.warning, "\(opened.path): cannot grab it (\(error.message)): reading without a grab; other readers still see the touches")])
            }
        }
        device = opened
        waitingText = nil
        retryAt = nil
        source.push([.attached(AttachedDevice(path: opened.path, description: opened.description,
                                              grabbed: opened.isGrabbed))])
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
