import Testing
import WireProtocol
import StreamClient

/// The client's mirror through whole transition lives, snapshots, catches
/// and connection loss.
@Suite("Stream: mirror")
struct MirrorTests {
    static let hello = StreamSnapshot(
        protocolVersion: 1, version: "0.1.0",
        transitions: [TransitionInfo(name: "back", gesture: "edge-pan", fingers: 1),
                      TransitionInfo(name: "home", gesture: "swipe", fingers: 3)],
        active: [], seq: 0)

    private func event(_ kind: TransitionUpdate.Kind, _ name: String = "back", seq: UInt64, time: Double = 0,
                       progress: Double, velocity: Double = 0, values: [PropertyValue] = [],
                       decision: TransitionUpdate.Decision? = nil, reason: TransitionUpdate.Reason? = nil, target: Double? = nil) -> StreamMessage {
        .event(TransitionUpdate(kind: kind, transition: name, seq: seq, time: time, progress: progress,
                                velocity: velocity, values: values, decision: decision, reason: reason, target: target))
    }

    @Test func wholeLife() throws {
        var mirror = StreamMirror()
        mirror.apply(.hello(Self.hello))
        #expect(mirror.entries.map(\.name) == ["back", "home"])
        #expect(mirror.entries.map(\.gesture) == ["edge-pan", "swipe"])
        #expect(mirror.inFlight.isEmpty)
        #expect(mirror.hello == Self.hello)

        mirror.apply(event(.began, seq: 1, time: 0.2, progress: 0.02, values: [PropertyValue("dim", 0.96)]))
        var back = try #require(mirror.entry(named: "back"))
        #expect(back.phase == .interacting)
        #expect(back.values == [PropertyValue("dim", 0.96)])
        #expect(mirror.inFlight.map(\.name) == ["back"])

        mirror.apply(event(.changed, seq: 2, time: 0.3, progress: 0.4, velocity: 1.2))
        mirror.apply(event(.ended, seq: 3, time: 0.5, progress: 0.66, velocity: 0.23, decision: .finish, reason: .released))
        back = try #require(mirror.entry(named: "back"))
        #expect(back.phase == .animating)
        #expect(back.decision == .finish)
        #expect(back.reason == .released)
        #expect(back.target == 1)
        #expect(back.velocity == 0.23)

        mirror.apply(event(.animating, seq: 4, time: 0.52, progress: 0.72, velocity: 3.7, target: 1))
        mirror.apply(.pong(id: nil))
        mirror.apply(.unknown(type: "news"))
        mirror.apply(.ok(cmd: "subscribe", id: nil))
        mirror.apply(.error(code: "bad-json", message: "x", cmd: nil, id: nil))
        mirror.apply(event(.finished, seq: 5, time: 0.6, progress: 1))
        back = try #require(mirror.entry(named: "back"))
        #expect(back.phase == .idle)
        #expect(back.progress == 1)
        #expect(back.finished == 1)
        #expect(back.cancelled == 0)
        #expect(back.decision == .finish)   // the last decision stays for display
        #expect(back.target == nil)
        #expect(mirror.lastSeq == 5)
        #expect(mirror.lastTime == 0.6)
        #expect(mirror.inFlight.isEmpty)
        #expect(mirror.syntheticCancellations(time: 1).isEmpty)
    }

    @Test func helloWithActiveSnapshot() throws {
        var snapshot = Self.hello
        snapshot.active = [
            ActiveTransition(transition: "back", phase: .interacting, progress: 0.42, values: [PropertyValue("dim", 0.16)]),
            ActiveTransition(transition: "home", phase: .animating, progress: 0.3, target: 0),
        ]
        snapshot.seq = 17
        var mirror = StreamMirror()
        mirror.apply(.hello(snapshot))
        let back = try #require(mirror.entry(named: "back"))
        #expect(back.phase == .interacting)
        #expect(back.progress == 0.42)
        #expect(back.values == [PropertyValue("dim", 0.16)])
        #expect(back.target == nil)
        let home = try #require(mirror.entry(named: "home"))
        #expect(home.phase == .animating)
        #expect(home.target == 0)
        #expect(home.decision == .cancel)
        #expect(mirror.lastSeq == 17)
        #expect(mirror.inFlight.map(\.name) == ["back", "home"])
        // The live stream continues from there.
        mirror.apply(event(.changed, seq: 18, progress: 0.45))
        mirror.apply(event(.cancelled, "home", seq: 19, progress: 0))
        #expect(mirror.inFlight.map(\.name) == ["back"])
        #expect(mirror.entry(named: "back")?.progress == 0.45)
    }

    @Test func catchWhileAnimating() throws {
        var mirror = StreamMirror()
        mirror.apply(.hello(Self.hello))
        mirror.apply(event(.began, seq: 1, progress: 0.1))
        mirror.apply(event(.ended, seq: 2, progress: 0.3, decision: .cancel, reason: .released))
        mirror.apply(event(.animating, seq: 3, progress: 0.2, target: 0))
        // A new gesture catches the animation at its current progress.
        mirror.apply(event(.began, seq: 4, progress: 0.2))
        let back = try #require(mirror.entry(named: "back"))
        #expect(back.phase == .interacting)
        #expect(back.decision == nil)
        #expect(back.reason == nil)
        #expect(back.target == nil)
        #expect(back.progress == 0.2)
        #expect(back.finished == 0 && back.cancelled == 0)
    }

    @Test func stateResetKeepsCountsAndUnknownNamesAreAdded() throws {
        var mirror = StreamMirror()
        mirror.apply(.hello(Self.hello))
        mirror.apply(event(.began, seq: 1, progress: 0.1))
        mirror.apply(event(.cancelled, seq: 2, progress: 0, values: [PropertyValue("dim", 1)]))
        mirror.apply(event(.began, "pinch", seq: 3, progress: 0.1))
        #expect(mirror.entries.map(\.name) == ["back", "home", "pinch"])
        mirror.apply(.state(StreamSnapshot(transitions: Self.hello.transitions,
                                           active: [ActiveTransition(transition: "home", phase: .interacting, progress: 0.5)],
                                           seq: 40), id: nil))
        #expect(mirror.entries.map(\.name) == ["back", "home"])
        #expect(mirror.entry(named: "back")?.cancelled == 1)
        #expect(mirror.entry(named: "back")?.restingValues == [PropertyValue("dim", 1)])
        #expect(mirror.entry(named: "home")?.phase == .interacting)
        #expect(mirror.lastSeq == 40)
        #expect(mirror.hello == Self.hello)   // state does not replace the hello
        // Without any hello, events still build entries.
        var bare = StreamMirror(names: ["x"])
        bare.apply(event(.began, "y", seq: 9, progress: 0.3))
        #expect(bare.entries.map(\.name) == ["x", "y"])
        #expect(bare.inFlight.map(\.name) == ["y"])
    }

    @Test func syntheticCancellations() throws {
        var mirror = StreamMirror()
        mirror.apply(.hello(Self.hello))
        // back has been seen at rest (a cancelled at 0), home has not.
        mirror.apply(event(.began, seq: 1, time: 1, progress: 0.1, values: [PropertyValue("dim", 0.8)]))
        mirror.apply(event(.cancelled, seq: 2, time: 1.5, progress: 0, values: [PropertyValue("dim", 1)]))
        mirror.apply(event(.began, seq: 3, time: 2, progress: 0.05, values: [PropertyValue("dim", 0.9)]))
        mirror.apply(event(.began, "home", seq: 4, time: 2.1, progress: 0.2, values: [PropertyValue("blur", 4)]))
        mirror.apply(event(.ended, "home", seq: 5, time: 2.4, progress: 0.7, decision: .finish, reason: .released))
        let cancellations = mirror.syntheticCancellations(time: 2.4)
        #expect(cancellations == [
            TransitionUpdate(kind: .cancelled, transition: "back", seq: 6, time: 2.4, progress: 0, velocity: 0,
                             values: [PropertyValue("dim", 1)], synthetic: true),
            TransitionUpdate(kind: .cancelled, transition: "home", seq: 7, time: 2.4, progress: 0, velocity: 0,
                             values: [], synthetic: true),
        ])
        for update in cancellations { mirror.apply(.event(update)) }
        #expect(mirror.inFlight.isEmpty)
        #expect(mirror.entry(named: "back")?.cancelled == 2)
        #expect(mirror.entry(named: "home")?.cancelled == 1)
        #expect(mirror.entry(named: "home")?.progress == 0)
    }
}
