#!/usr/bin/env python3
"""What `transitiond run` costs while it waits with no touchscreen: its RSS
and how often it wakes up.

Starts the daemon as bench/ready-time.py does (bench/daemon.py), waits for
READY=1 and SETTLE seconds (default 2), then samples every thread's
voluntary + non-voluntary context switches (/proc/PID/task/*/status) and
VmRSS (/proc/PID/status) once a second for IDLE_SECONDS (default 10). A context
switch is a wake-up: the thread slept and ran again (or was preempted).
Prints wake-ups per second over the window, the RSS (median and largest
sample) and the thread count; then SIGTERM.

    bench/idle.py [TRANSITIOND]     (default .build/release/transitiond)

Issue 14's targets: zero wake-ups per second, idle RSS ≤ 12 MiB.
"""
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in bench/
import daemon  # noqa: E402  (bench/daemon.py)

TARGET_WAKEUPS = 0
TARGET_RSS_MIB = 12


def status_fields(path, names):
    """{name: integer} of the `Name: value` lines of a /proc status file."""
    found = {}
    with open(path) as fp:
        for line in fp:
            key, _, value = line.partition(":")
            if key in names:
                found[key] = int(value.split()[0])
    return found


def switches(pid):
    """{thread id: (thread name, context switches so far)}. A thread that
    ends between listing and reading is left out."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            fields = status_fields(f"/proc/{pid}/task/{tid}/status",
                                   ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"))
            with open(f"/proc/{pid}/task/{tid}/comm") as fp:
                name = fp.read().strip()
        except FileNotFoundError:
            continue
        threads[tid] = (name, sum(fields.values()))
    return threads


def woken(first, last, seconds):
    """Wake-ups per second of each thread that woke between two `switches`
    samples, by name (threads of the same name summed), most first."""
    rates = {}
    for tid, (name, count) in last.items():
        before = first.get(tid, (name, 0))[1]
        if count > before:
            rates[name] = rates.get(name, 0.0) + (count - before) / seconds
    return sorted(rates.items(), key=lambda item: -item[1])


def rss_mib(pid):
    return status_fields(f"/proc/{pid}/status", ("VmRSS",))["VmRSS"] / 1024


def measure(binary, seconds=10.0, settle=2.0):
    """{wakeups_per_s, rss_mib (median), rss_max_mib, threads, woken (the
    threads that woke, with their rates), seconds} of one idle daemon."""
    with daemon.Notifier() as notifier:
        process, _ = notifier.start(binary)
        try:
            time.sleep(settle)
            first = switches(process.pid)
            start = time.monotonic()
            rss = []
            while time.monotonic() - start < seconds:
                rss.append(rss_mib(process.pid))
                time.sleep(min(1.0, max(0.0, seconds - (time.monotonic() - start))))
            last = switches(process.pid)
            elapsed = time.monotonic() - start
        finally:
            daemon.stop(process)
    rates = woken(first, last, elapsed)
    return dict(wakeups_per_s=sum(rate for _, rate in rates), rss_mib=statistics.median(rss),
                rss_max_mib=max(rss), threads=len(last), woken=rates, seconds=elapsed)


def woken_text(result):
    """Which threads woke, for the report."""
    if not result["woken"]:
        return "no thread woke"
    return "woken: " + ", ".join("%s %.1f/s" % (name, rate) for name, rate in result["woken"])


def verdicts(result):
    """The issue's two targets, as (text, passed) pairs."""
    w, r = result["wakeups_per_s"], result["rss_mib"]
    return [("wake-ups %.1f/s (target %d)" % (w, TARGET_WAKEUPS), w <= TARGET_WAKEUPS),
            ("idle RSS %.1f MiB (target ≤ %d MiB)" % (r, TARGET_RSS_MIB), r <= TARGET_RSS_MIB)]


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else daemon.DEFAULT_BINARY
    daemon.check_binary(binary)
    result = measure(binary, float(os.environ.get("IDLE_SECONDS", "10")), float(os.environ.get("SETTLE", "2")))
    print("idle over %.0f s after READY=1 and a settle: %.1f wake-ups/s, RSS %.1f MiB (max %.1f), %d threads; %s" % (
        result["seconds"], result["wakeups_per_s"], result["rss_mib"], result["rss_max_mib"], result["threads"],
        woken_text(result)))
    print("; ".join("%s: %s" % (text, "PASS" if ok else "FAIL") for text, ok in verdicts(result)))


if __name__ == "__main__":
    main()
