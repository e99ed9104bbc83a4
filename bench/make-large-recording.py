#!/usr/bin/env python3
"""Writes the throughput benchmark's input: one evemu 1.3 recording of the
synthetic panel (Recordings/synthesise.py) with exactly 1,000,000 `E:` lines.

    python3 bench/make-large-recording.py [OUTPUT]   (default bench/out/large-1M.events)

A long session at 240 Hz: left-edge `back` drags that finish and that cancel,
flicks either way, 3-finger swipes and taps, one after the other with idle
gaps, timestamps rising through the whole file. A last slow one-finger drag is
cut to the length that makes the count exact. Deterministic: the same bytes on
every run.
"""

import copy
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "Recordings"))
sys.dont_write_bytecode = True  # no __pycache__ in Recordings/
import synthesise as syn  # noqa: E402

TARGET = 1_000_000
HZ = 240
SEED = 2024


class FrameBuffer:
    """Collects a gesture's frames so it can be dropped if it does not fit."""

    def __init__(self):
        self.frames, self.count = [], 0

    def frame(self, t_us, events):
        self.frames.append((t_us, events))
        self.count += len(events)


def u(rng, lo, hi):
    return lo + (hi - lo) * rng.random()


# Gestures: each takes the clock, its start time and a random stream and
# returns its fingers (synthesise.Finger, frames of the shared clock).

def back_finish(clock, t0, rng):
    x0, y0 = u(rng, 0.005, 0.04), u(rng, 0.2, 0.8)
    x1, y1, T = u(rng, 0.6, 0.85), y0 + u(rng, -0.05, 0.05), u(rng, 0.6, 1.3)
    path = syn.Path((t0, x0, y0, 0, 0), (t0 + T, x1, y1, u(rng, 0.1, 0.4), 0))
    return [syn.Finger(0, path, clock.frame_after(t0 - 1e-6), clock.frame_after(t0 + T))]


def back_cancel(clock, t0, rng):
    x0, y0 = u(rng, 0.005, 0.04), u(rng, 0.2, 0.8)
    x1, y1, T = u(rng, 0.12, 0.4), y0 + u(rng, -0.04, 0.04), u(rng, 0.3, 0.8)
    path = syn.Path((t0, x0, y0, 0, 0), (t0 + T, x1, y1, 0, 0))
    hold = u(rng, 0.06, 0.25)
    return [syn.Finger(0, path, clock.frame_after(t0 - 1e-6), clock.frame_after(t0 + T + hold))]


def back_flick(clock, t0, rng):
    x0, y0 = u(rng, 0.005, 0.04), u(rng, 0.2, 0.8)
    x1, T = u(rng, 0.2, 0.4), u(rng, 0.08, 0.14)
    path = syn.Path((t0, x0, y0, 0, 0), (t0 + T, x1, y0 + u(rng, -0.02, 0.02), u(rng, 3.0, 4.5), 0))
    return [syn.Finger(0, path, clock.frame_after(t0 - 1e-6), clock.frame_after(t0 + T))]


def back_flick_back(clock, t0, rng):
    x0, y0 = u(rng, 0.005, 0.04), u(rng, 0.2, 0.8)
    x1, T1 = u(rng, 0.6, 0.85), u(rng, 0.5, 1.0)
    x2, T2 = x1 - u(rng, 0.15, 0.25), u(rng, 0.07, 0.11)
    path = syn.Path((t0, x0, y0, 0, 0), (t0 + T1, x1, y0, 0, 0),
                    (t0 + T1 + T2, x2, y0, u(rng, -3.5, -2.5), 0))
    return [syn.Finger(0, path, clock.frame_after(t0 - 1e-6), clock.frame_after(t0 + T1 + T2))]


def swipe3(clock, t0, rng):
    direction = rng.random()
    dx, dy = (0, -1) if direction < 0.6 else (0, 1) if direction < 0.75 else \
        (-1, 0) if direction < 0.9 else (1, 0)
    dist, T = u(rng, 0.3, 0.6), u(rng, 0.35, 0.7)
    cx = 0.5 - dx * dist / 2 + u(rng, -0.05, 0.05)
    cy = 0.5 - dy * dist / 2 + u(rng, -0.05, 0.05)
    land = clock.frame_after(t0 - 1e-6)
    t_move = clock.time(land + 2) + 0.002
    lift = clock.frame_after(t_move + T)
    end_speed = u(rng, 0.2, 0.5)
    fingers = []
    for i, (ox, oy) in enumerate([(-0.1, 0.0), (0.0, -0.02), (0.1, 0.0)]):
        if dx:  # fingers side by side across the direction of travel
            ox, oy = oy, ox * 0.8
        x0, y0 = cx + ox, cy + oy
        path = syn.Path((t_move, x0, y0, 0, 0),
                        (t_move + T, x0 + dx * dist, y0 + dy * dist, dx * end_speed, dy * end_speed))
        fingers.append(syn.Finger(i, path, land + i, lift + i))
    return fingers


def tap(clock, t0, rng):
    x0, y0 = u(rng, 0.1, 0.9), u(rng, 0.1, 0.9)
    T = u(rng, 0.04, 0.15)
    path = syn.Path((t0, x0, y0, 0, 0), (t0 + T, x0 + u(rng, -0.003, 0.003),
                                          y0 + u(rng, -0.003, 0.003), 0, 0))
    return [syn.Finger(0, path, clock.frame_after(t0 - 1e-6), clock.frame_after(t0 + T))]


GESTURES = [  # (cumulative weight, name, builder)
    (0.22, "back drag, finishes", back_finish),
    (0.40, "back drag, cancels", back_cancel),
    (0.50, "back flick, finishes", back_flick),
    (0.60, "back flick back, cancels", back_flick_back),
    (0.75, "3-finger swipe", swipe3),
    (1.00, "tap", tap),
]


def exact_filler(kernel, clock, t0, remaining, writer):
    """A slow one-finger drag whose frames add up to exactly `remaining`
    events: x-only frames carry 3 events (MT X, ABS_X, SYN), x+y frames 5,
    landing and lifting what the kernel says."""
    k = clock.frame_after(t0 - 1e-6)
    x, y = 1800, 1100
    events = kernel.frame({0: (x, y)})
    writer.frame(round(clock.time(k) * 1e6), events)
    left = remaining - len(events) - 4  # lifting: TRACKING_ID, BTN_TOUCH, BTN_TOOL_FINGER, SYN
    while left > 0:
        k += 1
        both = left % 3 != 0  # 3a + 5b = left, greedy
        x, y = x + 1, y + (1 if both else 0)
        events = kernel.frame({0: (x, y)})
        assert len(events) == (5 if both else 3), events
        writer.frame(round(clock.time(k) * 1e6), events)
        left -= len(events)
    assert left == 0
    k += 1
    events = kernel.frame({})
    assert len(events) == 4, events
    writer.frame(round(clock.time(k) * 1e6), events)


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.join(HERE, "out", "large-1M.events")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    pick, clock_rng, noise_rng = random.Random(SEED), random.Random(SEED + 1), random.Random(SEED + 2)
    clock = syn.Clock(clock_rng, HZ)
    kernel = syn.Kernel(syn.PANEL, first_tracking_id=4242)
    made = {}
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fp:
        writer = syn.EvemuWriter(fp, syn.PANEL)
        t = 0.0
        reserve = 300  # left for the exact filler
        while True:
            r = pick.random()
            name, build = next((n, b) for w, n, b in GESTURES if r < w)
            attempts = [(name, build), ("tap", tap)]
            for name, build in attempts:
                saved = copy.deepcopy(kernel)
                buffer = FrameBuffer()
                end = syn.render(kernel, clock, noise_rng, build(clock, t, pick), buffer)
                if writer.count + buffer.count <= TARGET - reserve:
                    break
                kernel = saved
            else:
                break
            for t_us, events in buffer.frames:
                writer.frame(t_us, events)
            made[name] = made.get(name, 0) + 1
            t = end + u(pick, 0.15, 0.8)
        exact_filler(kernel, clock, t, TARGET - writer.count, writer)
        made["final slow drag"] = 1
        total = writer.count
    assert total == TARGET, total
    os.replace(tmp, out)
    print("%s: %d events, %.1f s of touches" % (out, total, t))
    for name, n in made.items():
        print("  %6d  %s" % (n, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
