"""Touch to frame from the Python client: the estimate of the daemon's
clock (on a virtual clock, then against a real daemon) and frame reports
joined by a real daemon to the input behind each line, read back from its
``/metrics`` (``transitiond replay --socket … --metrics …`` at real pace)."""

import asyncio
import random
import re
import sys
import time
from typing import Dict, Tuple

import pytest

import transitiond_client as tc
from daemon_process import where

#: Every wait on the daemon is bounded by this (seconds).
WAIT = 15
#: The lines that input makes, which a report joins (``animating`` is the
#: daemon's own animation).
INPUT_MADE = ("began", "changed", "ended")
#: How much more than the delay reported, the daemon's own input-to-write
#: time and the estimate's error the mean sample may be: the delivery of a
#: line to this process. Measured at 0.05 to 1.2 ms on a busy machine; a
#: join one line off would add a step's interval (about 6 ms in this
#: recording).
DELIVERY = 0.005
HISTOGRAM = "transitiond_touch_to_frame_seconds"
INPUT_TO_WRITE = "transitiond_input_to_write_seconds"


# MARK: The estimate on a virtual clock


def virtual_exchanges(clock: tc.ClockOffset, count: int, offset: float, rate: float = 1.0, seed: int = 29):
    """A client asking every half second; the daemon's clock is ``offset``
    ahead (running ``rate`` times as fast); each way takes its own random
    time, the way back much longer now and then (a busy loop). Returns, per
    exchange, the estimate's error at its end and its uncertainty then."""
    rng = random.Random(seed)
    log = []
    t = 5.0
    for _ in range(count):
        up = 0.0001 + rng.random() * 0.003
        down = 0.0001 + rng.random() * (0.025 if rng.randrange(4) == 0 else 0.002)
        clock.add(t, (t + up) * rate + offset, t + up + down)
        now = t + up + down
        log.append((clock.daemon_time(now) - (now * rate + offset), clock.uncertainty))
        t += 0.5
    return log


def test_a_known_offset_is_recovered_within_the_best_round_trips_half():
    clock = tc.ClockOffset()
    log = virtual_exchanges(clock, 200, 1234.5)
    assert clock.offset is not None
    # Whatever the split of a trip, the truth is within its half of the estimate.
    assert all(abs(error) <= uncertainty + 1e-9 for error, uncertainty in log)
    assert abs(clock.offset - 1234.5) <= clock.uncertainty + 1e-9
    # The best of the last 16 trips of 0.2 to 28 ms: well under a millisecond.
    assert clock.uncertainty < 0.001, clock
    # The trips were uneven: the plain mean of the exchanges' offsets would be off.
    assert clock.exchanges == 16


def test_a_longer_trip_never_replaces_a_shorter_one_until_it_is_stale():
    clock = tc.ClockOffset(maximum_age=60)
    assert clock.add(10, 110.0005, 10.001)
    assert not clock.add(11, 111.004, 11.010), "a 10 ms trip after a 1 ms one"
    assert clock.offset == 100 and abs(clock.uncertainty - 0.0005) < 1e-9
    assert not clock.wants_exchange(15) and clock.wants_exchange(22)
    assert clock.add(80, 180.006, 80.010), "the 1 ms trip is 70 s old"
    assert abs(clock.offset - 100.001) < 1e-9 and abs(clock.uncertainty - 0.005) < 1e-9


def test_the_window_forgets_the_oldest():
    clock = tc.ClockOffset(maximum_age=1000, window=3)
    clock.add(0, 100.0001, 0.0002)
    for k in range(1, 4):
        clock.add(k, k + 100.005, k + 0.01)
    assert abs(clock.uncertainty - 0.005) < 1e-9, "the best trip left the window"


def test_drift_is_followed():
    # 100 ppm apart: 6 ms a minute. Stale estimates give way.
    clock = tc.ClockOffset(maximum_age=20)
    log = virtual_exchanges(clock, 2000, -50, rate=1.0001, seed=7)
    assert max(abs(error) for error, _ in log[10:]) < 0.004


def test_nonsense_is_ignored():
    clock = tc.ClockOffset()
    assert not clock.add(2, 5, 1)
    assert not clock.add(float("nan"), 5, 1)
    assert not clock.add(1, float("inf"), 2)
    assert not clock.add(1, None, 2)
    assert clock.offset is None and clock.daemon_time(3) is None and clock.wants_exchange(0)
    assert clock.uncertainty == float("inf")


# MARK: Against the daemon


def scrape(daemon) -> Dict[Tuple[str, str], float]:
    """The daemon's metrics: ``(name, labels)`` → value (labels as written,
    without the braces)."""
    samples = {}
    for line in daemon.scrape().splitlines():
        match = re.match(r"^([a-z_]+)(?:\{(.*)\})? (\S+)$", line)
        if match:
            samples[(match.group(1), match.group(2) or "")] = float(match.group(3))
    return samples


class Histogram:
    """One series of a histogram in a scrape."""

    def __init__(self, samples, name: str, labels: str = ""):
        self.count = samples.get((f"{name}_count", labels), 0.0)
        self.sum = samples.get((f"{name}_sum", labels), 0.0)
        prefix = labels + "," if labels else ""
        self.buckets = {}
        for (metric, where_), value in samples.items():
            if metric == f"{name}_bucket" and where_.startswith(prefix + 'le="'):
                self.buckets[where_[len(prefix) + 4:-1]] = value

    @property
    def mean(self) -> float:
        return self.sum / self.count if self.count else float("nan")

    def at_most(self, le: str) -> float:
        return self.buckets[le]


def touch_to_frame(samples, transport: str) -> Histogram:
    return Histogram(samples, HISTOGRAM, f'transport="{transport}"')


async def paced_replay(launcher, transport: str):
    """A replay at real pace, waiting for its client, serving metrics, held
    after its end (commands and /metrics still answer); and its client."""
    daemon = launcher.replay(pace="1", wait_clients=1, hold=True, metrics=True,
                             websocket=transport == "websocket")
    client = await tc.connect(**where(daemon, transport))
    return daemon, client


async def reports_at_delay(client, delay: float, kinds=INPUT_MADE):
    """Reads the replay to its end; each line of ``kinds`` is reported as
    presented ``delay`` after this client read it. Returns the lines
    reported (after the daemon has taken every report: a ping's reply comes
    after them)."""
    await client.sync_clock()
    reported = []
    async for event in client:
        if event.type in kinds:
            await client.report_frame(event["seq"], event.received_at + delay)
            reported.append(event)
        if event.type in ("finished", "cancelled"):
            break
    await client.ping()
    return reported


async def test_sync_clock_agrees_with_the_daemon(launcher, transport):
    from test_client import QUIET
    daemon = launcher.replay(QUIET, hold=True, websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as client:
        assert client.clock.offset is None
        clock = await client.sync_clock(exchanges=8)
        assert clock is client.clock and clock.exchanges == 8
        assert 0 < clock.uncertainty < 0.05, clock
        reply = await client.command({"cmd": "clock", "id": 7})
        assert reply.type == "clock" and reply["id"] == 7 and isinstance(reply["monotonic"], float)
        if sys.platform.startswith("linux"):
            # Here time.monotonic() is the daemon's clock: the truth is 0,
            # and it is within the estimate's error (the daemon writes
            # microseconds: half of one more).
            assert abs(clock.offset) <= clock.uncertainty + 1e-6, clock
        # The client's read of the daemon's time now brackets its answer.
        before = clock.daemon_time(time.monotonic())
        reply = await client.command({"cmd": "clock"})
        after = clock.daemon_time(reply.received_at)
        slack = clock.uncertainty + 1e-6
        assert before - slack <= reply["monotonic"] <= after + slack


async def test_the_join_is_the_delay_reported(launcher, transport):
    """A frame reported ``delay`` after each input line was read: the
    samples are the delay plus the daemon's own input-to-write time plus
    the line's delivery, within the clock estimate's error; a delay 80 ms
    longer moves them by 80 ms."""
    runs = []
    for delay in (0.040, 0.120):
        daemon, client = await paced_replay(launcher, transport)
        async with client:
            reported = await reports_at_delay(client, delay)
            samples = scrape(daemon)
            runs.append((delay, reported, client.clock.uncertainty, samples))
        daemon.stop()
    other = "unix" if transport == "websocket" else "websocket"
    means = []
    for delay, reported, uncertainty, samples in runs:
        assert len(reported) > 100, "a drag of a hundred lines and more"
        frames = touch_to_frame(samples, transport)
        own = Histogram(samples, INPUT_TO_WRITE)
        figures = (f"{delay * 1e3:.0f} ms: {frames.count:.0f} samples, mean {frames.mean * 1e3:.3f} ms; "
                   f"input to write {own.mean * 1e3:.3f} ms; estimate ± {uncertainty * 1e3:.3f} ms")
        print(figures)
        # Every line reported joins: input made each one.
        assert frames.count == len(reported), figures
        assert touch_to_frame(samples, other).count == 0, "samples go to the reporting client's transport"
        # Each sample is above the delay less the estimate's error.
        below = "0.025" if delay == 0.040 else "0.1"
        assert frames.at_most(below) == 0, figures
        assert frames.at_most("0.25") == frames.count, figures
        excess = frames.mean - delay - own.mean
        assert -uncertainty - 0.0005 <= excess <= uncertainty + DELIVERY, figures
        means.append((frames.mean, own.mean, uncertainty))
    (first, own1, u1), (second, own2, u2) = means
    moved = second - first - (own2 - own1)
    assert abs(moved - 0.080) <= u1 + u2 + DELIVERY, f"moved {moved * 1e3:.3f} ms"


async def test_reports_of_animation_lines_join_nothing(launcher):
    daemon, client = await paced_replay(launcher, "unix")
    async with client:
        reported = await reports_at_delay(client, 0.040, kinds=("animating", "finished"))
        assert [e.type for e in reported].count("animating") > 0
        assert touch_to_frame(scrape(daemon), "unix").count == 0


async def test_a_seq_counts_once_and_only_rising(launcher):
    daemon, client = await paced_replay(launcher, "unix")
    async with client:
        await client.sync_clock()
        lines = []
        async for event in client:
            if event.type in INPUT_MADE:
                lines.append(event)
            if event.type == "finished":
                break
        middle, last = lines[len(lines) // 2], lines[-1]
        at = lambda e: e.received_at + 0.040
        assert await client.report_frames([(middle["seq"], at(middle)), (middle["seq"], at(middle))],
                                          confirm=True) == 2
        await client.report_frame(lines[1]["seq"], at(lines[1]), confirm=True)     # older: not counted
        await client.report_frame(last["seq"], at(last), confirm=True)
        await client.report_frame(last["seq"], at(last), confirm=True)             # again: not counted
        assert touch_to_frame(scrape(daemon), "unix").count == 2


async def test_a_bad_frames_line_is_refused_with_bad_field(launcher, transport):
    from test_client import QUIET
    daemon = launcher.replay(QUIET, hold=True, websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as client:
        for frames in ([], [[1, 2.0]] * 65, [[1]], [["a", 2.0]], "frames", [[1, "now"]]):
            with pytest.raises(tc.CommandError) as refused:
                await client.command({"cmd": "frames", "frames": frames})
            assert refused.value.code == "bad-field", frames
            assert refused.value.reply["cmd"] == "frames"
        assert "1 to 64 [seq, time] pairs" in refused.value.message
        # Without an id the refusal comes in the stream.
        await client._transport.send({"cmd": "frames", "frames": []})
        error = (await client.wait_for(lambda e: e.type == "error", WAIT))[-1]
        assert error["code"] == "bad-field" and error["cmd"] == "frames" and "id" not in error
        # The client batches: 100 pairs are two commands, both taken; with
        # no estimate yet, it made one first.
        assert client.clock.offset is None
        assert await client.report_frames([(k, None) for k in range(1, 101)], confirm=True) == 100
        assert client.clock.offset is not None and client.clock.exchanges == 5
        # What the client itself refuses, before any line is sent.
        for pair in ((-1, None), (1.5, None), (True, None), (1, float("nan"))):
            with pytest.raises(ValueError):
                await client.report_frame(*pair)
        assert await client.report_frames([]) == 0
        # A good report without id gets no reply: by the ping's, which the
        # daemon sends after it, nothing came.
        await client.report_frame(200)
        assert (await client.ping())["type"] == "pong"
        assert client._queue.empty()
