"""A client's picture of every transition, rebuilt from the stream (the
Python twin of the Swift client's ``StreamMirror``)."""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from .events import TRANSITION_EVENTS, Event

IDLE, INTERACTING, ANIMATING = "idle", "interacting", "animating"

_PHASE_AFTER = {
    "began": INTERACTING,
    "changed": INTERACTING,
    "ended": ANIMATING,
    "animating": ANIMATING,
    "finished": IDLE,
    "cancelled": IDLE,
}


@dataclass
class TransitionState:
    """One transition as the stream last described it."""

    name: str
    #: From the snapshot's ``transitions`` entry (None until a snapshot names it).
    gesture: Optional[str] = None
    fingers: Optional[int] = None
    edge: Optional[str] = None
    direction: Optional[str] = None
    #: ``idle``, ``interacting`` or ``animating``.
    phase: str = IDLE
    progress: float = 0.0
    velocity: float = 0.0
    values: Dict[str, float] = field(default_factory=dict)
    #: The animation's target while animating (1 or 0; a snap point for a
    #: transition with snap points), else None.
    target: Optional[float] = None
    #: The last ``ended``'s decision (``finish``, ``cancel`` or ``snap``) and
    #: reason, and with ``snap`` its target's ``index`` in ``snap_points``
    #: (all three cleared by ``began``).
    decision: Optional[str] = None
    reason: Optional[str] = None
    index: Optional[int] = None
    #: Its snap points (from the snapshot's ``snap_points``; None without),
    #: and the one it rests at: the snapshot's ``rest``, then the progress
    #: of each ``finished``.
    snap_points: Optional[List[float]] = None
    rest: Optional[float] = None
    #: The time of the last event (seconds on the daemon's input clock).
    time: float = 0.0
    #: How many times this client saw it finish / cancel (kept across snapshots).
    finished: int = 0
    cancelled: int = 0
    #: The values last seen at progress 0 (the tracks' resting values), used
    #: for a synthetic ``cancelled``; None until seen.
    resting_values: Optional[Dict[str, float]] = None

    @property
    def in_flight(self) -> bool:
        return self.phase != IDLE


class Mirror:
    """Apply every message (``apply``) and read ``transitions[name]``.

    ``hello`` and ``state`` reset it from their snapshot (every configured
    transition idle, then each ``active`` one at its phase and progress);
    transition events move it; replies and unknown types change nothing.
    When the connection drops, ``synthetic_cancellations`` closes whatever
    was left half-way."""

    def __init__(self, names: Optional[List[str]] = None):
        #: In the order of the last snapshot's ``transitions``; a transition
        #: first seen in an event is appended.
        self.transitions: Dict[str, TransitionState] = {n: TransitionState(n) for n in names or []}
        #: The seq of the last event applied, or of the last snapshot.
        self.last_seq = 0
        #: The latest event time seen.
        self.last_time = 0.0
        #: The last ``hello`` (None before the first).
        self.hello: Optional[Event] = None

    def __getitem__(self, name: str) -> TransitionState:
        return self.transitions[name]

    def get(self, name: str) -> Optional[TransitionState]:
        return self.transitions.get(name)

    @property
    def in_flight(self) -> List[TransitionState]:
        """The transitions not idle, in order."""
        return [t for t in self.transitions.values() if t.phase != IDLE]

    def apply(self, message: Mapping[str, Any]) -> None:
        kind = message.get("type")
        if kind == "hello":
            self.hello = message if isinstance(message, Event) else Event(dict(message))
            self._reset(message)
        elif kind == "state":
            self._reset(message)
        elif kind in TRANSITION_EVENTS and isinstance(message.get("transition"), str):
            self._apply_event(kind, message)

    def _apply_event(self, kind: str, event: Mapping[str, Any]) -> None:
        name = event["transition"]
        entry = self.transitions.get(name)
        if entry is None:
            entry = self.transitions[name] = TransitionState(name)
        seq = event.get("seq")
        if isinstance(seq, int):
            self.last_seq = seq
        time = event.get("time")
        if isinstance(time, (int, float)):
            self.last_time = max(self.last_time, float(time))
            entry.time = float(time)
        entry.progress = float(event.get("progress", entry.progress))
        entry.velocity = float(event.get("velocity", entry.velocity))
        values = event.get("values")
        entry.values = dict(values) if isinstance(values, dict) else {}
        if entry.progress == 0 and entry.values:
            entry.resting_values = dict(entry.values)
        entry.phase = _PHASE_AFTER[kind]
        if kind == "began":
            entry.decision = entry.reason = entry.target = entry.index = None
        elif kind == "ended":
            entry.decision = event.get("decision")
            entry.reason = event.get("reason")
            target, index = event.get("target"), event.get("index")
            entry.target = float(target) if _is_number(target) else {"finish": 1.0, "cancel": 0.0}.get(entry.decision)
            entry.index = index if isinstance(index, int) and not isinstance(index, bool) else None
        elif kind == "animating":
            if isinstance(event.get("target"), (int, float)):
                entry.target = float(event["target"])
        elif kind == "finished":
            entry.target = None
            entry.finished += 1
            if entry.snap_points is not None:
                entry.rest = entry.progress
        elif kind == "cancelled":
            entry.target = None
            entry.cancelled += 1

    def _reset(self, snapshot: Mapping[str, Any]) -> None:
        previous = self.transitions

        def fresh(name: str) -> TransitionState:
            entry = TransitionState(name)
            old = previous.get(name)
            if old is not None:
                entry.finished, entry.cancelled = old.finished, old.cancelled
                entry.resting_values = old.resting_values
            return entry

        self.transitions = {}
        for info in snapshot.get("transitions") or []:
            if not isinstance(info, dict) or not isinstance(info.get("name"), str):
                continue
            entry = fresh(info["name"])
            entry.gesture = info.get("gesture")
            entry.fingers = info.get("fingers")
            entry.edge = info.get("edge")
            entry.direction = info.get("direction")
            points = info.get("snap_points")
            if isinstance(points, list) and all(_is_number(p) for p in points):
                entry.snap_points = [float(p) for p in points]
            if _is_number(info.get("rest")):
                entry.rest = entry.progress = float(info["rest"])
            self.transitions[entry.name] = entry
        for active in snapshot.get("active") or []:
            if not isinstance(active, dict) or not isinstance(active.get("transition"), str):
                continue
            name = active["transition"]
            entry = self.transitions.get(name)
            if entry is None:
                entry = self.transitions[name] = fresh(name)
            entry.phase = active.get("phase", INTERACTING)
            entry.progress = float(active.get("progress", 0))
            values = active.get("values")
            entry.values = dict(values) if isinstance(values, dict) else {}
            target = active.get("target")
            if entry.phase == ANIMATING and isinstance(target, (int, float)):
                entry.target = float(target)
                entry.decision = "snap" if entry.snap_points is not None else "finish" if target >= 0.5 else "cancel"
        seq = snapshot.get("seq")
        self.last_seq = seq if isinstance(seq, int) else 0

    def synthetic_cancellations(self, time: Optional[float] = None) -> List[Event]:
        """For every transition in flight, a ``cancelled`` at progress 0 (a
        transition with snap points: the point it rests at) and velocity 0
        with ``"synthetic": true``, as ``transitiond subscribe`` prints when
        the connection drops. Seqs continue from ``last_seq``; ``time``
        defaults to the last event's; ``values`` are the resting values
        when seen and the progress is 0, else empty (the client cannot
        evaluate the daemon's keyframe tracks). Apply them to settle the
        mirror."""
        when = self.last_time if time is None else time
        events = []
        for k, entry in enumerate(self.in_flight):
            rest = entry.rest or 0
            values = dict(entry.resting_values or {}) if rest == 0 else {}
            events.append(Event({"type": "cancelled", "transition": entry.name, "seq": self.last_seq + k + 1,
                                 "time": when, "progress": rest, "velocity": 0, "values": values,
                                 "synthetic": True}))
        return events


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
