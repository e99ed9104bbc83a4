"""Processes of a benchmark: every one started is tracked and ended by pid
on the way out (bench/socket-latency.py, bench/soak.py)."""

import ctypes
import signal
import subprocess
import time

live = []  # Popen objects not yet reaped


def start(argv, **kw):
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, **kw)
    live.append(p)
    return p


def end(procs, grace):
    """SIGTERM each, wait up to `grace` seconds in all, SIGKILL the rest."""
    for p in procs:
        if p.poll() is None:
            try:
                p.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    for p in procs:
        if p in live:
            live.remove(p)


def die_with_parent():
    """preexec_fn: the child gets SIGTERM if this script dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
