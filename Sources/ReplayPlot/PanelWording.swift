/// The words of a panel: its heading, release labels and tooltips.
enum PanelWording {
    /// Releases listed one by one in a heading; more are summed up.
    static let headingReleaseLimit = 3
    /// Characters of a name shown in a heading (the rest is cut, marked "…").
    static let nameLimit = 48

    /// "back — finish by threshold at 0.66", "back — cancel (device-lost) at 0.40; finish by flick at 0.31",
    /// "back — 5 releases: 3 finish, 2 cancel", "back — no release"; rejections counted at the end.
    static func heading(_ transition: PlotTransition) -> String {
        var outcome: String
        let releases = transition.releases
        if releases.isEmpty {
            outcome = "no release"
        } else if releases.count <= headingReleaseLimit {
            outcome = releases.map(outcomePhrase).joined(separator: "; ")
        } else {
            outcome = "\(releases.count) releases: " + decisionCounts(releases)
        }
        if !transition.rejections.isEmpty {
            outcome += " · \(transition.rejections.count) rejected"
        }
        return DisplayText.truncated(transition.name, to: nameLimit) + " — " + outcome
    }

    /// "finish by threshold at 0.66", "finish by flick (command) at 0.31", "cancel (device-lost) at 0.40".
    static func outcomePhrase(_ release: PlotRelease) -> String {
        var phrase = word(release.decision)
        if !release.decidedBy.isEmpty {
            phrase += " by " + word(release.decidedBy)
            if let reason = notableReason(release) { phrase += " (" + reason + ")" }
        } else if !release.reason.isEmpty {
            phrase += " (" + word(release.reason) + ")"
        }
        if release.progress.isFinite {
            phrase += " at " + NumberFormatting.fixed(release.progress, decimals: 2)
        }
        return phrase
    }

    /// The visible label of a release marker: "finish (threshold)", "cancel (flick)",
    /// "cancel (device-lost)", "finish (threshold, command)".
    static func releaseLabel(_ release: PlotRelease) -> String {
        var parts: [String] = []
        if !release.decidedBy.isEmpty { parts.append(word(release.decidedBy)) }
        if let reason = notableReason(release) { parts.append(reason) }
        else if release.decidedBy.isEmpty, !release.reason.isEmpty { parts.append(word(release.reason)) }
        let decision = word(release.decision)
        return parts.isEmpty ? decision : decision + " (" + parts.joined(separator: ", ") + ")"
    }

    /// Everything about a release, for its tooltip.
    static func releaseTooltip(_ release: PlotRelease) -> String {
        var text = releaseLabel(release) + " at " + NumberFormatting.label(release.time, maxDecimals: 3) + " s"
        if release.progress.isFinite { text += ", progress " + NumberFormatting.label(release.progress, maxDecimals: 3) }
        if release.velocity.isFinite { text += ", velocity " + NumberFormatting.label(release.velocity, maxDecimals: 3) + "/s" }
        if !release.reason.isEmpty { text += ", reason " + release.reason }
        if let projected = release.projected { text += ", projected to " + NumberFormatting.label(projected, maxDecimals: 3) }
        if let target = release.target { text += ", to " + NumberFormatting.label(target, maxDecimals: 3) }
        return text
    }

    /// The tooltip of a group of rejected candidates drawn as one marker.
    static func rejectionTooltip(_ markers: [PlotMarker]) -> String {
        let shown = 5
        var lines = markers.prefix(shown).map { "rejected at " + NumberFormatting.label($0.time, maxDecimals: 3) + " s: " + $0.text }
        if markers.count > shown { lines.append("and \(markers.count - shown) more") }
        return lines.joined(separator: "\n")
    }

    /// "3 finish, 2 cancel" (decisions in the order first seen).
    private static func decisionCounts(_ releases: [PlotRelease]) -> String {
        var order: [String] = [], counts: [String: Int] = [:]
        for release in releases {
            let decision = word(release.decision)
            if counts[decision] == nil { order.append(decision) }
            counts[decision, default: 0] += 1
        }
        return order.map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
    }

    /// The reason, when it says more than "released" (a release by the finger).
    private static func notableReason(_ release: PlotRelease) -> String? {
        release.reason.isEmpty || release.reason == "released" ? nil : word(release.reason)
    }

    /// A short word from the stream, kept to a label's length.
    private static func word(_ text: String) -> String {
        DisplayText.truncated(text, to: 24)
    }
}
