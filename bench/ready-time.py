#!/usr/bin/env python3
"""How long `transitiond run` takes from exec to READY=1.

Binds a datagram socket as $NOTIFY_SOCKET, starts `transitiond run` on a
fresh socket with no touchscreen (an empty --input-root, so the daemon is
ready once it serves and waits), and measures from just before the exec to
the arrival of READY=1; then SIGTERM and wait. RUNS times (default 20);
prints each run, the median, minimum and maximum.

    bench/ready-time.py [TRANSITIOND]     (default .build/release/transitiond)
"""
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/release/transitiond")
runs = int(os.environ.get("RUNS", "20"))
if not os.access(binary, os.X_OK):
    sys.exit(f"no binary at {binary} (build it: swift build -c release --static-swift-stdlib --product transitiond)")

times = []
with tempfile.TemporaryDirectory(prefix="ready-") as folder:
    inputs = os.path.join(folder, "inputs")
    os.mkdir(inputs)
    notify_path = os.path.join(folder, "notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(30)
    env = dict(os.environ, NOTIFY_SOCKET=notify_path)
    for run in range(runs):
        sock = os.path.join(folder, f"s{run}.sock")
        start = time.perf_counter()
        daemon = subprocess.Popen([binary, "run", "--socket", sock, "--input-root", inputs],
                                  env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        while True:
            message = notify.recv(4096).decode()
            if message.startswith("READY=1"):
                break
        elapsed = time.perf_counter() - start
        times.append(elapsed * 1000)
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        print(f"run {run + 1:2d}: {elapsed * 1000:.1f} ms")
print(f"exec → READY=1 over {runs} runs: median {statistics.median(times):.1f} ms, "
      f"min {min(times):.1f} ms, max {max(times):.1f} ms ({os.cpu_count()} CPUs, {os.path.basename(binary)})")
