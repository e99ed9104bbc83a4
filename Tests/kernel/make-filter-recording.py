#!/usr/bin/env python3
"""Writes the filter-mode check's input: one evemu 1.3 recording of the
synthetic panel (Recordings/synthesise.py) with touches the UI should get
and one it should not, at 100 frames/s:

- A, 0.10-0.50 s: a drag in the middle (x 0.40 -> 0.60): nobody's, forwarded live;
- B, 1.00-1.40 s: a quick left-edge drag (x 0.01 -> 0.61): `back` claims it
  within the filter's hold, so the UI never sees it;
- C, 2.50-2.54 s: a tap at the left edge, down 40 ms: held (it may become
  `back`), then given to the UI whole, with the same 40 ms between down and up;
- D, 3.00-3.30 s: a drag low in the middle (x 0.30 -> 0.50): forwarded live.

    python3 Tests/kernel/make-filter-recording.py OUTPUT

With --compositor, the compositor check's input instead (Tests/kernel/systemd/
checks.sh), for a panel mounted a quarter turn clockwise (its bottom edge is
the screen's left: udev gives it and its copy the calibration matrix
0 -1 1 1 0 0), in panel positions:

- M, 0.10-0.16 s: a tap in the middle (0.50, 0.50): the screen's middle;
- B, 0.60-1.00 s: a quick drag up from the bottom edge (y 0.99 -> 0.39 at
  x 0.50): the screen's left edge, so `back` claims it;
- Q, 1.60-1.66 s: a tap at (0.25, 0.75): the screen's (0.25, 0.25);
- L, 2.20-2.50 s: a drag right from the left edge (x 0.01 -> 0.61 at
  y 0.50): down from the screen's top edge, nobody's.

    python3 Tests/kernel/make-filter-recording.py --compositor OUTPUT

Deterministic: the same bytes on every run.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "Recordings"))
sys.dont_write_bytecode = True  # no __pycache__ in Recordings/
import synthesise as syn  # noqa: E402

HZ = 100


def drag(kernel, writer, t0, seconds, x0, x1, y):
    """One finger from (x0, y) to (x1, y) over `seconds` from t0 (normalised
    positions), then lifted one frame later."""
    frames = round(seconds * HZ)
    last = None
    for i in range(frames + 1):
        x = round((x0 + (x1 - x0) * i / frames) * syn.X_MAX)
        if x == last:
            x += 1
        last = x
        events = kernel.frame({0: (x, round(y * syn.Y_MAX))})
        writer.frame(round((t0 + i / HZ) * 1e6), events)
    writer.frame(round((t0 + (frames + 1) / HZ) * 1e6), kernel.frame({}))


def drag_y(kernel, writer, t0, seconds, x, y0, y1):
    """One finger from (x, y0) to (x, y1), as drag() along the other axis."""
    frames = round(seconds * HZ)
    last = None
    for i in range(frames + 1):
        y = round((y0 + (y1 - y0) * i / frames) * syn.Y_MAX)
        if y == last:
            y -= 1
        last = y
        events = kernel.frame({0: (round(x * syn.X_MAX), y)})
        writer.frame(round((t0 + i / HZ) * 1e6), events)
    writer.frame(round((t0 + (frames + 1) / HZ) * 1e6), kernel.frame({}))


def tap(kernel, writer, t0, seconds, x, y):
    """A finger down at (x, y) at t0 and up `seconds` later, not moving."""
    writer.frame(round(t0 * 1e6), kernel.frame({0: (round(x * syn.X_MAX), round(y * syn.Y_MAX))}))
    writer.frame(round((t0 + seconds) * 1e6), kernel.frame({}))


def main(argv):
    compositor = len(argv) == 3 and argv[1] == "--compositor"
    if len(argv) != 2 and not compositor:
        print(__doc__, file=sys.stderr)
        return 64
    kernel = syn.Kernel(syn.PANEL, first_tracking_id=500)
    with open(argv[-1], "w", encoding="utf-8", newline="\n") as fp:
        writer = syn.EvemuWriter(fp, syn.PANEL)
        if compositor:
            tap(kernel, writer, 0.10, 0.06, 0.50, 0.50)          # M
            drag_y(kernel, writer, 0.60, 0.40, 0.50, 0.99, 0.39)  # B
            tap(kernel, writer, 1.60, 0.06, 0.25, 0.75)          # Q
            drag(kernel, writer, 2.20, 0.30, 0.01, 0.61, 0.50)   # L
            return 0
        drag(kernel, writer, 0.10, 0.40, 0.40, 0.60, 0.50)   # A
        drag(kernel, writer, 1.00, 0.40, 0.01, 0.61, 0.50)   # B
        tap(kernel, writer, 2.50, 0.04, 0.01, 0.30)          # C
        drag(kernel, writer, 3.00, 0.30, 0.30, 0.50, 0.80)   # D
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
