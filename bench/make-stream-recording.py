#!/usr/bin/env python3
"""Writes the socket fan-out benchmark's input: one evemu 1.3 recording of the
synthetic panel (Recordings/synthesise.py) that keeps the `back` transition
busy at a steady 240 events/s for 60 s.

    python3 bench/make-stream-recording.py [OUTPUT]   (default bench/out/stream-240hz.events)

One finger does left-edge back drags, one after another. Frames come at
exactly 240 per second (frame k at k/240 s, rounded to the microsecond, no
jitter), and the finger's x rises by at least one device unit in every frame,
so every frame while it is down has events and the engine emits one `began`
or `changed` per frame. Each drag (the last one is stretched to end the
file at about 60 s):

- lands within 0.035 of the left edge and covers the 0.02 activation in the
  first few frames (about 20 units per frame), so `began` comes 4-5 frames
  after the touch-down;
- then moves at a constant 1.4-4.4 units per frame (0.08-0.26 of the width
  per second) for 3.2-4.6 s, with a slow sideways drift of a few units, and
  lifts while moving: the release velocity is below the flick velocity, so
  the threshold decides. Drags alternate between finishing (progress
  0.6-0.93) and cancelling (progress 0.35-0.46);
- is followed by the completion animation (0.4 s x the remaining distance,
  0.03-0.18 s), and the next finger lands two frames after the animation
  has ended, so no drag catches an animation in flight.

With `frame_rate = 240` in the config (bench/socket-latency.py writes one)
the animations emit at 240/s too; the only frames without an event are a
drag's touch-down and first 3-4 frames and the frames between the end of an
animation and the next `began` (about 0.03 s per 4 s drag). The recording
ends with the finger lifted and the last animation over, so `--loop` can
repeat it. Deterministic: the same bytes on every run.
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "Recordings"))
sys.dont_write_bytecode = True  # no __pycache__ in Recordings/
import synthesise as syn  # noqa: E402

HZ = 240
LENGTH_S = 60.0
SEED = 240
ACTIVATION = 0.02        # the default `back` activation (normalised x)
DURATION = 0.4           # the default `back` completion duration (s)
LAND_STEP = 20           # units per frame until the activation is covered
X_UNITS = syn.X_MAX      # normalised x = units / X_MAX (minimum 0)


def u(rng, lo, hi):
    return lo + (hi - lo) * rng.random()


def drag(kernel, writer, k, rng, finish, seconds=None):
    """One drag from frame k (touch-down) to its lift frame, `seconds` long
    or a random 3.2-4.6 s. Returns (frame after the lift, progress at
    release)."""
    x0 = round(u(rng, 0.005, 0.035) * X_UNITS)
    y0 = round(u(rng, 0.25, 0.75) * syn.Y_MAX)
    if seconds is None:
        seconds = u(rng, 3.6, 4.6) if finish else u(rng, 3.2, 4.2)
    frames = round(seconds * HZ)
    travel = u(rng, 0.6, 0.93) if finish else u(rng, 0.35, 0.46)
    step = travel * X_UNITS / frames
    assert 1.2 <= step <= 4.5, step
    drift_period = u(rng, 1.0, 2.5) * HZ
    drift = u(rng, 2.0, 6.0)
    landing = ACTIVATION * X_UNITS * 1.25  # covered quickly, then the slow drag
    x, xf = x0, float(x0)
    for i in range(frames + 1):
        if i:
            xf += LAND_STEP if xf - x0 < landing else step
            x = max(x + 1, round(xf))  # every frame moves
        phase = (i % drift_period) / drift_period  # a slow triangle wave
        y = round(y0 + drift * (abs(2 * phase - 1) - 0.5))
        events = kernel.frame({0: (x, y)})
        assert events, "a frame without events"
        writer.frame(round(CLOCK.time(k + i) * 1e6), events)
    p = (x - x0) / X_UNITS
    k += frames + 1
    writer.frame(round(CLOCK.time(k) * 1e6), kernel.frame({}))  # lift
    return k + 1, p


class ExactClock(syn.Clock):
    """synthesise.Clock without jitter: frame k at k / HZ seconds."""

    def __init__(self):
        super().__init__(random.Random(0), HZ, jitter=0.0)


CLOCK = ExactClock()


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(HERE, "out", "stream-240hz.events")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    rng = random.Random(SEED)
    kernel = syn.Kernel(syn.PANEL, first_tracking_id=240)
    tmp = out + ".tmp"
    drags = []
    with open(tmp, "w", encoding="utf-8", newline="\n") as fp:
        writer = syn.EvemuWriter(fp, syn.PANEL)
        k = 0
        finish = True
        while True:
            left = LENGTH_S - k / HZ
            last = left < 2 * 4.8  # a finishing drag that fills the rest
            seconds = None
            if last:
                finish, seconds = True, left - 0.1
            k_next, p = drag(kernel, writer, k, rng, finish, seconds)
            drags.append((k / HZ, p, finish))
            animation = DURATION * ((1 - p) if finish else p)
            # the lift frame is k_next - 1; land 2 frames after the animation's end
            k = k_next - 1 + int(animation * HZ) + 3
            finish = not finish
            if last:
                break
        # Idle frames need no events; the file ends with the last animation.
        end = (k_next - 1) / HZ + animation
    os.replace(tmp, out)
    print("%s: %d events, %d drags (%d finish, %d cancel), touches end at %.2f s, "
          "the last animation at %.2f s" % (
              out, writer.count, len(drags), sum(1 for d in drags if d[2]),
              sum(1 for d in drags if not d[2]), (k_next - 1) / HZ, end))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
