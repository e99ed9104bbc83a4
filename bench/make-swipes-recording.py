#!/usr/bin/env python3
"""Writes the lisgd comparison's input (bench/lisgd.sh): one evemu 1.3
recording of left-edge swipes on a touchscreen described like a
"Wacom ISDv4 E6 Finger" (an MT protocol B panel of two slots with the
kernel's ABS_X/ABS_Y and BTN_TOUCH pointer emulation, INPUT_PROP_DIRECT).

    python3 bench/make-swipes-recording.py [--swipes N] OUTPUT

Each swipe is one finger landing within 0.5-1.5 % of the width of the left
edge, somewhere in the middle 60 % of the height, and dragging inwards to
55-65 % of the width in 0.28-0.32 s with a little vertical drift, still
moving when it lifts (as a real swipe does: a flick for transitiond, a
plain L->R drag for lisgd). 0.13-0.17 s later the next finger lands. The
panel reports at HZ with +-0.8 ms of jitter; positions carry up to +-2
units of noise (Recordings/synthesise.py's clock, sensor model, kernel
emulation and evemu writer). At 100 swipes that is about 42,000 events in 45 s.

Both daemons under test should recognise every swipe: each starts at the
left edge (lisgd's L edge, transitiond's edge_margin 0.05), is far longer
than lisgd's distance threshold and ends within its 2 s timeout, and
finishes `back` (p about 0.6 and a release velocity over the flick
velocity). Deterministic: the same bytes on every run (a seeded
random.Random, nothing from the clock or the host).
"""

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "Recordings"))
sys.dont_write_bytecode = True  # no __pycache__ in Recordings/
import synthesise as syn  # noqa: E402

SEED = 32          # issue 32's benchmark
# The report rate: chosen so that 100 swipes come to 40-45 thousand events
# (five events a frame while the finger moves: both MT axes, the pointer
# emulation's ABS_X/ABS_Y, the SYN_REPORT).
HZ = 320
X_MAX, Y_MAX = 2776, 1569  # about 277 x 157 mm at 10 units/mm (12.5" 16:9)
RESOLUTION = 10

PANEL = syn.Device(
    name="Wacom ISDv4 E6 Finger",
    bus=0x03, vendor=0x056A, product=0x00E6, version=0x0100,  # BUS_USB
    keys=[syn.BTN_TOUCH, syn.BTN_TOOL_FINGER, syn.BTN_TOOL_DOUBLETAP],
    absinfo={
        syn.ABS_X: syn.AbsInfo(0, X_MAX, resolution=RESOLUTION),
        syn.ABS_Y: syn.AbsInfo(0, Y_MAX, resolution=RESOLUTION),
        syn.ABS_MT_SLOT: syn.AbsInfo(0, 1),
        syn.ABS_MT_POSITION_X: syn.AbsInfo(0, X_MAX, resolution=RESOLUTION),
        syn.ABS_MT_POSITION_Y: syn.AbsInfo(0, Y_MAX, resolution=RESOLUTION),
        syn.ABS_MT_TRACKING_ID: syn.AbsInfo(0, 65535),
    },
    props=[syn.INPUT_PROP_DIRECT],
    slots=2,
)


def u(rng, lo, hi):
    return lo + (hi - lo) * rng.random()


def swipe(rng, t0):
    """(path, touch-down time, lift time) of one swipe starting at t0 (s);
    the path's times are relative to the touch-down."""
    x0, y0 = u(rng, 0.005, 0.015), u(rng, 0.2, 0.8)
    seconds = u(rng, 0.28, 0.32)
    x1, y1 = u(rng, 0.55, 0.65), y0 + u(rng, -0.03, 0.03)
    # Still moving at the lift at about half the mean speed: a minimum-jerk
    # path from rest to that velocity.
    vx = 0.5 * (x1 - x0) / seconds
    path = syn.Path((0.0, x0, y0, 0.0, 0.0), (seconds, x1, y1, vx, 0.0))
    return path, t0, t0 + seconds


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--swipes", type=int, default=100)
    parser.add_argument("output")
    args = parser.parse_args(argv[1:])
    rng = random.Random(SEED)
    clock = syn.Clock(random.Random(SEED + 1), HZ)
    noise = random.Random(SEED + 2)
    kernel = syn.Kernel(PANEL, first_tracking_id=SEED)
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fp:
        writer = syn.EvemuWriter(fp, PANEL)
        k, t = 0, 0.0
        for _ in range(args.swipes):
            path, land, lift = swipe(rng, t)
            k = clock.frame_after(land) if k else 0  # the touch-down frame
            down = clock.time(k)
            while True:
                tk = clock.time(k)
                if tk - down >= lift - land:
                    break
                x, y, speed = path.at(tk - down)
                touch = (syn.sensor_units(noise, x, X_MAX, speed), syn.sensor_units(noise, y, Y_MAX, speed))
                events = kernel.frame({0: touch})
                if events:
                    writer.frame(round(tk * 1e6), events)
                k += 1
            writer.frame(round(clock.time(k) * 1e6), kernel.frame({}))  # the lift
            t = clock.time(k) + u(rng, 0.13, 0.17)
    os.replace(tmp, args.output)
    print("%s: %d events, %d swipes, %.1f s" % (args.output, writer.count, args.swipes, clock.time(k)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
