"""How the client's clock relates to the daemon's, for touch to frame.

The daemon's ``clock`` command answers with its ``CLOCK_MONOTONIC`` time.
The client notes when it asked (t0) and when the answer came (t1), on its
own clock (``time.monotonic()``); assuming the answer was made half-way,
the daemon's clock is ahead by ``monotonic - (t0 + t1) / 2``, within half
the round trip ``(t1 - t0) / 2`` either way, however the trip splits
between the two ways. As NTP does, the exchange with the least round trip
among the recent ones wins. The same rule as the Swift client's
``ClockOffset`` (Sources/StreamClient/ClockOffset.swift).

On Linux ``time.monotonic()`` happens to be the daemon's clock, but a
client does not rely on that: the estimate is what it uses.
"""

import math
from typing import List, NamedTuple, Optional


class Exchange(NamedTuple):
    """One exchange: when it ended (client time), the offset it gives and
    half its round trip."""
    end: float
    offset: float
    half: float


class ClockOffset:
    """The estimate: feed it exchanges with :meth:`add`; read
    :attr:`offset` (the daemon's clock minus the client's, seconds; None
    before the first exchange) and :attr:`uncertainty` (half the winning
    exchange's round trip: the most the offset can be off by, drift
    aside). Of the last ``window`` exchanges, none older than
    ``maximum_age`` seconds (clocks drift apart), the one with the least
    round trip wins. Pure: the caller gives the times."""

    def __init__(self, maximum_age: float = 60.0, window: int = 16):
        self.maximum_age = maximum_age
        self.window = max(1, int(window))
        self._recent: List[Exchange] = []
        self._best: Optional[Exchange] = None

    @property
    def offset(self) -> Optional[float]:
        return self._best.offset if self._best is not None else None

    @property
    def uncertainty(self) -> float:
        return self._best.half if self._best is not None else math.inf

    @property
    def exchanges(self) -> int:
        """How many exchanges the estimate chooses from now."""
        return len(self._recent)

    def add(self, sent: float, daemon: float, received: float) -> bool:
        """One exchange: asked at ``sent``, answered with the daemon's time
        ``daemon``, answer received at ``received`` (``sent`` and
        ``received`` on the client's clock). An exchange whose times are
        not finite numbers, or that ends before it began, is ignored.
        Returns whether it became the estimate."""
        try:
            t0, ts, t1 = float(sent), float(daemon), float(received)
        except (TypeError, ValueError):
            return False
        if not (math.isfinite(t0) and math.isfinite(ts) and math.isfinite(t1)) or t1 < t0:
            return False
        exchange = Exchange(end=t1, offset=ts - (t0 + t1) / 2, half=(t1 - t0) / 2)
        self._recent = [e for e in self._recent if t1 - e.end <= self.maximum_age]
        if len(self._recent) >= self.window:
            del self._recent[:len(self._recent) - self.window + 1]
        self._recent.append(exchange)
        self._best = min(self._recent, key=lambda e: e.half)
        return self._best is exchange

    def daemon_time(self, t: float) -> Optional[float]:
        """The daemon's time at client time ``t`` (None before the first exchange)."""
        offset = self.offset
        return None if offset is None else t + offset

    def wants_exchange(self, t: float, interval: float = 10.0) -> bool:
        """Whether a new exchange is due at client time ``t``: none yet, or
        the newest is more than ``interval`` seconds old."""
        return not self._recent or t - self._recent[-1].end > interval

    def __repr__(self) -> str:
        if self._best is None:
            return "ClockOffset(no estimate)"
        return f"ClockOffset({self.offset:+.6f} s ± {self.uncertainty * 1e3:.3f} ms)"
