#!/usr/bin/env python3
"""The measuring half of bench/socket-latency.sh (which builds everything and
then runs this). See bench/README.md, "Socket fan-out benchmark".

For each subscriber count in SIZES and each of ROUNDS rounds, it runs the C
floor (bench/socket-floor.c) and transitiond (`replay --socket --stamp-sent`)
one after the other, the first of the two alternating from round to round.
One run:

  1. start the server on a Unix socket in a private temporary directory and
     wait (bounded) for the socket file; with WAIT_CLIENTS=1 (the default)
     both servers get `--wait-clients N` and start streaming once all N
     subscribers are connected;
  2. start N bench/socket-subscriber.c processes; each writes one byte to a
     shared pipe when the server's first line (hello) has arrived; wait
     (bounded) until N bytes came;
  3. WARMUP_SECONDS (default 1) of warm-up, then a measured window of
     SECONDS_PER_RUN: the server's utime+stime from /proc/PID/stat at both
     ends gives its CPU share of one core; at the end, VmHWM (peak RSS) and
     VmRSS from /proc/PID/status;
  4. SIGTERM to the subscribers (each then writes its (sent, received)
     pairs), SIGTERM to the server, everything waited for with a bound and
     SIGKILLed past it;
  5. latency = received - sent for every line whose `sent` stamp falls in the
     measured window, pooled over all subscribers -> p50 and p99.

Every process it starts is killed when it exits, however it exits (the C
programs also die with it: PR_SET_PDEATHSIG; transitiond gets the same through
prctl before exec).

Environment (set by socket-latency.sh): FLOOR, SUBSCRIBER, TRANSITIOND (with
FLOOR_ONLY=1 only used to measure the line size, may be empty), RECORDING,
CONFIG (optional: transitiond's config instead of the generated one), SIZES,
ROUNDS, SECONDS_PER_RUN, WARMUP_SECONDS, WAIT_IDLE, WAIT_CLIENTS, RATE, LINE_BYTES (default: measured
from transitiond's output), DOC (the file to write the table into; empty:
none), NPROC, COMMIT, COMMAND.
"""

import array
import math
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

env = os.environ
FLOOR, SUBSCRIBER = env["FLOOR"], env["SUBSCRIBER"]
TRANSITIOND = env.get("TRANSITIOND", "")
BASELINE = env.get("BASELINE", "")
FLOOR_ONLY = env.get("FLOOR_ONLY", "0") not in ("", "0")
# WEBSOCKET=1: transitiond's two transports side by side (Unix socket
# subscribers against WebSocket subscribers of the same replay), no floor.
WEBSOCKET = env.get("WEBSOCKET", "0") not in ("", "0")
# METRICS=1: transitiond with its metrics off (`[metrics] enabled = false`)
# against the same binary with a metrics listener scraped SCRAPE_HZ times a
# second (and the input-to-write histogram recording), no floor.
METRICS = env.get("METRICS", "0") not in ("", "0")
# FRAMES=1: touch to frame's cost. The same binary with metrics on
# (`--metrics`, not scraped) served to subscribers that read only against
# subscribers that also report a presented frame at most every 1/60 s
# (`socket-subscriber --frames 1`, as a UI on a 60 Hz display), no floor.
FRAMES = env.get("FRAMES", "0") not in ("", "0")
SCRAPE_HZ = float(env.get("SCRAPE_HZ", "5"))
RECORDING = env["RECORDING"]
SIZES = [int(s) for s in env.get("SIZES", "1 10 100 1000").split()]
ROUNDS = int(env.get("ROUNDS", "3"))
SECONDS = float(env.get("SECONDS_PER_RUN", "10"))
WARMUP = float(env.get("WARMUP_SECONDS", "1"))
WAIT_IDLE = float(env.get("WAIT_IDLE", "0"))
WAIT_CLIENTS = env.get("WAIT_CLIENTS", "1") not in ("", "0")
RATE = float(env.get("RATE", "240"))
DOC = env.get("DOC", "")
CLK_TCK = os.sysconf("SC_CLK_TCK")
RECORDING_SECONDS = 60.0  # bench/make-stream-recording.py
MAX_CLIENTS = 2000

BENCH_CONFIG = """\
# bench/socket-latency.py: the embedded default `back` transition, with
# completion animations at 240 frames/s (as the input), so the event rate stays
# about 240/s through releases; and room for the largest run.
frame_rate = 240

[[transition]]
name = "back"
gesture = "edge-pan"
edge = "left"

  [[transition.keyframe]]
  property = "dim"
  start = 0.0
  duration = 0.5
  from = 1.0
  to = 0.0
"""
# Every subscriber is the same user (and, on the WebSocket, loopback), so the
# per-peer limit (by default all but a quarter of a transport's) and the
# WebSocket's own limit (64 by default) are raised with `max_clients`.
SERVER_SECTION = ("\n[server]\nmax_clients = %d\nmax_websocket_clients = %d\nmax_clients_per_peer = %d\n"
                  % (MAX_CLIENTS, MAX_CLIENTS, MAX_CLIENTS))


def say(text):
    print(text, file=sys.stderr, flush=True)


class Failed(Exception):
    pass


class Stop(Exception):
    pass


def on_signal(sig, _frame):
    raise Stop("stopped by signal %d" % sig)


# Processes: every one started is tracked and ended by pid on the way out
# (bench/benchprocs.py).
from benchprocs import die_with_parent, end, live, start  # noqa: E402


# ---------------------------------------------------------------------------
# /proc


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)


def memory_kib(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = int(value.split()[0])
    return out


def machine_ticks():
    """(busy, total, steal) ticks of all CPUs; guest time is already in user."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values), values[7]


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as f:
            return "\n".join("    " + s for s in f.read().strip().splitlines()[-lines:])
    except OSError:
        return "    (no output)"


# ---------------------------------------------------------------------------
# One run


def read_samples(path, lo, hi, into):
    """Appends received - sent (ns) of the samples sent in [lo, hi]."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 16 or data[:6] != b"TDLAT1":
        raise Failed("%s: not a subscriber output file" % path)
    n = int.from_bytes(data[8:16], "little")
    pairs = array.array("q")
    pairs.frombytes(data[16:16 + 16 * n])
    if sys.byteorder != "little":
        pairs.byteswap()
    sent, received = pairs[0::2], pairs[1::2]
    got = 0
    for s, r in zip(sent, received):
        if lo <= s <= hi:
            into.append(r - s)
            got += 1
    return got


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def busy_over(seconds):
    """The machine's busy share (%) over the next `seconds`."""
    m0 = machine_ticks()
    time.sleep(seconds)
    m1 = machine_ticks()
    return 100.0 * (m1[0] - m0[0]) / max(1, m1[1] - m0[1])


def wait_idle():
    """With WAIT_IDLE=S: wait up to S seconds for a second in which the
    machine is under 15 % busy (other work, e.g. a build, distorts a run)."""
    if WAIT_IDLE <= 0:
        return
    deadline = time.monotonic() + WAIT_IDLE
    while busy_over(1.0) >= 15 and time.monotonic() < deadline:
        pass


def run_one(kind, n, workdir, config, line_bytes):
    wait_idle()
    run_dir = tempfile.mkdtemp(prefix="%s-%d-" % (kind, n), dir=workdir)
    sock = os.path.join(run_dir, "s.sock")
    connect_bound = 20.0 + 0.05 * n
    total_bound = connect_bound + WARMUP + SECONDS + 30.0
    if kind == "floor":
        argv = [FLOOR, sock, "--rate", "%g" % RATE, "--bytes", str(line_bytes),
                "--seconds", "%g" % total_bound, "--max-clients", str(MAX_CLIENTS)]
        extra = {}
    else:
        loops = math.ceil(total_bound / RECORDING_SECONDS) + 1
        argv = [BASELINE if kind.startswith("baseline") else TRANSITIOND, "replay", "--socket", sock, "--config", config, "--speed", "1",
                "--loop", str(loops), "--stamp-sent"]
        extra = {"preexec_fn": die_with_parent}
    target = sock
    if kind.endswith("websocket"):
        port = free_port()
        argv += ["--websocket", "127.0.0.1:%d" % port]
        target = "ws://127.0.0.1:%d" % port
    scraping = None
    if METRICS and kind == "transitiond":
        argv[argv.index(config)] = config + ".off"  # the same config, [metrics] enabled = false
    elif FRAMES:
        argv += ["--metrics", "127.0.0.1:%d" % free_port()]
    elif kind == "metrics":
        metrics_port = free_port()
        argv += ["--metrics", "127.0.0.1:%d" % metrics_port]
        scraping = Scraper("http://127.0.0.1:%d/metrics" % metrics_port)
    if WAIT_CLIENTS:
        argv += ["--wait-clients", str(n)]
    if kind != "floor":
        argv.append(RECORDING)
    server_log = os.path.join(run_dir, "server.log")
    sub_log = os.path.join(run_dir, "subscribers.log")
    with open(server_log, "wb") as log:
        server = start(argv, stdout=log, stderr=subprocess.STDOUT, **extra)
    subs = []
    if scraping:
        scraping.start()
    try:
        # 1. the socket
        deadline = time.monotonic() + 20.0
        while not os.path.exists(sock):
            if server.poll() is not None:
                raise Failed("%s exited with status %s before making its socket:\n  $ %s\n%s" % (
                    kind, server.returncode, " ".join(argv), tail(server_log)))
            if time.monotonic() > deadline:
                raise Failed("%s made no socket in 20 s:\n  $ %s\n%s" % (kind, " ".join(argv), tail(server_log)))
            time.sleep(0.01)

        # 2. the subscribers, and their "hello arrived" bytes
        ready_r, ready_w = os.pipe()
        spawned = time.monotonic()
        try:
            with open(sub_log, "ab") as log:
                for i in range(n):
                    subs.append(start(
                        [SUBSCRIBER, target, os.path.join(run_dir, "%d.lat" % i),
                         "--ready-fd", str(ready_w), "--timeout", str(int(total_bound + 60))]
                        + (["--frames", "1"] if kind == "frames" else []),
                        stdout=subprocess.DEVNULL, stderr=log, pass_fds=(ready_w,)))
            os.close(ready_w)
            ready_w = -1
            ready, deadline = 0, time.monotonic() + connect_bound
            while ready < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if select.select([ready_r], [], [], min(left, 1.0))[0]:
                    got = os.read(ready_r, 65536)
                    if not got:
                        break  # every subscriber has signalled or exited
                    ready += len(got)
                if server.poll() is not None:
                    break
        finally:
            os.close(ready_r)
            if ready_w >= 0:
                os.close(ready_w)
        if ready < n:
            dead = sum(1 for p in subs if p.poll() is not None)
            raise Failed("%s: only %d of %d subscribers got the hello within %.0f s "
                         "(%d exited; server %s)\nsubscribers' stderr:\n%s\nserver's output:\n%s" % (
                             kind, ready, n, connect_bound, dead,
                             "running" if server.poll() is None else "exited %s" % server.returncode,
                             tail(sub_log), tail(server_log)))

        connect_s = time.monotonic() - spawned

        # 3. warm-up, then the measured window
        time.sleep(WARMUP)
        c0, m0, t0 = cpu_ticks(server.pid), machine_ticks(), time.monotonic_ns()
        time.sleep(SECONDS)
        c1, m1, t1 = cpu_ticks(server.pid), machine_ticks(), time.monotonic_ns()
        mem = memory_kib(server.pid)
        if server.poll() is not None:
            raise Failed("%s exited (status %s) during the run:\n%s" % (kind, server.returncode, tail(server_log)))
        lost = sum(1 for p in subs if p.poll() is not None)
    finally:
        # 4. stop everything (subscribers first: they save their samples)
        if scraping:
            scraping.stop()
        end(subs, 20.0)
        end([server], 10.0)
    if server.returncode not in (0, -signal.SIGTERM):
        say("  warning: %s exited with status %s after SIGTERM:\n%s" % (kind, server.returncode, tail(server_log)))

    # 5. latencies
    latencies = array.array("q")
    missing = 0
    for i in range(n):
        path = os.path.join(run_dir, "%d.lat" % i)
        if os.path.exists(path):
            read_samples(path, t0, t1, latencies)
        else:
            missing += 1
    shutil.rmtree(run_dir, ignore_errors=True)
    if missing > lost:
        say("  warning: %d subscribers wrote no samples" % missing)
    window = (t1 - t0) / 1e9
    ordered = sorted(latencies)
    busy_ticks, all_ticks, steal_ticks = (b - a for a, b in zip(m0, m1))
    return {
        "p50": percentile(ordered, 0.50) / 1e6,
        "p99": percentile(ordered, 0.99) / 1e6,
        "max": (ordered[-1] / 1e6) if ordered else float("nan"),
        "cpu": 100.0 * (c1 - c0) / CLK_TCK / window,
        "hwm": mem.get("VmHWM", 0) / 1024.0,
        "rss": mem.get("VmRSS", 0) / 1024.0,
        "rate": len(ordered) / window / n,  # lines per second per subscriber
        "lost": lost,
        "connect": connect_s,
        "busy": 100.0 * busy_ticks / all_ticks if all_ticks else float("nan"),
        "steal": 100.0 * steal_ticks / all_ticks if all_ticks else float("nan"),
    }


# ---------------------------------------------------------------------------
# The table


class Scraper:
    """GETs a metrics URL SCRAPE_HZ times a second on a thread of its own,
    as a Prometheus with a short interval would (failures while the server
    starts are ignored; `scrapes` counts the ones that worked)."""

    def __init__(self, url):
        self.url = url
        self.halt = threading.Event()
        self.scrapes = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def start(self):
        self.thread.start()

    def run(self):
        while not self.halt.wait(1.0 / SCRAPE_HZ):
            try:
                with urllib.request.urlopen(self.url, timeout=2) as response:
                    response.read()
                    self.scrapes += 1
            except OSError:
                pass

    def stop(self):
        self.halt.set()
        self.thread.join(5)


def free_port():
    """A loopback TCP port nothing listens on now."""
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pair_table(results, other, a_name, b_name, goal=None, base="transitiond"):
    """transitiond's plain runs (a) against its `other` runs (b), and what b adds
    (`base`: the plain runs of another binary, the baseline's)."""
    keys = ["p50", "p99", "max", "cpu", "rate"]
    med = {}
    for kind in (base, other):
        for n in SIZES:
            runs = results.get((kind, n), [])
            med[kind, n] = {k: statistics.median(r[k] for r in runs) if runs else float("nan") for k in keys}
    head = ["subscribers", "%s p50 ms" % a_name, "%s p99 ms" % a_name, "%s p50 ms" % b_name, "%s p99 ms" % b_name,
            "added p50 ms", "added p99 ms", "%s CPU %%" % a_name, "%s CPU %%" % b_name,
            "%s lines/s" % a_name, "%s lines/s" % b_name]
    rows = []
    verdicts = []
    for n in SIZES:
        u, w = med[base, n], med[other, n]
        rows.append([str(n), ms(u["p50"]), ms(u["p99"]), ms(w["p50"]), ms(w["p99"]),
                     "%.3f" % (w["p50"] - u["p50"]), "%.3f" % (w["p99"] - u["p99"]),
                     fmt(u["cpu"], 1), fmt(w["cpu"], 1), fmt(u["rate"], 0), fmt(w["rate"], 0)])
        added = w["p99"] - u["p99"]
        verdicts.append("%d: %s adds %.3f ms at p99, p99 ratio %s, CPU ratio %s%s" % (
            n, b_name, added, ratio(w["p99"], u["p99"]), ratio(w["cpu"], u["cpu"]),
            (" (goal ≤ %g ms: %s)" % (goal, "ok" if added <= goal else "OVER")) if goal is not None and n == 1 else ""))
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines), verdicts


def fmt(v, digits=2):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.*f" % (digits, v)


def ms(v):
    if v is None or math.isnan(v):
        return "–"
    return "%.3f" % v if v < 1 else fmt(v)


def ratio(a, b):
    return "–" if not b or math.isnan(a) or math.isnan(b) else "%.2f" % (a / b)


def table(results, kinds):
    med = {}
    keys = ["p50", "p99", "max", "cpu", "hwm", "rss", "rate", "lost", "connect", "busy", "steal"]
    for kind in kinds:
        for n in SIZES:
            runs = results.get((kind, n), [])
            med[kind, n] = {k: statistics.median(r[k] for r in runs) if runs else float("nan") for k in keys}
    if kinds == ["floor"]:
        head = ["subscribers", "floor p50 ms", "floor p99 ms", "floor CPU %", "floor RSS MiB",
                "floor lines/s"]
        rows = [[str(n), ms(med["floor", n]["p50"]), ms(med["floor", n]["p99"]),
                 fmt(med["floor", n]["cpu"], 1), fmt(med["floor", n]["hwm"], 1),
                 fmt(med["floor", n]["rate"], 0)] for n in SIZES]
    else:
        head = ["subscribers", "floor p50 ms", "floor p99 ms", "floor CPU %", "floor lines/s",
                "transitiond p50 ms", "transitiond p99 ms", "transitiond CPU %", "transitiond lines/s",
                "transitiond RSS MiB (peak / end)", "p50 ×", "p99 ×", "CPU ×"]
        rows = []
        for n in SIZES:
            f, t = med["floor", n], med["transitiond", n]
            rows.append([str(n), ms(f["p50"]), ms(f["p99"]), fmt(f["cpu"], 1), fmt(f["rate"], 0),
                         ms(t["p50"]), ms(t["p99"]), fmt(t["cpu"], 1), fmt(t["rate"], 0),
                         "%s / %s" % (fmt(t["hwm"], 1), fmt(t["rss"], 1)),
                         ratio(t["p50"], f["p50"]), ratio(t["p99"], f["p99"]), ratio(t["cpu"], f["cpu"])])
    if "baseline" in kinds:
        head += ["baseline p99 ms", "baseline CPU %", "baseline lines/s", "p99 × baseline", "CPU × baseline"]
        for row, n in zip(rows, SIZES):
            b, t = med["baseline", n], med["transitiond", n]
            row += [ms(b["p99"]), fmt(b["cpu"], 1), fmt(b["rate"], 0), ratio(t["p99"], b["p99"]), ratio(t["cpu"], b["cpu"])]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines), med


def verdict(med):
    """The issue's targets: p99 and CPU within 1.5x the floor, RSS <= 40 MiB at 1,000."""
    out = []
    for n in SIZES:
        f, t = med["floor", n], med["transitiond", n]
        if any(math.isnan(x) for x in (f["p99"], t["p99"], f["cpu"], t["cpu"])):
            out.append("%d: no result" % n)
            continue
        p = t["p99"] / f["p99"] if f["p99"] else float("inf")
        c = t["cpu"] / f["cpu"] if f["cpu"] else float("inf")
        out.append("%d: p99 %.2f× %s, CPU %.2f× %s" % (
            n, p, "ok" if p <= 1.5 else "OVER 1.5×", c, "ok" if c <= 1.5 else "OVER 1.5×"))
    if 1000 in SIZES:
        h = med["transitiond", 1000]["hwm"]
        out.append("RSS at 1000: no result" if math.isnan(h) else
                   "RSS at 1000: %.1f MiB %s" % (h, "ok" if h <= 40 else "OVER 40 MiB"))
    return out


def against_baseline(med):
    """p99 and CPU of transitiond over the baseline's, per size."""
    out = []
    for n in SIZES:
        b, t = med["baseline", n], med["transitiond", n]
        if any(math.isnan(x) for x in (b["p99"], t["p99"], b["cpu"], t["cpu"])):
            out.append("%d: no result" % n)
            continue
        p, c = t["p99"] / b["p99"], t["cpu"] / b["cpu"]
        out.append("%d: p99 %.2f× %s, CPU %.2f× %s" % (
            n, p, "ok" if p <= 1.1 else "OVER 1.1×", c, "ok" if c <= 1.1 else "OVER 1.1×"))
    return out


def write_doc(text):
    marker = "websocket-latency" if WEBSOCKET else "metrics-latency" if METRICS else \
        "frames-latency" if FRAMES else "socket-latency"
    begin, finish = "<!-- %s:begin -->" % marker, "<!-- %s:end -->" % marker
    section = "%s\n%s\n%s" % (begin, text.rstrip("\n"), finish)
    old = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else \
        "# Benchmarks\n\n## Socket fan-out\n\n"
    if begin in old and finish in old:
        new = old[:old.index(begin)] + section + old[old.index(finish) + len(finish):]
    else:
        new = old.rstrip("\n") + "\n\n" + section + "\n"
    tmp = DOC + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, DOC)


def measure_line_bytes(workdir):
    """The mean size of transitiond's `changed` lines for the recording, with
    the newline and a `,"sent":NANOS` field of today's CLOCK_MONOTONIC, so the
    floor writes lines of the same size. 152 without a transitiond binary."""
    if not TRANSITIOND or not os.access(TRANSITIOND, os.X_OK):
        return 152, "default"
    config = os.path.join(workdir, "fast.toml")
    with open(config, "w") as f:
        f.write(BENCH_CONFIG)
    out = subprocess.run([TRANSITIOND, "replay", "--fast", "--json", "--config", config, RECORDING],
                         stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    sizes = [len(line) + 1 for line in out.stdout.splitlines() if line.startswith(b'{"type":"changed"')]
    if out.returncode != 0 or not sizes:
        raise Failed("transitiond replay --fast failed (%d): %s" % (
            out.returncode, out.stderr.decode(errors="replace").strip()[-2000:]))
    stamp = len(',"sent":') + len(str(time.monotonic_ns()))
    return round(sum(sizes) / len(sizes)) + stamp, "transitiond's mean `changed` line"


def main():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)
    kinds = ["transitiond", "websocket"] + (["baseline", "baseline-websocket"] if BASELINE else []) if WEBSOCKET else ["transitiond", "metrics"] if METRICS else ["transitiond", "frames"] if FRAMES else \
        ["floor"] if FLOOR_ONLY else ["floor", "transitiond"] + (["baseline"] if BASELINE else [])
    workdir = tempfile.mkdtemp(prefix="socket-latency-")
    results = {}
    failures = []
    started = time.time()
    try:
        if env.get("LINE_BYTES"):
            line_bytes, line_source = int(env["LINE_BYTES"]), "LINE_BYTES"
        else:
            line_bytes, line_source = measure_line_bytes(workdir)
        idle_busy = busy_over(1.0)
        if idle_busy > 20:
            say("socket-latency: warning: the machine is already %.0f %% busy before the benchmark "
                "(other work running?): the figures will be noisy" % idle_busy)
        say("== %d-byte lines (%s); sizes %s, %d round%s, %g s + %g s warm-up per run" % (
            line_bytes, line_source, " ".join(map(str, SIZES)), ROUNDS, "" if ROUNDS == 1 else "s",
            SECONDS, WARMUP))
        config = env.get("CONFIG") or os.path.join(workdir, "bench.toml")
        if not env.get("CONFIG"):
            with open(config, "w") as f:
                f.write(BENCH_CONFIG + SERVER_SECTION)
        if METRICS:
            with open(config, encoding="utf-8") as f, open(config + ".off", "w", encoding="utf-8") as off:
                off.write(f.read() + "\n[metrics]\nenabled = false\n")
        for n in SIZES:
            for r in range(ROUNDS):
                # Who goes first changes every round (with a baseline, each in turn).
                order = (kinds if r % 2 == 0 else kinds[::-1]) if len(kinds) < 3 else \
                    kinds[r % len(kinds):] + kinds[:r % len(kinds)]
                for kind in order:
                    try:
                        res = run_one(kind, n, workdir, config, line_bytes)
                    except Failed as e:
                        say("socket-latency: %d subscribers, round %d/%d: %s" % (n, r + 1, ROUNDS, e))
                        failures.append("%s with %d subscribers, round %d" % (kind, n, r + 1))
                        results.setdefault((kind, n), [])
                        continue
                    results.setdefault((kind, n), []).append(res)
                    say("  %4d subscribers, round %d/%d, %-11s p50 %s ms  p99 %s ms  max %s ms  "
                        "CPU %s %%  RSS %s/%s MiB  %.1f lines/s/sub  lost %d  all connected %.1f s after the first start  machine busy %.0f %% (steal %.0f %%)" % (
                            n, r + 1, ROUNDS, kind, ms(res["p50"]), ms(res["p99"]), ms(res["max"]),
                            fmt(res["cpu"], 1), fmt(res["hwm"], 1), fmt(res["rss"], 1),
                            res["rate"], res["lost"], res["connect"], res["busy"], res["steal"]))
    except Failed as e:
        say("socket-latency: %s" % e)
        return 1
    except Stop as e:
        say("socket-latency: %s" % e)
        return 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        end(list(live), 10.0)
        shutil.rmtree(workdir, ignore_errors=True)

    if WEBSOCKET:
        text, verdicts = pair_table(results, "websocket", "Unix", "WebSocket", goal=0.2)
        if BASELINE:
            base_text, base_verdicts = pair_table(results, "baseline-websocket", "Unix", "WebSocket", goal=0.2,
                                                  base="baseline")
            text = "transitiond:\n\n" + text + "\n\nBaseline (BASELINE=):\n\n" + base_text
            verdicts = verdicts + ["baseline " + v for v in base_verdicts]
    elif METRICS:
        text, verdicts = pair_table(results, "metrics", "off", "on")
    elif FRAMES:
        text, verdicts = pair_table(results, "frames", "reading", "reporting")
    else:
        text, med = table(results, kinds)
    when = time.strftime("%Y-%m-%d", time.localtime(started))
    summary = [
        "Run %s on %s CPUs (nproc), commit %s; %d round%s per size, medians; "
        "%g lines/s, %d-byte lines; %g s measured per run after %g s of warm-up." % (
            when, env.get("NPROC", "?"), env.get("COMMIT", "?"), ROUNDS, "" if ROUNDS == 1 else "s",
            RATE, line_bytes, SECONDS, WARMUP)
        + (" Both servers start streaming once all N subscribers are connected (`--wait-clients N`)."
           if WAIT_CLIENTS else " Both servers stream from the start, while the subscribers connect.")
        + " Before the runs the machine was %.0f %% busy." % idle_busy
        + (" transitiond: `%s` (given with TRANSITIOND=, so the commit above is the checkout's, "
           "not necessarily the binary's)." % shown_path(TRANSITIOND) if env.get("TRANSITIOND_GIVEN") and not FLOOR_ONLY else "")
        + (" Baseline: `%s` (BASELINE=), measured in the same rounds, in turn with the others." % shown_path(BASELINE)
           if BASELINE and not FLOOR_ONLY else ""),
        "",
        "```sh",
        env.get("COMMAND", "bench/socket-latency.sh"),
        "```",
        "",
        text,
    ]
    summary += ["", "lines/s: lines each subscriber received per second in the window (the input "
                "is 240/s; fewer: the server fell behind or coalesced)."]
    if failures:
        summary += ["", "Failed runs (not in the medians; see the run log): " + "; ".join(failures) + "."]
    if WEBSOCKET:
        summary += ["", "Unix: subscribers on the Unix socket; WebSocket: the same subscriber program "
                    "(bench/socket-subscriber.c) as a WebSocket client of `--websocket`, in runs of their own, "
                    "alternating. " + "; ".join(verdicts) + "."]
    elif METRICS:
        summary += ["", "off: `[metrics] enabled = false`; on: the same binary with `--metrics` and a scraper "
                    "GETting /metrics %g times a second; in runs of their own, alternating. A paced replay "
                    "also records the input-to-write histogram (from when each step was due). " % SCRAPE_HZ
                    + "; ".join(verdicts) + "."]
    elif FRAMES:
        summary += ["", "reading: subscribers that only read; reporting: the same subscribers also sending a "
                    "`frames` command at most every 1/60 s with the newest seq read (a UI on a 60 Hz display); "
                    "the same binary with metrics on (not scraped), in runs of their own, alternating. "
                    + "; ".join(verdicts) + "."]
    elif FLOOR_ONLY:
        summary += ["", "Floor only (`FLOOR_ONLY=1`): transitiond was not measured."]
    else:
        summary += ["", "Targets (issue 3): " + "; ".join(verdict(med)) + "."]
        if BASELINE:
            summary += ["", "Against the baseline (within 10 %): " + "; ".join(against_baseline(med)) + "."]
    out = "\n".join(summary) + "\n"
    print()
    print(out, end="")
    if DOC:
        write_doc(out)
        say("(written to %s)" % DOC)
    return 1 if failures else 0


def shown_path(path):
    """A path as the project's text may name it: relative to the project's
    root when inside it, else only the file's name (no machine paths)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    full = os.path.abspath(path)
    if full.startswith(root + os.sep):
        return os.path.relpath(full, root)
    return os.path.basename(full)


if __name__ == "__main__":
    sys.exit(main())
