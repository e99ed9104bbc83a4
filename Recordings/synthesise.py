#!/usr/bin/env python3
"""Deterministic synthetic touchscreen recordings for transitiond.

    python3 Recordings/synthesise.py           rewrite every Recordings/*.events,
                                               Recordings/filter/*.events and
                                               Recordings/snap/*.events
    python3 Recordings/synthesise.py --check   re-read them and print what the
                                               engine rules make of each one
    python3 Recordings/synthesise.py --verify  regenerate in a scratch folder and
                                               compare with the committed files

Every file is a self-contained evemu 1.3 recording, laid out the way
evemu-record writes one (header comments, N/I/P/B/A lines, then one `E:` line
per kernel event with relative timestamps; the first event is at 0.000001
because evemu-record subtracts "first timestamp - 1 us"). The device is a
made-up 10-slot capacitive I2C panel, 4096 x 2304 units at 16 units/mm
(256 x 144 mm, 16:9), INPUT_PROP_DIRECT.

The events are streamed the way the kernel's input core does it for an MT
protocol B driver: a new tracking id per touch and -1 on lift, ABS_MT_SLOT
only when a value for another slot follows, repeated values dropped (also a
slot's X/Y across a new tracking id), BTN_TOUCH / BTN_TOOL_* and ABS_X/ABS_Y
pointer emulation following the oldest contact, a SYN_REPORT per frame and
no frame at all when nothing changed (a finger that rests produces no events).
Frames come at a fixed rate per recording with +-0.8 ms of jitter; positions
follow minimum-jerk (quintic) paths plus up to +-2 units of noise while the
finger moves, rounded to integers.

Nothing depends on the clock, the host or the Python hash seed: each recording
uses its own random.Random(seed) streams, so every run writes identical bytes.

The recordings of the `[filter]` rules, in Recordings/filter/, are described
and checked in filter_recordings.py; some are on a variant of the panel that
also declares ABS_MT_TOOL_TYPE and ABS_MT_TOUCH_MAJOR. The recordings of
the snap points (a carousel that pages, a drawer with a half-open stop), in
Recordings/snap/ beside the configs they are for, are described and checked
in snap_recordings.py.

Normalised coordinates below: x = 0 left, y = 0 top. "back" is the embedded
default transition (edge-pan from the left, 1 finger, margin 0.05, activation
0.02, p = x displacement, flick 1.0/s, threshold 0.5).

back-drag-finish.events
    One finger lands at (0.02, 0.55) and drags right to x ~ 0.68 over 1.3 s,
    slowing down, and lifts while still creeping (~0.25/s): p ~ 0.66 with a
    slow release velocity -> `back` finishes by the threshold.
back-drag-cancel.events
    One finger lands at (0.015, 0.42), drags to x ~ 0.28 in 0.7 s, holds still
    for ~150 ms (no events: nothing changes) and lifts: the rest rule makes
    v = 0 and p ~ 0.265 < 0.5 -> `back` cancels.
back-flick-finish.events
    One finger lands at (0.01, 0.60) and flicks to x ~ 0.30 in ~110 ms without
    slowing down, lifting at speed: v ~ 3.5/s >= 1 -> `back` finishes although
    p ~ 0.28 < 0.5.
back-flick-back-cancel.events
    One finger lands at (0.02, 0.50), drags to x ~ 0.76 in 0.9 s, then flicks
    back to x ~ 0.58 in 90 ms and lifts at speed: v ~ -2.3/s <= -1 -> `back`
    cancels although p ~ 0.57 >= 0.5.
swipe-up-3-fingers.events
    Three fingers land in three successive frames at about (0.40, 0.80),
    (0.50, 0.78), (0.60, 0.80), travel up together by ~0.62 of the height in
    0.55 s, slowing gently, and lift in three successive frames. A `swipe up`
    3-finger transition (distance 1.0) finishes with p ~ 0.62; `back` ignores it.
pinch-in-2-fingers.events
    Two fingers land in two successive frames at about (0.30, 0.35) and
    (0.70, 0.65), close in to (0.46, 0.48) and (0.54, 0.52) in 0.5 s and lift
    in two successive frames. A `pinch in` transition (distance 0.5) reaches
    p = 1 (s ~ 0.18) and finishes; `back` ignores it.
forward-edge-right-spring.events
    One finger lands at the right edge (0.985, 0.45), drags left to x ~ 0.44
    in 0.6 s, slowing down, and lifts while moving at 0.5/s: a right `edge-pan`
    finishes by the threshold with p ~ 0.54 and v ~ 0.64/s (the least-squares
    slope over the last 100 ms; the spring's initial velocity); `back`
    ignores it.

`--check` parses the written files independently of the writer (its own evemu
reader and MT state machine), checks the kernel-stream invariants, runs the
engine rules (design notes, "Engine rules") for `back` and for the gesture each
file was made for, prints touch-down x, final p, release velocity and the
decision, and exits 1 if any outcome is not the intended one (or, for the
filter rules' and the snap points' recordings, if the file does not show
what it was made to).
For a pinch it takes |1 - s| >= activation as the point where the transition
begins.
"""

import math
import os
import random
import sys

# ---------------------------------------------------------------------------
# Linux input constants (linux/input-event-codes.h) and their libevdev names

EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
SYN_REPORT = 0
BTN_TOOL_FINGER, BTN_TOUCH = 0x145, 0x14A
BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP = 0x14D, 0x14E
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT = 0x2F
ABS_MT_TOUCH_MAJOR = 0x30
ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x35, 0x36
ABS_MT_TOOL_TYPE = 0x37
ABS_MT_TRACKING_ID = 0x39
MT_TOOL_FINGER, MT_TOOL_PALM = 0, 2
INPUT_PROP_DIRECT = 0x01

TYPE_NAMES = {EV_SYN: "EV_SYN", EV_KEY: "EV_KEY", EV_ABS: "EV_ABS"}
CODE_NAMES = {
    EV_KEY: {
        BTN_TOOL_FINGER: "BTN_TOOL_FINGER",
        BTN_TOUCH: "BTN_TOUCH",
        BTN_TOOL_DOUBLETAP: "BTN_TOOL_DOUBLETAP",
        BTN_TOOL_TRIPLETAP: "BTN_TOOL_TRIPLETAP",
    },
    EV_ABS: {
        ABS_X: "ABS_X",
        ABS_Y: "ABS_Y",
        ABS_MT_SLOT: "ABS_MT_SLOT",
        ABS_MT_TOUCH_MAJOR: "ABS_MT_TOUCH_MAJOR",
        ABS_MT_TOOL_TYPE: "ABS_MT_TOOL_TYPE",
        ABS_MT_POSITION_X: "ABS_MT_POSITION_X",
        ABS_MT_POSITION_Y: "ABS_MT_POSITION_Y",
        ABS_MT_TRACKING_ID: "ABS_MT_TRACKING_ID",
    },
}
# What libevdev calls the EV_SYN codes 0...SYN_MAX (evemu lists all of them;
# glibc prints the missing names as "(null)").
SYN_CODE_NAMES = ["SYN_REPORT", "SYN_CONFIG", "SYN_MT_REPORT", "SYN_DROPPED"] \
    + ["(null)"] * 11 + ["SYN_MAX"]
PROP_NAMES = {INPUT_PROP_DIRECT: "INPUT_PROP_DIRECT"}

# How many bitmask bytes evemu writes per event type: (libevdev max code + 1)
# bits rounded up to bytes, printed 8 bytes per `B:` line. Types libevdev has
# no maximum for (EV_PWR, EV_FF_STATUS) get no line; EV_SYN gets one fixed line.
MASK_TYPES = [  # (type, max code)
    (0x01, 0x2FF),  # EV_KEY  KEY_MAX
    (0x02, 0x0F),   # EV_REL  REL_MAX
    (0x03, 0x3F),   # EV_ABS  ABS_MAX
    (0x04, 0x07),   # EV_MSC  MSC_MAX
    (0x05, 0x10),   # EV_SW   SW_MAX
    (0x11, 0x0F),   # EV_LED  LED_MAX
    (0x12, 0x07),   # EV_SND  SND_MAX
    (0x14, 0x01),   # EV_REP  REP_MAX
    (0x15, 0x7F),   # EV_FF   FF_MAX
]


# ---------------------------------------------------------------------------
# The device


class AbsInfo:
    def __init__(self, minimum, maximum, fuzz=0, flat=0, resolution=0, value=0):
        self.minimum, self.maximum = minimum, maximum
        self.fuzz, self.flat, self.resolution = fuzz, flat, resolution
        self.value = value


class Device:
    def __init__(self, name, bus, vendor, product, version, keys, absinfo, props, slots):
        self.name = name
        self.bus, self.vendor, self.product, self.version = bus, vendor, product, version
        self.keys = sorted(keys)
        self.absinfo = dict(sorted(absinfo.items()))
        self.props = sorted(props)
        self.slots = slots


X_MAX, Y_MAX = 4095, 2303
RESOLUTION = 16  # units per mm

PANEL = Device(
    name="transitiond synthetic 10-point panel",
    bus=0x18, vendor=0x0000, product=0x0000, version=0x0000,  # BUS_I2C
    keys=[BTN_TOUCH, BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP],
    absinfo={
        # The kernel copies the MT position absinfo to ABS_X/ABS_Y for pointer
        # emulation (input_mt_init_slots), so they share range and resolution.
        ABS_X: AbsInfo(0, X_MAX, resolution=RESOLUTION),
        ABS_Y: AbsInfo(0, Y_MAX, resolution=RESOLUTION),
        ABS_MT_SLOT: AbsInfo(0, 9),
        ABS_MT_POSITION_X: AbsInfo(0, X_MAX, resolution=RESOLUTION),
        ABS_MT_POSITION_Y: AbsInfo(0, Y_MAX, resolution=RESOLUTION),
        ABS_MT_TRACKING_ID: AbsInfo(0, 65535),
    },
    props=[INPUT_PROP_DIRECT],
    slots=10,
)


def c_hex04_alt(value):
    """C's printf("%#04x"): the 0x prefix only for non-zero values."""
    return "%#04x" % value if value else "0000"


def bitmask(codes, nbytes):
    mask = [0] * nbytes
    for code in codes:
        mask[code // 8] |= 1 << (code % 8)
    return mask


def header_text(device):
    """The part of the file evemu-record writes before the first event."""
    lines = ["# EVEMU 1.3",
             "# Kernel: synthetic (transitiond Recordings/synthesise.py)",
             '# Input device name: "%s"' % device.name,
             "# Input device ID: bus %s vendor %s product %s version %s" % tuple(
                 c_hex04_alt(v) for v in (device.bus, device.vendor, device.product, device.version))]
    ax, ay = device.absinfo.get(ABS_X), device.absinfo.get(ABS_Y)
    if ax and ay and ax.resolution and ay.resolution:
        lines.append("# Size in mm: %dx%d" % ((ax.maximum - ax.minimum) // ax.resolution,
                                              (ay.maximum - ay.minimum) // ay.resolution))
    lines.append("# Supported events:")
    lines.append("#   Event type 0 (EV_SYN)")
    for code, name in enumerate(SYN_CODE_NAMES):
        lines.append("#     Event code %d (%s)" % (code, name))
    lines.append("#   Event type 1 (EV_KEY)")
    for code in device.keys:
        lines.append("#     Event code %d (%s)" % (code, CODE_NAMES[EV_KEY][code]))
    lines.append("#   Event type 3 (EV_ABS)")
    for code, info in device.absinfo.items():
        lines.append("#     Event code %d (%s)" % (code, CODE_NAMES[EV_ABS][code]))
        lines.append("#       Value   %6d" % info.value)
        lines.append("#       Min     %6d" % info.minimum)
        lines.append("#       Max     %6d" % info.maximum)
        lines.append("#       Fuzz    %6d" % info.fuzz)
        lines.append("#       Flat    %6d" % info.flat)
        lines.append("#       Resolution %3d" % info.resolution)
    lines.append("# Properties:")
    for prop in device.props:
        lines.append("#   Property  type %d (%s)" % (prop, PROP_NAMES[prop]))

    lines.append("N: %s" % device.name)
    lines.append("I: %04x %04x %04x %04x" % (device.bus, device.vendor, device.product, device.version))
    lines.append("P: " + " ".join("%02x" % b for b in bitmask(device.props, 8)))
    lines.append("B: 00 0b 00 00 00 00 00 00 00")  # evemu always writes EV_SYN like this
    present = {EV_KEY: device.keys, EV_ABS: list(device.absinfo)}
    for ev_type, max_code in MASK_TYPES:
        nbytes = (max_code + 1 + 7) // 8
        mask = bitmask(present.get(ev_type, []), (nbytes + 7) // 8 * 8)
        for i in range(0, nbytes, 8):
            lines.append("B: %02x " % ev_type + " ".join("%02x" % b for b in mask[i:i + 8]))
    for code, info in device.absinfo.items():
        lines.append("A: %02x %d %d %d %d %d" % (code, info.minimum, info.maximum,
                                                 info.fuzz, info.flat, info.resolution))
    lines += ["################################",
              "#      Waiting for events      #",
              "################################"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# The kernel: MT protocol B slots, repeat filtering, pointer emulation


class Kernel:
    """What the input core passes on for a protocol B driver, frame by frame.

    `frame(touches)` takes {finger: (x, y)} in device units for every finger
    on the panel in this frame (a finger missing from it has lifted) and
    returns the events of the frame ending in SYN_REPORT, or [] when nothing
    changed (the input core drops a lone SYN_REPORT). A finger may also
    give its other slot values, (x, y, {code: value}), for the MT axes the
    device declares beside the position (ABS_MT_TOOL_TYPE, ABS_MT_TOUCH_MAJOR).
    """

    # The order a driver reports a slot in: input_mt_report_slot_state (the
    # tracking id, then the tool type), then its position, then its size.
    SLOT_ORDER = [ABS_MT_TRACKING_ID, ABS_MT_TOOL_TYPE, ABS_MT_POSITION_X, ABS_MT_POSITION_Y,
                  ABS_MT_TOUCH_MAJOR]

    def __init__(self, device, first_tracking_id=0):
        self.device = device
        n = device.slots
        self.slot_codes = [c for c in self.SLOT_ORDER if c in device.absinfo]
        self.slot_values = [{c: -1 if c == ABS_MT_TRACKING_ID else 0 for c in self.slot_codes}
                            for _ in range(n)]
        self.passed_slot = device.absinfo[ABS_MT_SLOT].value  # last ABS_MT_SLOT passed on
        self.abs_values = {ABS_X: device.absinfo[ABS_X].value, ABS_Y: device.absinfo[ABS_Y].value}
        self.key_values = {code: 0 for code in device.keys}
        self.next_tracking_id = first_tracking_id & 0xFFFF
        self.slot_of = {}       # finger -> slot
        self.order_of = {}      # finger -> touch-down order (for "oldest")
        self.touches_so_far = 0

    def _mt(self, out, slot, code, value):
        values = self.slot_values[slot]
        if values[code] == value:
            return  # repeat: dropped
        values[code] = value
        if slot != self.passed_slot:  # the staged slot change goes out first
            out.append((EV_ABS, ABS_MT_SLOT, slot))
            self.passed_slot = slot
        out.append((EV_ABS, code, value))

    def _abs(self, out, code, value):
        if self.abs_values[code] != value:
            self.abs_values[code] = value
            out.append((EV_ABS, code, value))

    def _key(self, out, code, value):
        if code in self.key_values and self.key_values[code] != value:
            self.key_values[code] = value
            out.append((EV_KEY, code, value))

    def frame(self, touches):
        out = []
        lifting = {self.slot_of[f] for f in self.slot_of if f not in touches}
        for finger in [f for f in self.slot_of if f not in touches]:
            del self.slot_of[finger]
            del self.order_of[finger]
        busy = set(self.slot_of.values()) | lifting
        new_in_slot = {}
        for finger in touches:
            if finger not in self.slot_of:
                slot = next(s for s in range(self.device.slots) if s not in busy)
                busy.add(slot)
                self.slot_of[finger] = slot
                self.order_of[finger] = self.touches_so_far
                self.touches_so_far += 1
                new_in_slot[slot] = finger
        finger_in = {slot: finger for finger, slot in self.slot_of.items()}
        for slot in range(self.device.slots):
            if slot in lifting:
                self._mt(out, slot, ABS_MT_TRACKING_ID, -1)
            elif slot in finger_in:
                if slot in new_in_slot:
                    self._mt(out, slot, ABS_MT_TRACKING_ID, self.next_tracking_id)
                    self.next_tracking_id = (self.next_tracking_id + 1) & 0xFFFF
                x, y, *more = touches[finger_in[slot]]
                values = dict(more[0]) if more else {}
                values[ABS_MT_POSITION_X], values[ABS_MT_POSITION_Y] = x, y
                for code in self.slot_codes:
                    if code in values and code != ABS_MT_TRACKING_ID:
                        self._mt(out, slot, code, values[code])
        # input_mt_report_pointer_emulation + input_mt_report_finger_count
        count = len(self.slot_of)
        self._key(out, BTN_TOUCH, int(count > 0))
        self._key(out, BTN_TOOL_FINGER, int(count == 1))
        self._key(out, BTN_TOOL_DOUBLETAP, int(count == 2))
        self._key(out, BTN_TOOL_TRIPLETAP, int(count == 3))
        if count:
            oldest = min(self.slot_of, key=lambda f: self.order_of[f])
            values = self.slot_values[self.slot_of[oldest]]
            self._abs(out, ABS_X, values[ABS_MT_POSITION_X])
            self._abs(out, ABS_Y, values[ABS_MT_POSITION_Y])
        if out:
            out.append((EV_SYN, SYN_REPORT, 0))
        return out


# ---------------------------------------------------------------------------
# The evemu writer


class EvemuWriter:
    """Writes `E:` lines as evemu_write_event does, comments included."""

    def __init__(self, fp, device):
        self.fp = fp
        self.count = 0
        self.last_ms = 0  # evemu's static "last SYN_REPORT" millisecond clock
        fp.write(header_text(device))

    def frame(self, t_us, events):
        """Writes one frame; t_us is the time since the first event, which is
        written as 0.000001 as evemu-record does."""
        t_us += 1
        sec, usec = divmod(t_us, 1_000_000)
        stamp = "E: %d.%06d " % (sec, usec)
        lines = []
        for ev_type, code, value in events:
            if ev_type == EV_SYN:
                ms = sec * 1000 + usec // 1000
                desc = "# ------------ SYN_REPORT (%d) ---------- %+dms" % (value, ms - self.last_ms)
                self.last_ms = ms
            else:
                desc = "# %s / %-20s %d" % (TYPE_NAMES[ev_type], CODE_NAMES[ev_type][code], value)
            lines.append("%s%04x %04x %04d\t%s\n" % (stamp, ev_type, code, value, desc))
        self.fp.write("".join(lines))
        self.count += len(events)


# ---------------------------------------------------------------------------
# Motion: jittered frame clock, quintic paths, sensor noise


class Clock:
    """Frame k is at k / hz seconds plus uniform jitter (frame 0 exactly at 0)."""

    def __init__(self, rng, hz, jitter=0.0008):
        self.rng, self.hz, self.jitter = rng, hz, jitter
        self.times = []

    def time(self, k):
        while len(self.times) <= k:
            n = len(self.times)
            j = 0.0 if n == 0 else (2 * self.rng.random() - 1) * self.jitter
            self.times.append(round((n / self.hz + j) * 1e6) / 1e6)
        return self.times[k]

    def frame_after(self, t):
        """The first frame strictly after time t."""
        k = max(0, int(t * self.hz) - 2)
        while self.time(k) <= t:
            k += 1
        return k


def quintic(s, p0, v0, p1, v1, T):
    """Position and velocity on the quintic with the given end positions and
    velocities and zero end accelerations (a minimum-jerk segment)."""
    s2, s3 = s * s, s * s * s
    s4, s5 = s3 * s, s3 * s2
    h0 = 1 - 10 * s3 + 15 * s4 - 6 * s5
    h1 = s - 6 * s3 + 8 * s4 - 3 * s5
    h4 = -4 * s3 + 7 * s4 - 3 * s5
    h5 = 10 * s3 - 15 * s4 + 6 * s5
    d0 = -30 * s2 + 60 * s3 - 30 * s4
    d1 = 1 - 18 * s2 + 32 * s3 - 15 * s4
    d4 = -12 * s2 + 28 * s3 - 15 * s4
    d5 = 30 * s2 - 60 * s3 + 30 * s4
    pos = h0 * p0 + h1 * v0 * T + h4 * v1 * T + h5 * p1
    vel = (d0 * p0 + d1 * v0 * T + d4 * v1 * T + d5 * p1) / T
    return pos, vel


class Path:
    """A finger's path through waypoints (t, x, y, vx, vy) in normalised
    units; before the first it rests there, after the last it keeps the last
    velocity (a finger lifting while it moves)."""

    def __init__(self, *waypoints):
        self.points = sorted(waypoints)

    def at(self, t):
        """(x, y, speed) at time t."""
        pts = self.points
        if t <= pts[0][0]:
            return pts[0][1], pts[0][2], 0.0
        if t >= pts[-1][0]:
            t1, x1, y1, vx1, vy1 = pts[-1]
            return x1 + vx1 * (t - t1), y1 + vy1 * (t - t1), math.hypot(vx1, vy1)
        i = 0
        while pts[i + 1][0] < t:
            i += 1
        (ta, xa, ya, vxa, vya), (tb, xb, yb, vxb, vyb) = pts[i], pts[i + 1]
        T = tb - ta
        s = (t - ta) / T
        x, vx = quintic(s, xa, vxa, xb, vxb, T)
        y, vy = quintic(s, ya, vya, yb, vyb, T)
        return x, y, math.hypot(vx, vy)


class Finger:
    """A finger on the panel from frame `land` up to, not including, frame
    `lift` (the frame where it is gone; None: it never lifts, the recording
    ends with it down). `extra(t)`, if given, says its other slot values at
    time t ({code: value}, see Kernel.frame)."""

    def __init__(self, key, path, land, lift, extra=None):
        self.key, self.path, self.land, self.lift = key, path, land, lift
        self.extra = extra


def sensor_units(rng, n, maximum, speed):
    """A normalised coordinate as the panel reports it: up to +-2 units of
    triangular noise while the finger moves (scaled down towards rest, as
    firmware filtering holds a resting finger steady), rounded, clamped."""
    amplitude = 2.0 * min(1.0, speed / 0.05)
    noise = (rng.random() + rng.random() - 1.0) * amplitude
    return min(maximum, max(0, math.floor(n * maximum + noise + 0.5)))


def render(kernel, clock, noise_rng, fingers, writer):
    """Runs the fingers' frames through the kernel into the writer (anything
    with a frame(t_us, events) method). Returns the time (s) of the last
    frame."""
    first = min(f.land for f in fingers)
    last = max(f.lift for f in fingers if f.lift is not None)
    for k in range(first, last + 1):
        t = clock.time(k)
        touches = {}
        for f in fingers:
            if f.land <= k and (f.lift is None or k < f.lift):
                x, y, speed = f.path.at(t)
                touches[f.key] = (sensor_units(noise_rng, x, X_MAX, speed),
                                  sensor_units(noise_rng, y, Y_MAX, speed))
                if f.extra:
                    touches[f.key] += (f.extra(t),)
        events = kernel.frame(touches)
        if events:
            writer.frame(round(t * 1e6), events)
    return clock.time(last)


# ---------------------------------------------------------------------------
# The recordings


class Recording:
    def __init__(self, name, seed, hz, scene, check, device=None, folder="", facts=None):
        self.name, self.seed, self.hz = name, seed, hz
        self.scene = scene    # (clock, rng) -> [Finger]
        self.check = check    # what --check expects, see CHECKS
        self.device = device or PANEL
        self.folder = folder  # under Recordings/
        # --check: (absinfo, details) -> [(ok, what)], what the file must show
        # besides the engine's outcome (details as read_evemu gives them).
        self.facts = facts


def frame_by_frame_stroke(kernel, writer, t0, seconds, hz, x0, x1, y):
    """One finger from (x0, y) to (x1, y) over `seconds` from t0 at `hz`
    frames a second (normalised positions, a new x every frame, no noise),
    lifted one frame later: the kernel tier's exact strokes."""
    frames = round(seconds * hz)
    last = None
    for i in range(frames + 1):
        x = round((x0 + (x1 - x0) * i / frames) * X_MAX)
        if x == last:
            x += 1
        last = x
        writer.frame(round((t0 + i / hz) * 1e6), kernel.frame({0: (x, round(y * Y_MAX))}))
    writer.frame(round((t0 + (frames + 1) / hz) * 1e6), kernel.frame({}))


def one_finger(clock, start, waypoints, lift_after):
    """One finger landing in frame 0 at `start`, moving through the waypoints
    and lifting in the first frame after time `lift_after`."""
    path = Path((0.0, start[0], start[1], 0.0, 0.0), *waypoints)
    return [Finger("a", path, 0, clock.frame_after(lift_after))]


def scene_back_drag_finish(clock, rng):
    return one_finger(clock, (0.02, 0.55),
                      [(1.30, 0.68, 0.575, 0.22, 0.01)], 1.30)


def scene_back_drag_cancel(clock, rng):
    return one_finger(clock, (0.015, 0.42),
                      [(0.70, 0.28, 0.405, 0.0, 0.0)], 0.85)


def scene_back_flick_finish(clock, rng):
    return one_finger(clock, (0.01, 0.60),
                      [(0.008, 0.01, 0.60, 0.0, 0.0),
                       (0.118, 0.30, 0.585, 4.0, -0.1)], 0.118)


def scene_back_flick_back_cancel(clock, rng):
    return one_finger(clock, (0.02, 0.50),
                      [(0.90, 0.76, 0.52, 0.0, 0.0),
                       (0.99, 0.58, 0.525, -2.6, 0.0)], 0.99)


def landing_in_successive_frames(clock, starts, moves, duration, velocities):
    """Fingers that land one per frame, move together once all are down and
    lift one per frame after `duration`."""
    n = len(starts)
    t0 = clock.time(n - 1) + 0.002
    t1 = t0 + duration
    lift = clock.frame_after(t1)
    fingers = []
    for i, ((x0, y0), (x1, y1), (vx, vy)) in enumerate(zip(starts, moves, velocities)):
        path = Path((t0, x0, y0, 0.0, 0.0), (t1, x1, y1, vx, vy))
        fingers.append(Finger("abcdefghij"[i], path, i, lift + i))
    return fingers


def scene_swipe_up_3(clock, rng):
    return landing_in_successive_frames(
        clock,
        starts=[(0.40, 0.80), (0.50, 0.78), (0.60, 0.80)],
        moves=[(0.39, 0.18), (0.50, 0.16), (0.615, 0.185)],
        duration=0.55,
        velocities=[(0.0, -0.35), (0.0, -0.35), (0.01, -0.33)])


def scene_pinch_in_2(clock, rng):
    return landing_in_successive_frames(
        clock,
        starts=[(0.30, 0.35), (0.70, 0.65)],
        moves=[(0.46, 0.48), (0.54, 0.52)],
        duration=0.50,
        velocities=[(0.03, 0.02), (-0.03, -0.02)])


def scene_forward_edge_right(clock, rng):
    return one_finger(clock, (0.985, 0.45),
                      [(0.60, 0.44, 0.47, -0.5, 0.0)], 0.60)


# Expectations for --check: for each transition, the decision (or None when
# it must not begin) and the range the figures must land in.
BACK = dict(kind="edge-pan", edge="left", fingers=1, margin=0.05, distance=1.0)
OVERVIEW = dict(kind="swipe", direction="up", fingers=3, distance=1.0)
CLOSE = dict(kind="pinch", direction="in", fingers=2, distance=0.5)
FORWARD = dict(kind="edge-pan", edge="right", fingers=1, margin=0.05, distance=1.0)

RECORDINGS = [
    Recording("back-drag-finish", 101, 200, scene_back_drag_finish,
              {"back": ("finish", (0.6, 0.7), (0.1, 0.4))}),
    Recording("back-drag-cancel", 102, 120, scene_back_drag_cancel,
              {"back": ("cancel", (0.2, 0.3), (0.0, 0.0))}),
    Recording("back-flick-finish", 103, 240, scene_back_flick_finish,
              {"back": ("finish", (0.25, 0.35), (2.0, 6.0))}),
    Recording("back-flick-back-cancel", 104, 200, scene_back_flick_back_cancel,
              {"back": ("cancel", (0.5, 0.6), (-4.0, -1.5))}),
    Recording("swipe-up-3-fingers", 105, 144, scene_swipe_up_3,
              {"back": None, "overview": ("finish", (0.55, 0.7), (0.2, 0.8))}),
    Recording("pinch-in-2-fingers", 106, 180, scene_pinch_in_2,
              {"back": None, "close": ("finish", (1.0, 1.0), (0.0, 0.0))}),
    Recording("forward-edge-right-spring", 107, 240, scene_forward_edge_right,
              {"back": None, "forward": ("finish", (0.52, 0.58), (0.4, 0.8))}),
]
TRANSITIONS = {"back": BACK, "overview": OVERVIEW, "close": CLOSE, "forward": FORWARD}


def streams(seed):
    """Independent random streams for the frame clock, the noise and the
    tracking ids of one recording."""
    return random.Random(seed * 3), random.Random(seed * 3 + 1), random.Random(seed * 3 + 2)


def all_recordings():
    """Every recording this script makes: the engine's above, here, the
    filter rules' (filter_recordings.py), in filter/, and the snap points'
    (snap_recordings.py), in snap/."""
    sys.dont_write_bytecode = True  # no __pycache__ in Recordings/
    # Run as a script, this module is __main__: the other imports it by name.
    sys.modules.setdefault("synthesise", sys.modules[__name__])
    import filter_recordings
    import snap_recordings
    return RECORDINGS + filter_recordings.RECORDINGS + snap_recordings.RECORDINGS


def recording_path(rec, directory):
    return os.path.join(directory, rec.folder, rec.name + ".events")


def write_recording(rec, directory):
    clock_rng, noise_rng, id_rng = streams(rec.seed)
    clock = Clock(clock_rng, rec.hz)
    kernel = Kernel(rec.device, first_tracking_id=int(id_rng.random() * 900) + 100)
    fingers = rec.scene(clock, noise_rng)
    path = recording_path(rec, directory)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fp:
        writer = EvemuWriter(fp, rec.device)
        render(kernel, clock, noise_rng, fingers, writer)
    return path, writer.count


# ---------------------------------------------------------------------------
# --check: an independent reader and the engine rules


def read_evemu(path, details=None):
    """Returns (absinfo {code: (min, max)}, frames [(t, {tid: (x, y)})]),
    checking the stream is what the kernel would have sent. `details`, a
    list, gets each frame's contacts with all their slot values:
    (t, {tid: {code: value}})."""
    absinfo, frames, problems = {}, [], []
    slot, slots = 0, {}
    keys, absv = {}, {}
    pending, last_t = [], -1.0
    order = []  # tracking ids by touch-down, for the emulated pointer
    with open(path, encoding="utf-8") as fp:
        for lineno, line in enumerate(fp, 1):
            if line.startswith("A: "):
                f = line.split()
                absinfo[int(f[1], 16)] = (int(f[2]), int(f[3]))
                if len(f) != 7:
                    problems.append("%d: A: line without 6 fields" % lineno)
                continue
            if not line.startswith("E: "):
                continue
            f = line.split("\t")[0].split()
            sec, usec = f[1].split(".")
            t = int(sec) + int(usec) / 1e6
            ev_type, code, value = int(f[2], 16), int(f[3], 16), int(f[4])
            if t < last_t:
                problems.append("%d: time goes back" % lineno)
            last_t = t
            pending.append((ev_type, code, value))
            if ev_type == EV_ABS and code == ABS_MT_SLOT:
                if value == slot:
                    problems.append("%d: repeated ABS_MT_SLOT" % lineno)
                slot = value
            elif ev_type == EV_ABS and code > ABS_MT_SLOT:
                s = slots.setdefault(slot, {ABS_MT_TRACKING_ID: -1, ABS_MT_POSITION_X: 0,
                                            ABS_MT_POSITION_Y: 0})
                if s.get(code, 0) == value:
                    problems.append("%d: repeated MT value" % lineno)
                s[code] = value
                if code == ABS_MT_TRACKING_ID:
                    if value >= 0:
                        order.append(value)
                    else:
                        order = [tid for tid in order if tid in
                                 {v[ABS_MT_TRACKING_ID] for v in slots.values()}]
            elif ev_type == EV_ABS:
                if absv.get(code, 0) == value:
                    problems.append("%d: repeated abs value" % lineno)
                absv[code] = value
            elif ev_type == EV_KEY:
                if keys.get(code, 0) == value:
                    problems.append("%d: repeated key value" % lineno)
                keys[code] = value
            elif ev_type == EV_SYN and code == SYN_REPORT:
                if len(pending) < 2:
                    problems.append("%d: empty frame" % lineno)
                pending = []
                contacts = {v[ABS_MT_TRACKING_ID]: (v[ABS_MT_POSITION_X], v[ABS_MT_POSITION_Y])
                            for v in slots.values() if v[ABS_MT_TRACKING_ID] >= 0}
                n = len(contacts)
                expect = {BTN_TOUCH: int(n > 0), BTN_TOOL_FINGER: int(n == 1),
                          BTN_TOOL_DOUBLETAP: int(n == 2), BTN_TOOL_TRIPLETAP: int(n == 3)}
                if any(keys.get(c, 0) != v for c, v in expect.items()):
                    problems.append("%d: BTN_* do not match %d contacts" % lineno)
                live = [tid for tid in order if tid in contacts]
                if live and (absv.get(ABS_X, 0), absv.get(ABS_Y, 0)) != contacts[live[0]]:
                    problems.append("%d: ABS_X/ABS_Y do not follow the oldest contact" % lineno)
                frames.append((t, contacts))
                if details is not None:
                    details.append((t, {v[ABS_MT_TRACKING_ID]: dict(v) for v in slots.values()
                                        if v[ABS_MT_TRACKING_ID] >= 0}))
    if pending:
        problems.append("events after the last SYN_REPORT")
    return absinfo, frames, problems


def normalised_frames(absinfo, frames):
    (x0, x1), (y0, y1) = absinfo[ABS_MT_POSITION_X], absinfo[ABS_MT_POSITION_Y]
    return [(t, {tid: ((x - x0) / (x1 - x0), (y - y0) / (y1 - y0)) for tid, (x, y) in c.items()})
            for t, c in frames]


def centroid(points):
    n = len(points)
    return sum(p[0] for p in points) / n, sum(p[1] for p in points) / n


def spread(points):
    cx, cy = centroid(points)
    return sum(math.hypot(x - cx, y - cy) for x, y in points) / len(points)


def release_velocity(samples, release_t):
    """design "Velocity": least-squares slope over the last 100 ms, 0 if the
    finger rested more than 40 ms before the release frame."""
    if not samples:
        return 0.0
    last_change = samples[0][0]
    for (_, pa), (tb, pb) in zip(samples, samples[1:]):
        if pb != pa:
            last_change = tb
    if release_t - last_change > 0.040 + 1e-9:
        return 0.0
    t_last = samples[-1][0]
    window = [(t, p) for t, p in samples if t >= t_last - 0.100 - 1e-9]
    if len(window) < 2:
        return 0.0
    mt = sum(t for t, _ in window) / len(window)
    mp = sum(p for _, p in window) / len(window)
    stt = sum((t - mt) ** 2 for t, _ in window)
    if stt < 1e-18:
        return 0.0
    return sum((t - mt) * (p - mp) for t, p in window) / stt


def run_transition(frames, spec, activation=0.02, flick=1.0, threshold=0.5):
    """The engine rules for one transition over normalised frames. Returns a
    list of (began_t, p, v, decision) per interaction."""
    n_needed = spec["fingers"]
    touchdown, results = {}, []
    state, ids, start, samples, prev_n = "idle", None, None, [], 0

    def travel(points):
        cx, cy = centroid(points)
        if spec["kind"] == "pinch":
            s = spread(points) / start
            return (1 - s, 0.0) if spec["direction"] == "in" else (s - 1, 0.0)
        dx, dy = cx - start[0], cy - start[1]
        way = spec.get("edge") or spec.get("direction")
        along = {"left": dx, "right": -dx, "top": dy, "bottom": -dy, "up": -dy, "down": dy}
        if spec["kind"] == "swipe":
            along.update(left=-dx, right=dx)
        d = along[way]
        q = abs(dy) if way in ("left", "right") else abs(dx)
        return d, q

    def near_edge(point):
        x, y = point
        m = spec["margin"]
        return {"left": x <= m, "right": x >= 1 - m, "top": y <= m, "bottom": y >= 1 - m}[spec["edge"]]

    for t, contacts in frames:
        for tid, pos in contacts.items():
            touchdown.setdefault(tid, pos)
        n = len(contacts)
        if state == "active":
            mine = [contacts[i] for i in ids if i in contacts]
            if len(mine) < n_needed:
                p = samples[-1][1]
                v = release_velocity(samples, t)
                decision = "finish" if v >= flick else "cancel" if v <= -flick else \
                    "finish" if p >= threshold else "cancel"
                results.append((samples[0][0], p, v, decision))
                state = "idle"
            else:
                d, _ = travel(mine)
                samples.append((t, min(1.0, max(0.0, d / spec["distance"]))))
        if state == "idle" and n == n_needed and prev_n < n_needed:
            if spec["kind"] != "edge-pan" or all(near_edge(touchdown[i]) for i in contacts):
                ids = list(contacts)
                points = [contacts[i] for i in ids]
                start = spread(points) if spec["kind"] == "pinch" else centroid(points)
                state = "candidate"
        if state == "candidate":
            if n > n_needed or any(i not in contacts for i in ids):
                state = "idle"  # rejected / lost before it began
            else:
                d, q = travel([contacts[i] for i in ids])
                if d >= activation:
                    if q > d:
                        state = "idle"
                    else:
                        state = "active"
                        samples = [(t, min(1.0, max(0.0, d / spec["distance"])))]
        prev_n = n
    return results


def check(directory):
    ok = True
    for rec in all_recordings():
        path = recording_path(rec, directory)
        details = []
        absinfo, frames, problems = read_evemu(path, details)
        nframes = normalised_frames(absinfo, frames)
        first_x = nframes[0][1][min(nframes[0][1])][0]
        n_events = sum(1 for line in open(path, encoding="utf-8") if line.startswith("E: "))
        print("%s.events: %d events, %d frames, %.3f s, touch-down x %.4f" % (
            os.path.join(rec.folder, rec.name), n_events, len(frames), frames[-1][0], first_x))
        for problem in problems:
            print("  STREAM PROBLEM %s" % problem)
            ok = False
        for name, expected in rec.check.items():
            results = run_transition(nframes, TRANSITIONS[name])
            if not results:
                print("  %-9s does not begin" % name)
                good = expected is None
            else:
                began, p, v, decision = results[0]
                print("  %-9s began %.4f s, final p %.4f, release v %+.3f/s -> %s" % (
                    name, began, p, v, decision))
                good = expected is not None and len(results) == 1 and decision == expected[0] \
                    and expected[1][0] - 1e-9 <= p <= expected[1][1] + 1e-9 \
                    and expected[2][0] - 1e-9 <= v <= expected[2][1] + 1e-9
            if not good:
                print("  ^ NOT AS INTENDED (expected %r)" % (expected,))
                ok = False
        for good, what in rec.facts(absinfo, details) if rec.facts else []:
            print("  %s%s" % ("" if good else "NOT AS INTENDED: ", what))
            ok = ok and good
    return ok


def verify(directory):
    """Regenerates every recording in a scratch folder and compares it byte
    for byte with the committed one: the files are what this script makes."""
    import tempfile
    ok = True
    with tempfile.TemporaryDirectory() as scratch:
        for rec in all_recordings():
            path, _ = write_recording(rec, scratch)
            name = os.path.relpath(path, scratch)
            committed = os.path.join(directory, name)
            same = False
            if os.path.exists(committed):
                with open(path, "rb") as fresh, open(committed, "rb") as kept:
                    same = fresh.read() == kept.read()
            print("%s: %s" % (name, "reproduced" if same else "DIFFERS from a fresh run"))
            ok = ok and same
    return ok


def main(argv):
    directory = os.path.dirname(os.path.abspath(__file__))
    if argv[1:] == ["--check"]:
        return 0 if check(directory) else 1
    if argv[1:] == ["--verify"]:
        return 0 if verify(directory) else 1
    if argv[1:]:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 64
    for rec in all_recordings():
        path, count = write_recording(rec, directory)
        print("%s: %d events" % (os.path.relpath(path), count))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
