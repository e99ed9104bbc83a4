#!/usr/bin/env python3
"""Writes the replay-throughput benchmark's recordings of other shapes than
bench/make-large-recording.py's, each about 1,000,000 `E:` lines, so that
start-up does not matter:

    python3 bench/make-shape-recordings.py OUTDIR [RECORDINGS_DIR]

- `atmel-4-finger-B.events`: the Atmel maXTouch four-finger drag (multitouch
  protocol B, dense: four contacts in most frames, every line with evemu's
  trailing `# EV_ABS / ...` comment), tiled.
- `ntrig-A.events`: the N-Trig two-finger touch and release (multitouch
  protocol A: `SYN_MT_REPORT` packets, no slots), its description then its
  events, tiled.
- `ep0430-1-finger.events`: the EP0430M09 one-finger drag (protocol B, one
  contact, evemu's comments), tiled.
- `single-touch.events`: synthesised: the gestures of the large recording
  that need one finger, on a panel with only BTN_TOUCH, ABS_X and ABS_Y (no
  multitouch axes), at 240 Hz.

The real recordings are the third-party ones described in
`../shared/recordings/README.md` (RECORDINGS_DIR defaults to
`../shared/recordings/evemu-devices` beside the checkout); they are read
there, never copied into the project. A tiled file is the source's header
(or its `.desc`) followed by copies of its events, each line byte for byte
but its time stamp: copy k starts 0.5 s after copy k-1 ended, so time rises
through the file. Deterministic: the same bytes on every run.
"""

import importlib.util
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "Recordings"))
sys.dont_write_bytecode = True  # no __pycache__ in Recordings/ or bench/
import synthesise as syn  # noqa: E402

TARGET = 1_000_000
GAP_US = 500_000  # between the end of one copy and the start of the next
SEED = 2025

# (output name, source events, separate description or None)
TILED = [
    ("atmel-4-finger-B.events", "Atmel maXTouch Touchscreen.4-finger-drag-down.events", None),
    ("ntrig-A.events", "N-Trig MultiTouch.2-fingers-touch-release.events", "N-Trig MultiTouch.desc"),
    ("ep0430-1-finger.events", "EP0430M09.1-finger-drag-up-down.events", None),
]
SINGLE_TOUCH = "single-touch.events"


# MARK: Tiling a real recording

def split_recording(text):
    """(header lines, [(time in µs, rest of the line after the stamp)]) of
    an evemu file: everything before the first `E:` line is the header;
    comment lines among the events are dropped."""
    header, events = [], []
    for line in text.splitlines():
        if line.startswith("E:"):
            stamp, rest = line[2:].lstrip().split(None, 1)
            seconds, micros = stamp.split(".")
            events.append((int(seconds) * 1_000_000 + int(micros.ljust(6, "0")[:6]), rest))
        elif not events:
            header.append(line)
    return header, events


def tile(out, source, description=None, target=TARGET):
    """Writes the header (the description's when given) and whole copies of
    the source's events until at least `target` events. Returns the count."""
    header, events = split_recording(read_text(source))
    if description:
        header = read_text(description).splitlines()
    first, last = events[0][0], events[-1][0]
    copies = -(-target // len(events))
    with open_output(out) as fp:
        fp.write("\n".join(header) + "\n")
        for k in range(copies):
            offset = k * (last - first + GAP_US) - first + 1  # the first event at 0.000001
            fp.write("".join("E: %d.%06d %s\n" % (*divmod(t + offset, 1_000_000), rest)
                             for t, rest in events))
    return copies * len(events)


def read_text(path):
    with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as fp:
        return fp.read()


class open_output:
    """A file written under a temporary name and moved into place when
    complete, so an interrupted run leaves no half file behind."""

    def __init__(self, path):
        self.path, self.tmp = path, path + ".tmp"

    def __enter__(self):
        self.fp = open(self.tmp, "w", encoding="utf-8", errors="surrogateescape", newline="\n")
        return self.fp

    def __exit__(self, kind, value, trace):
        self.fp.close()
        if kind is None:
            os.replace(self.tmp, self.path)
        else:
            os.unlink(self.tmp)


# MARK: Synthesising a single-touch panel

SINGLE_TOUCH_PANEL = syn.Device(
    name="transitiond synthetic single-touch panel",
    bus=0x18, vendor=0x0000, product=0x0000, version=0x0000,
    keys=[syn.BTN_TOUCH],
    absinfo={
        syn.ABS_X: syn.AbsInfo(0, syn.X_MAX, resolution=syn.RESOLUTION),
        syn.ABS_Y: syn.AbsInfo(0, syn.Y_MAX, resolution=syn.RESOLUTION),
    },
    props=[syn.INPUT_PROP_DIRECT],
    slots=0,
)


class SingleTouchKernel:
    """What the input core passes on for a single-touch driver: BTN_TOUCH
    when the contact lands or lifts, ABS_X/ABS_Y when they change, then
    SYN_REPORT; nothing for a frame where nothing changed."""

    def __init__(self):
        self.touching, self.x, self.y = False, None, None

    def frame(self, touches):
        out = []
        if touches:
            x, y = next(iter(touches.values()))
            if not self.touching:
                out.append((syn.EV_KEY, syn.BTN_TOUCH, 1))
            if x != self.x:
                out.append((syn.EV_ABS, syn.ABS_X, x))
            if y != self.y:
                out.append((syn.EV_ABS, syn.ABS_Y, y))
            self.x, self.y = x, y
        elif self.touching:
            out.append((syn.EV_KEY, syn.BTN_TOUCH, 0))
        self.touching = bool(touches)
        if out:
            out.append((syn.EV_SYN, syn.SYN_REPORT, 0))
        return out


def large_recording_gestures():
    """make-large-recording.py's one-finger gestures, with their weights
    made cumulative again without the 3-finger swipe."""
    spec = importlib.util.spec_from_file_location("large", os.path.join(HERE, "make-large-recording.py"))
    large = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(large)
    kept, total, previous = [], 0.0, 0.0
    for weight, name, build in large.GESTURES:
        if build is not large.swipe3:
            total += weight - previous
            kept.append((total, name, build))
        previous = weight
    return [(w / total, name, build) for w, name, build in kept], large.u


def single_touch(out, target=TARGET):
    """A 240 Hz session of back drags, flicks and taps on the single-touch
    panel, until at least `target` events. Returns the count."""
    gestures, u = large_recording_gestures()
    pick, clock_rng, noise_rng = random.Random(SEED), random.Random(SEED + 1), random.Random(SEED + 2)
    clock = syn.Clock(clock_rng, 240)
    kernel = SingleTouchKernel()
    with open_output(out) as fp:
        writer = syn.EvemuWriter(fp, SINGLE_TOUCH_PANEL)
        t = 0.0
        while writer.count < target:
            r = pick.random()
            build = next(b for w, _, b in gestures if r < w)
            t = syn.render(kernel, clock, noise_rng, build(clock, t, pick), writer) + u(pick, 0.15, 0.8)
        return writer.count


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out = argv[1]
    source = argv[2] if len(argv) > 2 else os.path.join(HERE, os.pardir, os.pardir, "shared", "recordings",
                                                        "evemu-devices")
    os.makedirs(out, exist_ok=True)
    for name, events, description in TILED:
        count = tile(os.path.join(out, name), os.path.join(source, events),
                     description and os.path.join(source, description))
        print("%s: %d events (%s)" % (name, count, events))
    count = single_touch(os.path.join(out, SINGLE_TOUCH))
    print("%s: %d events (synthesised)" % (SINGLE_TOUCH, count))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
