#!/usr/bin/env python3
"""Writes the panel-health check's input: one evemu 1.3 recording of the
synthetic panel (Recordings/synthesise.py) that reports fast, then slowly,
while a finger moves:

- F, three strokes at 120 frames/s, 1.0 s each (x 0.30 -> 0.70), from
  0.20, 1.50 and 2.80 s: 360 report intervals of 8.3 ms;
- B, 4.20-4.60 s: a left-edge drag at 120 frames/s (x 0.01 -> 0.61):
  `back` begins, ends and finishes, so the check knows the fast part is
  over by the stream (no clock);
- S, four strokes at 25 frames/s, 2.4 s each (x 0.30 -> 0.70), from 7.50,
  10.30, 13.10 and 15.90 s: 240 report intervals of 40 ms.

Between strokes the finger is lifted (no report interval counts then).

    python3 Tests/kernel/make-health-recording.py OUTPUT
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "Recordings"))
sys.dont_write_bytecode = True  # no __pycache__ in Recordings/
import synthesise as syn  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    kernel = syn.Kernel(syn.PANEL, first_tracking_id=700)
    with open(argv[1], "w", encoding="utf-8", newline="\n") as fp:
        writer = syn.EvemuWriter(fp, syn.PANEL)
        for t0 in (0.20, 1.50, 2.80):
            syn.frame_by_frame_stroke(kernel, writer, t0, 1.0, 120, 0.30, 0.70, 0.50)   # F
        syn.frame_by_frame_stroke(kernel, writer, 4.20, 0.40, 120, 0.01, 0.61, 0.50)    # B
        for t0 in (7.50, 10.30, 13.10, 15.90):
            syn.frame_by_frame_stroke(kernel, writer, t0, 2.4, 25, 0.30, 0.70, 0.60)    # S
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
