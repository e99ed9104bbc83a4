#!/usr/bin/env python3
"""Draws the soak's samples (bench/soak.py's samples.csv) as one SVG: the
daemon's RSS, its descriptors and the clients it counts, and the event-loop
lag (ping round trip, and each second's p99 from a paced step's due time to
its first client write), against time, with the warm-up shaded.

    soak-plot.py SAMPLES.csv OUTPUT.svg [WARMUP_SECONDS]
"""

import csv
import math
import sys
from xml.sax.saxutils import escape

WIDTH, PANEL_H, LEFT, RIGHT, TOP, GAP = 900, 170, 70, 150, 40, 50


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def nice_max(v):
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= v:
            return m * e
    return 10 * e


class Panel:
    """One chart: a time axis shared by all, its own y range."""

    def __init__(self, svg, index, title, unit, t_max, y_min, y_max, warmup):
        self.svg, self.t_max, self.y_min, self.y_max = svg, t_max, y_min, y_max
        self.x0, self.x1 = LEFT, WIDTH - RIGHT
        self.y0 = TOP + index * (PANEL_H + GAP)
        self.y1 = self.y0 + PANEL_H
        svg.append('<text x="%d" y="%d" class="title">%s</text>' % (self.x0, self.y0 - 8, escape(title)))
        if warmup:
            svg.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" class="warmup"/>'
                       % (self.x0, self.y0, self.x(min(warmup, t_max)) - self.x0, PANEL_H))
            svg.append('<text x="%.1f" y="%d" class="note">warm-up</text>' % (self.x0 + 4, self.y0 + 12))
        svg.append('<rect x="%d" y="%d" width="%d" height="%d" class="frame"/>'
                   % (self.x0, self.y0, self.x1 - self.x0, PANEL_H))
        step = nice_max((y_max - y_min) / 5)
        v = math.ceil(y_min / step) * step
        while v <= y_max + 1e-9:
            y = self.y(v)
            svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>' % (self.x0, self.x1, y, y))
            svg.append('<text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>'
                       % (self.x0 - 6, y + 4, "%g" % round(v, 6)))
            v += step
        svg.append('<text x="%d" y="%d" class="tick" transform="rotate(-90 %d %d)" text-anchor="middle">%s</text>'
                   % (16, (self.y0 + self.y1) // 2, 16, (self.y0 + self.y1) // 2, escape(unit)))
        step = nice_max(t_max / 8)
        t = 0.0
        while t <= t_max + 1e-9:
            x = self.x(t)
            svg.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="grid"/>' % (x, x, self.y0, self.y1))
            svg.append('<text x="%.1f" y="%d" class="tick" text-anchor="middle">%g</text>' % (x, self.y1 + 14, t))
            t += step
        self.legend = 0

    def x(self, t):
        return self.x0 + (self.x1 - self.x0) * t / self.t_max

    def y(self, v):
        v = min(max(v, self.y_min), self.y_max)
        return self.y1 - (self.y1 - self.y0) * (v - self.y_min) / (self.y_max - self.y_min)

    def line(self, points, color, label, dots=False):
        runs, run = [], []
        for t, v in points:
            if v is None:
                if run:
                    runs.append(run)
                run = []
            else:
                run.append("%.1f,%.1f" % (self.x(t), self.y(v)))
        if run:
            runs.append(run)
        for r in runs:
            if dots:
                for p in r:
                    x, y = p.split(",")
                    self.svg.append('<circle cx="%s" cy="%s" r="1.3" fill="%s"/>' % (x, y, color))
            else:
                self.svg.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="1.2"/>'
                                % (" ".join(r), color))
        ly = self.y0 + 14 + 16 * self.legend
        self.legend += 1
        self.svg.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                        % (self.x1 + 10, self.x1 + 28, ly - 4, ly - 4, color))
        self.svg.append('<text x="%d" y="%d" class="tick">%s</text>' % (self.x1 + 32, ly, escape(label)))


def main():
    rows = read(sys.argv[1])
    out = sys.argv[2]
    warmup = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    t = [float(r["t"]) for r in rows]
    t_max = max(t) if t else 1.0
    rss = [float(r["rss_kib"]) / 1024 for r in rows]
    fds = [float(r["fds"]) for r in rows]
    clients = [number(r["clients"]) for r in rows]  # blank: /metrics did not answer
    # Descriptors beyond the idle daemon's and its clients' own (2 a Unix
    # client, 1 a WebSocket client): 0 when nothing leaks.
    extra = [number(r["unexplained_fds"]) for r in rows]
    ping = [number(r["ping_ms"]) for r in rows]
    due = [number(r["due_to_write_p99_ms"]) for r in rows]

    svg = []
    height = TOP + 3 * (PANEL_H + GAP)
    lo, hi = min(rss), max(rss)
    pad = max(1.0, 0.1 * hi)
    p = Panel(svg, 0, "Daemon RSS (VmRSS, every second); dashed: ±5 % of the reference after warm-up", "MiB", t_max,
              max(0.0, math.floor(lo - pad)), math.ceil(hi + pad), warmup)
    warm = [v for x, v in zip(t, rss) if x > warmup]
    if warm:
        ref = sorted(warm[:10])[len(warm[:10]) // 2]
        for f, label in ((1.05, "+5 %"), (0.95, "−5 %")):
            y = p.y(ref * f)
            svg.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="band"/>' % (p.x(warmup), p.x1, y, y))
            svg.append('<text x="%d" y="%.1f" class="note">%s</text>' % (p.x1 - 34, y - 3, label))
    p.line(list(zip(t, rss)), "#1f77b4", "RSS")
    hi = nice_max(max(fds + [c for c in clients if c is not None]) * 1.1)
    p = Panel(svg, 1, "Descriptors of the daemon (/proc/PID/fd), clients it counts, descriptors beyond theirs",
              "count", t_max, min([0.0] + [e - 5 for e in extra if e is not None]), hi, warmup)
    p.line(list(zip(t, fds)), "#2ca02c", "descriptors")
    p.line(list(zip(t, clients)), "#9467bd", "clients")
    p.line(list(zip(t, extra)), "#8c564b", "beyond clients'")
    values = [v for v in ping + due if v is not None]
    hi = nice_max(sorted(values)[int(0.995 * (len(values) - 1))] * 1.2) if values else 1.0
    p = Panel(svg, 2, "Event-loop lag (values above the top are drawn at the top)", "ms", t_max, 0, hi, warmup)
    p.line(list(zip(t, due)), "#ff7f0e", "due → write p99", dots=True)
    p.line(list(zip(t, ping)), "#d62728", "ping round trip", dots=True)
    svg.append('<text x="%d" y="%d" class="tick" text-anchor="middle">seconds since the replay started</text>'
               % ((LEFT + WIDTH - RIGHT) // 2, height - 12))
    head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
            'font-family="sans-serif">\n<style>.title{font-size:13px;font-weight:bold}.tick{font-size:11px}'
            '.note{font-size:10px;fill:#666}.grid{stroke:#e5e5e5}.frame{fill:none;stroke:#999}'
            '.warmup{fill:#f2f2f2}.band{stroke:#1f77b4;stroke-dasharray:4 3;opacity:.6}</style>\n'
            '<rect width="100%%" height="100%%" fill="white"/>\n' % (WIDTH, height, WIDTH, height))
    with open(out, "w") as f:
        f.write(head + "\n".join(svg) + "\n</svg>\n")


if __name__ == "__main__":
    main()
