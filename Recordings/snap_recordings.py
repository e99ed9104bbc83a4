"""The snap points' recordings, Recordings/snap/*.events: gestures for the
two snap-point configs beside them, snap/carousel.toml (a 3-page carousel
driven by a one-finger swipe left, distance 2: a page is one screen width,
progress 0.5) and snap/drawer.toml (a left edge-pan drawer with a half-open
stop, points [0, 0.5, 1], long swipes). They are made to be played one after
another on one engine (`replay --fast --config snap/carousel.toml A B ...`),
so where the transition rests carries over from one to the next. On the
synthetic panel of synthesise.py, which writes, reproduces and checks them
with its own.

carousel-page-left.events
    One finger lands mid-screen at (0.80, 0.50) and swipes left slowly to
    x ~ 0.16 (0.64 of the width) in 1.0 s, slowing to a creep (0.05 widths/s)
    and lifting: with carousel.toml, from rest 0, p ~ 0.32, slow, so the
    nearest point, 0.5: the carousel pages once. From rest 0.5, p ~ 0.82 -> 1.
carousel-flick-left.events
    One finger lands at (0.60, 0.52) and flicks left to x ~ 0.45 (0.15 of
    the width) in 80 ms, lifting at speed (~1.7 progress/s): the travel is
    short (p ~ rest + 0.075), but the flick pages on.
carousel-page-right.events
    One finger lands at (0.20, 0.48) and swipes right slowly to x ~ 0.84
    (0.64 of the width) in 1.0 s, creeping at the lift: from rest 1,
    p ~ 0.68 -> 0.5; from 0.5 -> 0; alone, at rest 0, it pulls past the
    first page (rubber band) and settles back at 0.
drawer-half-open.events
    One finger lands at the left edge (0.01, 0.40), drags right to x ~ 0.45
    in 0.8 s, rests 0.2 s (no events) and lifts: with drawer.toml p ~ 0.44
    with v = 0 -> the half-open stop, 0.5. `back` (default config) begins
    and cancels (p 0.44 < 0.5).
drawer-close-from-middle.events
    One finger lands mid-screen at (0.60, 0.55) and swipes left to x ~ 0.15
    in 0.7 s, rests 0.15 s and lifts: the drawer resting at 0.5 closes
    (p ~ 0.05 -> 0); resting at 0 it does not begin, the touch-down being
    far from the edge.

`--check` reads each file back and asserts the motion it was made to show
(where the finger lands, how far and which way it goes, how fast it lifts)
and, with its own model of the snap-point rules (issue 28: progress = rest +
signed travel / distance, the bounds, the rubber band, the release rule with
iOS's projection), the target each config reaches from each rest it is played
from in Recordings/README.md, independently of the Swift engine.
"""

import math

import synthesise as syn

# The two configs, as the model below needs them (Recordings/snap/*.toml).
CAROUSEL = dict(kind="swipe", direction="left", distance=2.0, points=[0.0, 0.5, 1.0],
                long_swipes=False, rubber=True)
DRAWER = dict(kind="edge-pan", edge="left", margin=0.05, distance=1.0, points=[0.0, 0.5, 1.0],
              long_swipes=True, rubber=False)
ACTIVATION, FLICK, DECELERATION = 0.02, 1.0, 0.998


# ---------------------------------------------------------------------------
# The scenes


def scene_carousel_page_left(clock, rng):
    return syn.one_finger(clock, (0.80, 0.50), [(1.00, 0.16, 0.51, -0.05, 0.0)], 1.00)


def scene_carousel_flick_left(clock, rng):
    return syn.one_finger(clock, (0.60, 0.52),
                          [(0.008, 0.60, 0.52, 0.0, 0.0),
                           (0.088, 0.45, 0.515, -3.5, 0.0)], 0.088)


def scene_carousel_page_right(clock, rng):
    return syn.one_finger(clock, (0.20, 0.48), [(1.00, 0.84, 0.49, 0.05, 0.0)], 1.00)


def scene_drawer_half_open(clock, rng):
    return syn.one_finger(clock, (0.01, 0.40), [(0.80, 0.45, 0.42, 0.0, 0.0)], 1.00)


def scene_drawer_close_from_middle(clock, rng):
    return syn.one_finger(clock, (0.60, 0.55), [(0.70, 0.15, 0.56, 0.0, 0.0)], 0.85)


# ---------------------------------------------------------------------------
# --check: the motion, and the snap-point rules' model


def the_touch(details):
    """The file's one touch: [(t, x, y)] normalised, and the time it lifted."""
    frames = [(t, down) for t, down in details if down]
    (tid,) = {tid for _, down in frames for tid in down}
    samples = [(t, down[tid][syn.ABS_MT_POSITION_X] / syn.X_MAX, down[tid][syn.ABS_MT_POSITION_Y] / syn.Y_MAX)
               for t, down in frames]
    lift = next(t for t, down in details if t > samples[-1][0] and not down)
    return samples, lift


def snap_gesture(details, spec, rest):
    """What the snap rules make of the file's touch for a transition resting
    at point `rest` (an index): None if it does not begin, else (p, v,
    target index, least and greatest progress shown)."""
    samples, lift = the_touch(details)
    points = spec["points"]
    rest_p = points[rest]
    t0, x0, y0 = samples[0]
    if spec["kind"] == "edge-pan" and rest == 0 and x0 > spec["margin"]:
        return None  # the edge rule holds at the first point only (bidirectional)
    sign = -1.0 if spec.get("direction") == "left" else 1.0  # travel that counts as forward
    low_k, high_k = (0, len(points) - 1) if spec["long_swipes"] else (max(0, rest - 1), min(len(points) - 1, rest + 1))
    low, high = points[low_k], points[high_k]

    def shown(raw):
        if raw < low:
            return low - (1 - 1 / ((low - raw) * 0.55 + 1)) if spec["rubber"] and low_k == 0 else low
        if raw > high:
            return high + (1 - 1 / ((raw - high) * 0.55 + 1)) if spec["rubber"] and high_k == len(points) - 1 else high
        return raw
    progress = None
    for t, x, y in samples:
        along, across = sign * (x - x0), abs(y - y0)
        if progress is None:
            if abs(along) < ACTIVATION:
                continue
            if across > abs(along):
                return None
            progress = []
        progress.append((t, shown(rest_p + along / spec["distance"])))
    if progress is None:
        return None
    p = progress[-1][1]
    v = syn.release_velocity(progress, lift)
    if abs(v) < FLICK:
        target = min(range(low_k, high_k + 1), key=lambda k: (abs(points[k] - p), k))
    else:
        projected = min(high, max(low, p + v / 1000 * DECELERATION / (1 - DECELERATION)))
        prev = max(k for k in range(low_k, high_k + 1) if points[k] <= projected)
        nxt = min(k for k in range(low_k, high_k + 1) if points[k] >= projected)
        behind, ahead = (prev, nxt) if v > 0 else (nxt, prev)
        if behind == rest and ahead != rest:
            target = ahead
        else:
            target = min(range(low_k, high_k + 1), key=lambda k: (abs(points[k] - projected), k))
    shown_all = [q for _, q in progress]
    return p, v, target, min(shown_all), max(shown_all)


def motion(details, x_from, x_to, lifted):
    """Facts of a one-finger horizontal move: lands near x_from, ends near
    x_to, stays level; `lifted(speed)` says whether its speed at the lift
    (normalised widths/s over the last 50 ms) is as intended."""
    samples, lift = the_touch(details)
    (t0, x0, y0), (t1, x1, y1) = samples[0], samples[-1]
    recent = [(t, x) for t, x, _ in samples if t >= t1 - 0.05]
    speed = (recent[-1][1] - recent[0][1]) / (recent[-1][0] - recent[0][0]) if len(recent) > 1 else 0.0
    if lift - t1 > 0.040:
        speed = 0.0  # it rested before lifting
    return [(abs(x0 - x_from) < 0.01 and abs(x1 - x_to) < 0.02 and abs(y1 - y0) < 0.05,
             "one finger from (%.3f, %.3f) to (%.3f, %.3f) in %.3f s" % (x0, y0, x1, y1, t1 - t0)),
            (lifted(speed), "lifts at %+.2f widths/s (%.0f ms after its last report)" % (speed, (lift - t1) * 1e3))]


def outcomes(details, spec, cases):
    """Facts: from each (rest index, expected target index or None)."""
    facts = []
    points = spec["points"]
    for rest, want in cases:
        got = snap_gesture(details, spec, rest)
        if got is None:
            facts.append((want is None, "from rest %g: does not begin" % points[rest]))
            continue
        p, v, target, least, most = got
        page = points[1] - points[0]
        within = points[rest] - page - 1e-9 <= least and most <= points[rest] + page + 1e-9
        facts.append((want == target and (spec["long_swipes"] or within),
                      "from rest %g: p %.3f, v %+.2f/s -> snap to %g (index %d), shown %.3f...%.3f"
                      % (points[rest], p, v, points[target], target, least, most)))
    return facts


def facts_carousel_page_left(absinfo, details):
    return motion(details, 0.80, 0.16, lambda s: abs(s) < 0.2) \
        + outcomes(details, CAROUSEL, [(0, 1), (1, 2)])


def facts_carousel_flick_left(absinfo, details):
    return motion(details, 0.60, 0.45, lambda s: s < -2.0) \
        + outcomes(details, CAROUSEL, [(1, 2), (0, 1)])


def facts_carousel_page_right(absinfo, details):
    return motion(details, 0.20, 0.84, lambda s: abs(s) < 0.2) \
        + outcomes(details, CAROUSEL, [(2, 1), (1, 0), (0, 0)])


def facts_drawer_half_open(absinfo, details):
    return motion(details, 0.01, 0.45, lambda s: s == 0.0) \
        + outcomes(details, DRAWER, [(0, 1)])


def facts_drawer_close_from_middle(absinfo, details):
    return motion(details, 0.60, 0.15, lambda s: s == 0.0) \
        + outcomes(details, DRAWER, [(1, 0), (0, None)])


RECORDINGS = [
    syn.Recording("carousel-page-left", 301, 120, scene_carousel_page_left, {"back": None},
                  folder="snap", facts=facts_carousel_page_left),
    syn.Recording("carousel-flick-left", 302, 240, scene_carousel_flick_left, {"back": None},
                  folder="snap", facts=facts_carousel_flick_left),
    syn.Recording("carousel-page-right", 303, 120, scene_carousel_page_right, {"back": None},
                  folder="snap", facts=facts_carousel_page_right),
    syn.Recording("drawer-half-open", 304, 120, scene_drawer_half_open,
                  {"back": ("cancel", (0.40, 0.48), (0.0, 0.0))},
                  folder="snap", facts=facts_drawer_half_open),
    syn.Recording("drawer-close-from-middle", 305, 120, scene_drawer_close_from_middle, {"back": None},
                  folder="snap", facts=facts_drawer_close_from_middle),
]
