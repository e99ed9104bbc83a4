#!/usr/bin/env python3
"""What the panel's geometry ([input] rotation, flips, calibration matrix)
costs per frame: `transitiond replay --fast --json` over the 1M-event
recording (bench/make-large-recording.py) with the default `back`
transition, once without [input] geometry and once with all of it, in
alternating rounds; prints the medians and the difference per frame.

    bench/geometry-cost.py [ROUNDS]          (default 7; TRANSITIOND=path, else .build/release/transitiond)
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
binary = os.environ.get("TRANSITIOND", os.path.join(ROOT, ".build/release/transitiond"))
recording = os.path.join(HERE, "out", "large-1M.events")
if not os.path.exists(recording):
    os.makedirs(os.path.dirname(recording), exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "make-large-recording.py"), recording], check=True)
frames = 0
with open(recording, "rb") as f:
    for line in f:
        if line.startswith(b"E:") and line.split()[2:5] == [b"0000", b"0000", b"0000"]:
            frames += 1

BACK = '[[transition]]\nname = "back"\ngesture = "edge-pan"\nedge = "left"\n'
configs = {
    "identity": BACK,
    # A quarter turn, a flip and a matrix that is the identity on screen,
    # so both runs recognise the same gestures and write the same output.
    "geometry": BACK + "\n[input]\nrotation = 180\nflip_x = true\nflip_y = true\ncalibration = [1, 0, 0, 0, 1, 0]\n",
}
work = tempfile.mkdtemp(prefix="geometry-cost-")
paths = {}
for name, text in configs.items():
    paths[name] = os.path.join(work, name + ".toml")
    with open(paths[name], "w") as f:
        f.write(text)

def run(name):
    started = time.perf_counter()
    done = subprocess.run([binary, "replay", "--fast", "--json", "--config", paths[name], recording],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    took = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{name}: {done.stderr.decode(errors='replace')}")
    return took, done.stdout.count(b"\n")

times = {name: [] for name in configs}
lines = {}
run("identity")   # warm-up
for r in range(rounds):
    for name in (["identity", "geometry"] if r % 2 == 0 else ["geometry", "identity"]):
        took, count = run(name)
        times[name].append(took)
        lines.setdefault(name, count)
a, b = statistics.median(times["identity"]), statistics.median(times["geometry"])
print(f"{frames} frames, {rounds} rounds each, alternating; output lines: {lines}")
print(f"identity: median {a:.3f} s (min {min(times['identity']):.3f}); geometry: median {b:.3f} s (min {min(times['geometry']):.3f})")
print(f"geometry adds {(b - a) / frames * 1e9:.1f} ns per frame (median difference), ratio {b / a:.3f}")
