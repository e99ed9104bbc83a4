"""The `[filter]` rules' recordings, Recordings/filter/*.events: one per rule,
each a case the rule is for, on the synthetic panel of synthesise.py (which
writes, reproduces and checks them with its own; no real panel's recording
of these cases is at hand, so all are synthesised). What the UI's copy of
each must be is Tests/Golden/copy/ (`replay --fast --copy`).

max-contacts-second-finger.events
    One finger drags across the middle, (0.35, 0.50) to (0.66, 0.56) in
    1.2 s; a second lands at (0.55, 0.78) 0.35 s in, barely moves, and lifts
    at 1.45 s, after the first. `max_contacts = 1` keeps all of the second
    from the copy, even once it is alone.
palms.events
    On a panel that also declares ABS_MT_TOOL_TYPE and ABS_MT_TOUCH_MAJOR
    (16 units/mm): a finger drags while a contact the panel calls a palm
    (MT_TOOL_PALM, 20 mm wide) rests lower right; then a contact the panel
    calls a finger but 36-40 mm wide (over a `palm_mm` of 30); then a
    finger that drags and turns into a palm 0.45 s in (MT_TOOL_PALM, 38 mm).
ghost-taps-periodic.events
    Still taps of 25-35 ms at one place, (0.62, 0.30), every 12.9 s (+-4 ms),
    five of them, as a panel's phantom taps; and a tap of 40 ms at the same
    place (within 0.2 mm) at 44.8 s, on no period of theirs:
    someone's. With `ghost_touches = "quarantine"` the first two and that
    one reach the copy; the third to fifth do not.
stuck-contact.events
    A finger drags from (0.30, 0.60) and its reports stop 0.4 s in, while it
    moves: it never lifts. 7 s in, another finger touches (0.70, 0.30) for
    120 ms and lifts; the panel says nothing more. `stuck_after = 5` ends the
    first on the copy 5 s after its last report, before the other comes.
transform-rotated-drag.events
    One finger drags along the panel's x, (0.30, 0.40) to (0.70, 0.45) in
    0.8 s: with `rotation = 90` that is down the screen at x ~ 0.58, and with
    `transform = true` the copy says so, on axes that trade ranges.
blocked-pinch.events
    A pinch out: one finger lands at (0.35, 0.50), a second 60 ms later at
    (0.65, 0.50), already moving; they spread to (0.20, 0.50) and (0.80,
    0.50) by 0.40 s and lift. At 1.0 s a two-finger tap, (0.40, 0.30) and
    (0.60, 0.30) 30 ms apart, still, for 100 ms. At 2.0 s two fingers
    (0.40, 0.70) and (0.55, 0.70), 20 ms apart, swipe up together to y 0.40
    in 0.4 s. `block = ["pinch"]` keeps the pinch's second finger from the
    copy (within its hold: the spread grows 0.02 in about 40 ms); the tap
    and the swipe reach it whole, their second fingers after their hold.
"""

import math

import synthesise as syn

MM = syn.RESOLUTION  # device units per millimetre, position and size alike

# The synthetic panel with the two axes palms are told by: hid-multitouch
# declares the tool type as MT_TOOL_FINGER...MT_TOOL_PALM and the contact's
# size with the position's resolution.
def palm_panel():
    absinfo = dict(syn.PANEL.absinfo)
    absinfo[syn.ABS_MT_TOOL_TYPE] = syn.AbsInfo(syn.MT_TOOL_FINGER, syn.MT_TOOL_PALM)
    absinfo[syn.ABS_MT_TOUCH_MAJOR] = syn.AbsInfo(0, syn.X_MAX, resolution=MM)
    p = syn.PANEL
    return syn.Device("transitiond synthetic 10-point panel with palm axes", p.bus, p.vendor, p.product,
                      p.version, p.keys, absinfo, p.props, p.slots)


PALM_PANEL = palm_panel()
PALM_MM = 30  # the `palm_mm` the palms are measured against (Tests/Golden/copy/palms.toml)
STUCK_AFTER = 5  # the `stuck_after` of Tests/Golden/copy/stuck-contact.toml
GHOST_PERIOD = 12.9


def at(clock, t):
    """The first frame at or after time t."""
    return clock.frame_after(t - 1e-6)


def still(t, x, y):
    return syn.Path((t, x, y, 0.0, 0.0))


class Frozen:
    """A path whose reports stop at time `until` (the firmware lost the
    finger): from then on the position it had, without noise, for ever."""

    def __init__(self, path, until):
        self.path, self.until = path, until

    def at(self, t):
        if t < self.until:
            return self.path.at(t)
        x, y, _ = self.path.at(self.until)
        return x, y, 0.0


def sized(tool, mm_from, mm_to, t0, t1):
    """Slot values of a contact whose size grows from mm_from to mm_to over t0...t1."""
    def extra(t):
        s = min(1.0, max(0.0, (t - t0) / (t1 - t0)))
        return {syn.ABS_MT_TOOL_TYPE: tool, syn.ABS_MT_TOUCH_MAJOR: round((mm_from + (mm_to - mm_from) * s) * MM)}
    return extra


# ---------------------------------------------------------------------------
# The scenes


def scene_max_contacts(clock, rng):
    drag = syn.Path((0.0, 0.35, 0.50, 0.0, 0.0), (1.20, 0.66, 0.56, 0.0, 0.0))
    thumb = syn.Path((0.35, 0.55, 0.78, 0.0, 0.0), (1.40, 0.565, 0.77, 0.0, 0.0))
    return [syn.Finger("a", drag, 0, clock.frame_after(1.25)),
            syn.Finger("b", thumb, at(clock, 0.35), clock.frame_after(1.45))]


def scene_palms(clock, rng):
    finger, palm = syn.MT_TOOL_FINGER, syn.MT_TOOL_PALM
    drag = syn.Path((0.0, 0.30, 0.40, 0.0, 0.0), (0.60, 0.50, 0.45, 0.0, 0.0))
    resting = syn.Path((0.10, 0.78, 0.80, 0.0, 0.0), (0.50, 0.785, 0.795, 0.0, 0.0))
    wide = syn.Path((1.00, 0.70, 0.65, 0.0, 0.0), (1.50, 0.71, 0.655, 0.0, 0.0))
    turning = syn.Path((2.00, 0.40, 0.30, 0.0, 0.0), (2.90, 0.60, 0.35, 0.0, 0.0))
    turns = 2.45

    def turning_extra(t):
        return sized(finger, 9, 10, 2.0, turns)(t) if t < turns else sized(palm, 38, 40, turns, 2.9)(t)
    return [syn.Finger("a", drag, 0, clock.frame_after(0.65), sized(finger, 8, 9, 0.0, 0.6)),
            syn.Finger("p", resting, at(clock, 0.10), clock.frame_after(0.50), sized(palm, 20, 21, 0.1, 0.5)),
            syn.Finger("w", wide, at(clock, 1.00), clock.frame_after(1.50), sized(finger, 36, 40, 1.0, 1.5)),
            syn.Finger("t", turning, at(clock, 2.00), clock.frame_after(2.90), turning_extra)]


def scene_ghost_taps(clock, rng):
    x, y = 0.62, 0.30
    fingers = []
    for k in range(5):
        t = k * GHOST_PERIOD + (2 * rng.random() - 1) * 0.004 if k else 0.0
        fingers.append(syn.Finger("g%d" % k, still(t, x, y), at(clock, t), clock.frame_after(t + 0.025)))
    # Someone's tap, 2 and 3 units off: the same place to the rule (< 1 mm).
    fingers.append(syn.Finger("p", still(44.8, x + 2 / syn.X_MAX, y - 3 / syn.Y_MAX),
                              at(clock, 44.8), clock.frame_after(44.84)))
    return fingers


def scene_stuck(clock, rng):
    drag = Frozen(syn.Path((0.0, 0.30, 0.60, 0.0, 0.0), (0.60, 0.55, 0.50, 0.0, 0.0)), 0.40)
    other = syn.Path((7.0, 0.70, 0.30, 0.0, 0.0), (7.12, 0.705, 0.30, 0.0, 0.0))
    return [syn.Finger("a", drag, 0, None),
            syn.Finger("b", other, at(clock, 7.0), clock.frame_after(7.12))]


def scene_transform(clock, rng):
    return syn.one_finger(clock, (0.30, 0.40), [(0.80, 0.70, 0.45, 0.0, 0.0)], 0.85)


def scene_blocked_pinch(clock, rng):
    left = syn.Path((0.0, 0.35, 0.50, 0.0, 0.0), (0.06, 0.35, 0.50, -0.3, 0.0), (0.40, 0.20, 0.50, 0.0, 0.0))
    right = syn.Path((0.06, 0.65, 0.50, 0.6, 0.0), (0.40, 0.80, 0.50, 0.0, 0.0))
    up = [(2.0, 0.40, 0.70, 0.0, -0.4), (2.42, 0.40, 0.40, 0.0, 0.0)]
    return [syn.Finger("l", left, 0, clock.frame_after(0.45)),
            syn.Finger("r", right, at(clock, 0.06), clock.frame_after(0.45)),
            syn.Finger("t1", still(1.0, 0.40, 0.30), at(clock, 1.0), clock.frame_after(1.10)),
            syn.Finger("t2", still(1.03, 0.60, 0.30), at(clock, 1.03), clock.frame_after(1.10)),
            syn.Finger("s1", syn.Path(*up), at(clock, 2.0), clock.frame_after(2.45)),
            syn.Finger("s2", syn.Path(*[(t + 0.02, x + 0.15, y, vx, vy) for t, x, y, vx, vy in up]),
                       at(clock, 2.02), clock.frame_after(2.45))]


# ---------------------------------------------------------------------------
# --check: what each file must show, read back from it


def touches(details):
    """Each touch of a file in touch-down order: its frames [(t, {code:
    value})] and the time of the frame it lifted in (None: never)."""
    found = {}
    for t, down in details:
        for tid, values in down.items():
            found.setdefault(tid, {"frames": [], "lift": None})["frames"].append((t, values))
        for tid, touch in found.items():
            if tid not in down and touch["lift"] is None:
                touch["lift"] = t
    return list(found.values())


def place(values):
    return values[syn.ABS_MT_POSITION_X] / MM, values[syn.ABS_MT_POSITION_Y] / MM


def moved(touch):
    """Millimetres it went from where it came down, at most."""
    x0, y0 = place(touch["frames"][0][1])
    return max(math.hypot(x - x0, y - y0) for x, y in (place(v) for _, v in touch["frames"]))


def down_for(touch):
    return touch["lift"] - touch["frames"][0][0]


def facts_max_contacts(absinfo, details):
    drag, second = touches(details)
    both = [t for t, down in details if len(down) == 2]
    moving = {v[syn.ABS_MT_POSITION_X] for t, v in drag["frames"] if both and both[0] <= t}
    return [(len(touches(details)) == 2 and max(len(d) for _, d in details) == 2, "two touches, never more at once"),
            (len(moving) > 10, "the first drags on while the second is down (%d x values)" % len(moving)),
            (second["lift"] > drag["lift"], "the second lifts %.2f s after the first" % (second["lift"] - drag["lift"]))]


def facts_palms(absinfo, details):
    def tools(touch):
        return [v.get(syn.ABS_MT_TOOL_TYPE, 0) for _, v in touch["frames"]]

    def widths(touch):
        return [v.get(syn.ABS_MT_TOUCH_MAJOR, 0) / MM for _, v in touch["frames"]]
    finger, palm, wide, turning = touches(details)
    turned = tools(turning).index(syn.MT_TOOL_PALM) if syn.MT_TOOL_PALM in tools(turning) else 0
    return [(set(tools(finger)) == {syn.MT_TOOL_FINGER} and max(widths(finger)) < PALM_MM,
             "a finger, %.0f mm at most" % max(widths(finger))),
            (finger["frames"][0][0] < palm["frames"][0][0] < palm["lift"] < finger["lift"],
             "the palm rests while the finger drags"),
            (set(tools(palm)) == {syn.MT_TOOL_PALM} and max(widths(palm)) < PALM_MM,
             "MT_TOOL_PALM throughout, %.0f mm wide: only the tool type tells" % max(widths(palm))),
            (set(tools(wide)) == {syn.MT_TOOL_FINGER} and min(widths(wide)) > PALM_MM,
             "a 'finger' %.0f-%.0f mm wide: only palm_mm %d tells" % (min(widths(wide)), max(widths(wide)), PALM_MM)),
            (turned > 5 and set(tools(turning)[turned:]) == {syn.MT_TOOL_PALM}
             and max(widths(turning)[:turned]) < PALM_MM and moved(turning) > 10,
             "a finger that drags and turns palm at %.3f s, for good" % turning["frames"][turned][0])]


def facts_ghost_taps(absinfo, details):
    found = touches(details)
    # Someone's tap is the one not at the first one's very place.
    ghosts = [g for g in found if place(g["frames"][0][1]) == place(found[0]["frames"][0][1])]
    (person,) = [g for g in found if g not in ghosts]
    downs = [g["frames"][0][0] for g in ghosts]
    intervals = [b - a for a, b in zip(downs, downs[1:])]
    period = sum(intervals) / len(intervals)
    x0, y0 = place(ghosts[0]["frames"][0][1])
    px, py = place(person["frames"][0][1])
    since = person["frames"][0][0] - max(d for d in downs if d < person["frames"][0][0])
    return [(len(ghosts) == 5 and all(down_for(g) <= 0.05 and len(g["frames"]) == 1 for g in ghosts)
             and len({place(g["frames"][0][1]) for g in ghosts}) == 1,
             "5 still taps of %.0f-%.0f ms at one place" % (min(map(down_for, ghosts)) * 1e3,
                                                            max(map(down_for, ghosts)) * 1e3)),
            (all(abs(i - period) < 0.01 * period for i in intervals) and abs(period - GHOST_PERIOD) < 0.01,
             "every %.3f s (%s)" % (period, ", ".join("%.3f" % i for i in intervals))),
            (math.hypot(px - x0, py - y0) < 1 and down_for(person) <= 0.05 and len(person["frames"]) == 1,
             "a still %.0f ms tap %.2f mm from them" % (down_for(person) * 1e3, math.hypot(px - x0, py - y0))),
            (all(abs(since - k * period) > 0.05 * period for k in (1, 2, 3)),
             "%.3f s after the last tap before it: on no period" % since)]


def facts_stuck(absinfo, details):
    stuck, other = touches(details)
    last_report = stuck["frames"][-1][0]
    changes = [t for (_, a), (t, b) in zip(stuck["frames"], stuck["frames"][1:]) if a != b]
    silent = [t for t, _ in details if last_report < t < other["frames"][0][0]]
    return [(stuck["lift"] is None and other["lift"] is not None, "the first never lifts; the other does"),
            (changes and changes[-1] < 0.45 and moved(stuck) > 10,
             "the first drags %.0f mm, its last report at %.3f s" % (moved(stuck), changes[-1] if changes else 0)),
            (not silent and other["frames"][0][0] - changes[-1] > STUCK_AFTER,
             "then nothing until the other lands %.3f s later" % (other["frames"][0][0] - changes[-1]))]


def facts_transform(absinfo, details):
    (drag,) = touches(details)
    (x0, y0), (x1, y1) = place(drag["frames"][0][1]), place(drag["frames"][-1][1])
    return [(x1 - x0 > 90 and abs(y1 - y0) < 15 and drag["lift"] is not None,
             "one finger, %.0f mm along the panel's x, %.0f mm along its y" % (x1 - x0, y1 - y0))]


def facts_blocked_pinch(absinfo, details):
    pinch_l, pinch_r, tap_1, tap_2, swipe_1, swipe_2 = touches(details)

    def span(a, b):
        """How far apart two touches are (mm) at the first frame both are down, and at the last."""
        both = [(t, v) for t, v in a["frames"] if any(t == u for u, _ in b["frames"])]
        first, last = both[0][0], both[-1][0]
        at_b = dict(b["frames"])
        return (math.dist(place(both[0][1]), place(at_b[first])), math.dist(place(both[-1][1]), place(at_b[last])))
    start, end = span(pinch_l, pinch_r)
    swipe_start, swipe_end = span(swipe_1, swipe_2)
    return [(end - start > 60 and pinch_r["frames"][0][0] - pinch_l["frames"][0][0] > 0.05,
             "a pinch out: %.0f mm apart to %.0f mm, the second finger %.0f ms after the first"
             % (start, end, (pinch_r["frames"][0][0] - pinch_l["frames"][0][0]) * 1e3)),
            (moved(tap_1) < 1 and moved(tap_2) < 1 and down_for(tap_2) < 0.08,
             "a still two-finger tap, the second down %.0f ms" % (down_for(tap_2) * 1e3)),
            (abs(swipe_end - swipe_start) < 3 and moved(swipe_1) > 30,
             "a two-finger swipe of %.0f mm, %.0f mm apart throughout" % (moved(swipe_1), swipe_start))]


RECORDINGS = [
    syn.Recording("max-contacts-second-finger", 201, 120, scene_max_contacts, {"back": None},
                  folder="filter", facts=facts_max_contacts),
    syn.Recording("palms", 202, 120, scene_palms, {"back": None},
                  device=PALM_PANEL, folder="filter", facts=facts_palms),
    syn.Recording("ghost-taps-periodic", 203, 120, scene_ghost_taps, {"back": None},
                  folder="filter", facts=facts_ghost_taps),
    syn.Recording("stuck-contact", 204, 120, scene_stuck, {"back": None},
                  folder="filter", facts=facts_stuck),
    syn.Recording("transform-rotated-drag", 205, 120, scene_transform, {"back": None},
                  folder="filter", facts=facts_transform),
    syn.Recording("blocked-pinch", 206, 120, scene_blocked_pinch, {"back": None},
                  folder="filter", facts=facts_blocked_pinch),
]
