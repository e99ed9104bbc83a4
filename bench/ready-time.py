#!/usr/bin/env python3
"""How long `transitiond run` takes from exec to READY=1.

Binds a datagram socket as $NOTIFY_SOCKET, starts `transitiond run` on a
fresh socket with no touchscreen (an empty --input-root, so the daemon is
ready once it serves and waits), and measures from just before the exec to
the arrival of READY=1; then SIGTERM and wait (bench/daemon.py). RUNS times
(default 20); prints each run, the median, minimum and maximum.

    bench/ready-time.py [TRANSITIOND]     (default .build/release/transitiond)
"""
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/
import daemon  # noqa: E402  (bench/daemon.py)

binary = sys.argv[1] if len(sys.argv) > 1 else daemon.DEFAULT_BINARY
runs = int(os.environ.get("RUNS", "20"))
daemon.check_binary(binary)

times = []
with daemon.Notifier() as notifier:
    for run in range(runs):
        process, elapsed = notifier.start(binary)
        daemon.stop(process)
        times.append(elapsed * 1000)
        print(f"run {run + 1:2d}: {elapsed * 1000:.1f} ms")
print(f"exec → READY=1 over {runs} runs: median {statistics.median(times):.1f} ms, "
      f"min {min(times):.1f} ms, max {max(times):.1f} ms ({os.cpu_count()} CPUs, {os.path.basename(binary)})")
