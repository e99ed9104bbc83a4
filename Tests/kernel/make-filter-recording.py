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

With --libinput, the filter-libinput check's input (Tests/kernel/systemd/
checks.sh: `[filter]` max_contacts = 1, palm_mm = 30, ghost_touches =
"quarantine", transform = true, `[input] rotation = 90`), for a panel that
also declares ABS_MT_TOUCH_MAJOR (0-255 at 4 units/mm: a finger is 8 mm,
32 units; a palm 50 mm, 200) and ABS_MT_TOOL_TYPE, in panel positions
(rotated a quarter turn clockwise, the screen's (x, y) is the panel's
(1 - y, x)):

- G, five still taps at (0.85, 0.15), each down 20 ms, every 1.5 s from
  0.20 s (0.20, 1.70, 3.20, 4.70, 6.20): a ghost's pattern, so the first two
  reach the UI and the third on are quarantined;
- A, 0.40-1.30 s: a drag (x 0.20 -> 0.60 at y 0.40); a second finger S
  lands at (0.70, 0.70) at 0.70 s, rests, and lifts at 1.00 s, A still down:
  max_contacts = 1 withholds S, and A goes on unbroken;
- P, 1.90-2.10 s: a contact the panel reports as MT_TOOL_PALM from its
  first frame, moving a little (x 0.50 -> 0.55 at y 0.50);
- W, 2.40-2.60 s: a contact 50 mm wide from its first frame (x 0.40 -> 0.45
  at y 0.30): over palm_mm;
- C, 3.40-3.90 s: a drag (x 0.30 -> 0.70 at y 0.60), 8 mm wide until
  3.64 s (x 0.492), 50 mm from 3.65 s (x 0.50) on: it becomes a palm
  mid-touch and must end on the copy there;
- R, 6.50-6.60 s: a touch resting at (0.30, 0.85), the screen's
  (0.15, 0.30): the last touch, after the last ghost tap.

The UI's copy gets G, A, G, C (cut) and R, in that order.

    python3 Tests/kernel/make-filter-recording.py --libinput OUTPUT

With --block, the filter-block check's input (Tests/kernel/systemd/checks.sh:
`[filter] block = ["pinch"]`, the hold 80 ms), the plain panel, in panel
positions (the screen's too: no rotation), each finger 0.01 to 0.012 of the
screen a frame while it moves:

- P, 0.20-0.42 s: a quick pinch out: a finger lands at (0.45, 0.50), a
  second at (0.55, 0.50) 60 ms later; from then on both move apart
  (0.012 a frame each, their spread 0.012 a frame) to (0.27, 0.50) and
  (0.73, 0.50) at 0.41 s and lift together. The spread has grown 0.024
  20 ms after the second lands, well within its hold: blocked, the UI gets
  the first finger alone, whole, down to up;
- T, 1.20-1.33 s: a still two-finger tap, (0.30, 0.30) and, 20 ms later,
  (0.40, 0.30), lifted together: no gesture, both reach the UI (the
  second after its hold);
- S, 2.20-2.53 s: a two-finger swipe up, (0.30, 0.70) and, 20 ms later,
  (0.45, 0.70), each moving 0.01 a frame from its landing to y 0.40,
  lifted together: the centroid moves, the spread does not, so it is no
  pinch, and both reach the UI.

    python3 Tests/kernel/make-filter-recording.py --block OUTPUT

With --block-pinch, P alone (the same frames, the same times).

Deterministic: the same bytes on every run.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "Recordings"))
sys.dont_write_bytecode = True  # no __pycache__ in Recordings/
import synthesise as syn  # noqa: E402

HZ = 100

ABS_MT_TOUCH_MAJOR, ABS_MT_TOOL_TYPE = 0x30, 0x37
MT_TOOL_FINGER, MT_TOOL_PALM = 0, 2
MAJOR_RESOLUTION = 4  # ABS_MT_TOUCH_MAJOR's units per mm
FINGER, PALM = 8 * MAJOR_RESOLUTION, 50 * MAJOR_RESOLUTION  # 8 mm, 50 mm


def drag(kernel, writer, t0, seconds, x0, x1, y):
    """One finger from (x0, y) to (x1, y) over `seconds` from t0 (normalised
    positions), then lifted one frame later."""
    syn.frame_by_frame_stroke(kernel, writer, t0, seconds, HZ, x0, x1, y)


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


# --libinput: the panel with a contact's width and tool type (syn.Kernel
# streams them as the kernel does, in a driver's order, given per finger as
# (x, y, {code: value})).
syn.CODE_NAMES[syn.EV_ABS].update({ABS_MT_TOUCH_MAJOR: "ABS_MT_TOUCH_MAJOR",
                                   ABS_MT_TOOL_TYPE: "ABS_MT_TOOL_TYPE"})
CONTACT_PANEL = syn.Device(
    name=syn.PANEL.name, bus=syn.PANEL.bus, vendor=syn.PANEL.vendor,
    product=syn.PANEL.product, version=syn.PANEL.version, keys=syn.PANEL.keys,
    absinfo={**syn.PANEL.absinfo,
             ABS_MT_TOUCH_MAJOR: syn.AbsInfo(0, 255, resolution=MAJOR_RESOLUTION),
             ABS_MT_TOOL_TYPE: syn.AbsInfo(MT_TOOL_FINGER, MT_TOOL_PALM)},
    props=syn.PANEL.props, slots=syn.PANEL.slots)


def contact_scene(kernel, writer):
    """--libinput's touches (the docstring): each finger's (x, y, major,
    tool) frame by frame at HZ, every finger of a frame together."""
    frames = {}  # frame number -> {finger: (x, y, {ABS_MT_TOUCH_MAJOR: major, ABS_MT_TOOL_TYPE: tool})}

    def put(finger, k, x, y, major=FINGER, tool=MT_TOOL_FINGER):
        frames.setdefault(k, {})[finger] = (round(x * syn.X_MAX), round(y * syn.Y_MAX),
                                            {ABS_MT_TOUCH_MAJOR: major, ABS_MT_TOOL_TYPE: tool})

    def still(finger, t0, seconds, x, y):
        for k in range(round(t0 * HZ), round((t0 + seconds) * HZ)):
            put(finger, k, x, y)

    def moving(finger, t0, seconds, x0, x1, y, width=lambda i: FINGER, tool=MT_TOOL_FINGER):
        n = round(seconds * HZ)
        for i in range(n + 1):
            put(finger, round(t0 * HZ) + i, x0 + (x1 - x0) * i / n, y, width(i), tool)

    for n, t in enumerate((0.20, 1.70, 3.20, 4.70, 6.20)):
        still("G%d" % n, t, 0.02, 0.85, 0.15)                          # G
    moving("A", 0.40, 0.90, 0.20, 0.60, 0.40)                           # A
    still("S", 0.70, 0.30, 0.70, 0.70)                                  # S
    moving("P", 1.90, 0.20, 0.50, 0.55, 0.50, tool=MT_TOOL_PALM)        # P
    moving("W", 2.40, 0.20, 0.40, 0.45, 0.30, width=lambda i: PALM)    # W
    moving("C", 3.40, 0.50, 0.30, 0.70, 0.60,
           width=lambda i: FINGER if i < 25 else PALM)                  # C
    still("R", 6.50, 0.10, 0.30, 0.85)                                  # R
    for k in range(min(frames), max(frames) + 2):
        events = kernel.frame(frames.get(k, {}))
        if events:
            writer.frame(round(k / HZ * 1e6), events)


def block_scene(kernel, writer, pinch_only=False):
    """--block's touches (the docstring), or P alone: each finger's (x, y)
    frame by frame at HZ, every finger of a frame together."""
    frames = {}  # frame number -> {finger: (x, y)}

    def put(finger, k, x, y):
        frames.setdefault(k, {})[finger] = (round(x * syn.X_MAX), round(y * syn.Y_MAX))

    # P: the first finger still 60 ms, then both apart, 0.012 a frame each.
    for k in range(20, 26):
        put("P1", k, 0.45, 0.50)
    for i in range(16):
        put("P1", 26 + i, 0.45 - 0.012 * i, 0.50)
        put("P2", 26 + i, 0.55 + 0.012 * i, 0.50)
    if not pinch_only:
        # T: still, the second 20 ms after the first, lifted together.
        for k in range(120, 133):
            put("T1", k, 0.30, 0.30)
            if k >= 122:
                put("T2", k, 0.40, 0.30)
        # S: up 0.01 a frame from each landing, the second 20 ms later.
        for k in range(220, 253):
            put("S1", k, 0.30, max(0.40, 0.70 - 0.01 * (k - 220)))
            if k >= 222:
                put("S2", k, 0.45, max(0.40, 0.70 - 0.01 * (k - 222)))
    for k in range(min(frames), max(frames) + 2):
        events = kernel.frame(frames.get(k, {}))
        if events:
            writer.frame(round(k / HZ * 1e6), events)


def main(argv):
    modes = ("--compositor", "--libinput", "--block", "--block-pinch")
    mode = argv[1] if len(argv) == 3 and argv[1] in modes else None
    compositor = mode == "--compositor"
    if len(argv) != 2 and mode is None:
        print(__doc__, file=sys.stderr)
        return 64
    if mode in ("--block", "--block-pinch"):
        with open(argv[-1], "w", encoding="utf-8", newline="\n") as fp:
            block_scene(syn.Kernel(syn.PANEL, first_tracking_id=500), syn.EvemuWriter(fp, syn.PANEL),
                        pinch_only=mode == "--block-pinch")
        return 0
    if mode == "--libinput":
        with open(argv[-1], "w", encoding="utf-8", newline="\n") as fp:
            contact_scene(syn.Kernel(CONTACT_PANEL, first_tracking_id=500), syn.EvemuWriter(fp, CONTACT_PANEL))
        return 0
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
