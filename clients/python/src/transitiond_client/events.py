"""The stream's messages: each one a dict (every field the daemon sent, known
or not) that also remembers the exact line it came from."""

import json
import math
from typing import Any, Dict, Optional, Union

#: The types of transition events (every one carries transition, seq, time,
#: progress, velocity and values).
TRANSITION_EVENTS = ("began", "changed", "ended", "animating", "finished", "cancelled")
#: The types of replies to commands.
REPLY_TYPES = ("pong", "clock", "ok", "state", "error")


class Event(dict):
    """One message of the stream, as the dict ``json.loads`` made of it.

    ``raw`` is the daemon's line exactly as received (bytes, without the
    newline), so a consumer can pass it on unchanged; a synthetic event's
    ``raw`` is encoded the way the daemon encodes its lines.
    ``received_at`` is when the client read the line, on its own clock
    (``time.monotonic()``; None for a synthetic event): the moment a UI
    could first show it, and the end of a ``clock`` exchange."""

    __slots__ = ("raw", "received_at")

    def __init__(self, fields: Dict[str, Any], raw: Optional[bytes] = None,
                 received_at: Optional[float] = None):
        super().__init__(fields)
        self.raw = raw if raw is not None else encode(fields)
        self.received_at = received_at

    @property
    def type(self) -> Optional[str]:
        return self.get("type")

    @property
    def transition(self) -> Optional[str]:
        return self.get("transition")

    @property
    def synthetic(self) -> bool:
        return self.get("synthetic") is True

    @property
    def is_transition_event(self) -> bool:
        return self.get("type") in TRANSITION_EVENTS

    def __repr__(self) -> str:
        return f"Event({dict.__repr__(self)})"


def decode(raw: Union[bytes, str], received_at: Optional[float] = None) -> Optional[Event]:
    """An Event from one line, or None if the line is not a JSON object."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    try:
        fields = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(fields, dict):
        return None
    return Event(fields, raw, received_at)


def format_number(value: float) -> str:
    """A number as the daemon writes it: rounded to 6 decimals, no exponent,
    no trailing zeros, integers without a point."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"not a number: {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    if isinstance(value, int):
        return str(value)
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _encode_value(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_encode_value(str(k))}:{_encode_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_encode_value(v) for v in value) + "]"
    raise TypeError(f"cannot encode {value!r}")


def encode(fields: Dict[str, Any]) -> bytes:
    """A line (without the newline) for a message, compact, in the dict's
    field order, with numbers as the daemon writes them."""
    return _encode_value(fields).encode("utf-8")
