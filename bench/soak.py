#!/usr/bin/env python3
"""The measuring half of bench/soak.sh (which builds the daemon and the
recording, then runs this). See bench/README.md, "Soak".

A paced `transitiond replay --socket --hold` of EVENTS input events (the
1M-event recording, looped or cut) at SPEED times real time serves 100
clients: keepers, stallers, reconnectors and commanders (bench/soak-clients.py,
one process per group, each client a real socket), plus one lag sampler. Every
second it samples the daemon's RSS, descriptors, CPU, the clients it counts
(its /metrics), the time it takes to answer a ping, and the time from each
paced step's due time to its first client write (the daemon's
input-to-write histogram). At the end it checks the expectations, prints a
summary, and writes OUT/samples.csv, OUT/summary.txt, OUT/summary.json and
OUT/soak.svg (bench/soak-plot.py).

Environment (set by soak.sh): TRANSITIOND, RECORDING (1,000,000 events),
EVENTS, SPEED, OUT, WARMUP_SECONDS (default 300 s, or half the replay when
shorter, at least 60 s), BACKLOG_LIMIT, CLIENT_GROUPS, COMMIT.
"""

import http.client
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from benchprocs import die_with_parent, end, live, start

HERE = os.path.dirname(os.path.abspath(__file__))
env = os.environ
TRANSITIOND = env["TRANSITIOND"]
RECORDING = env["RECORDING"]
RECORDING_EVENTS = 1_000_000
RECORDING_SECONDS = 1606.8  # bench/make-large-recording.py: seconds of touches
EVENTS = int(env.get("EVENTS", "10000000"))
SPEED = float(env.get("SPEED", "10"))
OUT = env["OUT"]
BACKLOG_LIMIT = int(env.get("BACKLOG_LIMIT", "1048576"))
CLK_TCK = os.sysconf("SC_CLK_TCK")
RSS_TOLERANCE = 0.05
SCRAPE_TIMEOUT = 10.0  # seconds for one /metrics scrape
PING_TIMEOUT = 60.0  # seconds for one ping's pong; longer is a hang
CSV_FIELDS = ["t", "rss_kib", "fds", "clients", "unexplained_fds", "cpu_pct", "ping_ms", "due_to_write_p99_ms",
              "steps", "input_events", "coalesced", "backlog_cuts", "load1"]
# Descriptors beyond the idle daemon's and its clients' (2 a Unix client: the
# channel's and the writer's duplicate; 1 a WebSocket client), allowed in one
# sample: connections closing or opening between the /proc listing and the
# scrape of the client gauge.
FD_SLACK = 6

# The 100 clients: (role, count). Every one is a real connection.
GROUPS = [("keeper", 19), ("keeper", 18), ("ws-keeper", 3), ("staller", 20),
          ("reconnector", 23), ("ws-reconnector", 2), ("commander", 15)]
if env.get("CLIENT_GROUPS"):
    # For looking into one kind of client: e.g. CLIENT_GROUPS="staller:20 keeper:5".
    GROUPS = [(role, int(n)) for role, n in (g.split(":") for g in env["CLIENT_GROUPS"].split())]
CLIENTS = sum(n for _, n in GROUPS)
SAMPLER = 1  # the lag sampler's own connection

CONFIG = os.path.join(HERE, "soak.toml")  # [server] backlog_limit is added


def say(text):
    print(text, file=sys.stderr, flush=True)


class Failed(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------
# The input


def prepare_recording(work):
    """(path, loops, events): about EVENTS events as the 1M recording looped,
    or cut at the end of a frame (a replay counts the events of whole frames)."""
    loops = max(1, math.ceil(EVENTS / RECORDING_EVENTS))
    per_loop = EVENTS // loops
    if per_loop == RECORDING_EVENTS:
        return RECORDING, loops, EVENTS
    path = os.path.join(work, "soak-%d.events" % per_loop)
    kept, count, frame = [], 0, []
    with open(RECORDING, "rb") as src:
        for line in src:
            if not line.startswith(b"E:"):
                if count == 0 and not frame:
                    kept.append(line)
                continue
            if count + len(frame) == per_loop:
                break
            frame.append(line)
            if line.split()[2:4] == [b"0000", b"0000"]:  # SYN_REPORT
                kept += frame
                count += len(frame)
                frame = []
    with open(path, "wb") as dst:
        dst.writelines(kept)
    return path, loops, count * loops


# ---------------------------------------------------------------------------
# The daemon, seen from outside


def proc_sample(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    rss = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    fds = len(os.listdir("/proc/%d/fd" % pid))
    return ticks, rss, fds


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


METRIC = re.compile(r'^([a-z_]+)(\{[^}]*\})? ([0-9.eE+-]+|\+Inf|NaN)$')


def scrape(port):
    """{name: value} for plain series (labels summed), and the latency
    histogram's cumulative buckets {le: count}."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=SCRAPE_TIMEOUT) as r:
        text = r.read().decode()
    values, buckets = {}, {}
    for line in text.splitlines():
        m = METRIC.match(line)
        if not m:
            continue
        name, labels, value = m.group(1), m.group(2) or "", float(m.group(3))
        if name == "transitiond_input_to_write_seconds_bucket":
            le = re.search(r'le="([^"]+)"', labels).group(1)
            buckets[float(le) if le != "+Inf" else math.inf] = value
        else:
            values[name] = values.get(name, 0.0) + value
            if labels:
                values[name + labels] = value
    return values, buckets


def try_scrape(port):
    """scrape(), or None when the listener did not answer in time (the
    daemon's event loop renders the page: a busy or stuck loop shows here)."""
    try:
        return scrape(port)
    except (OSError, ValueError, http.client.HTTPException):
        return None


def bucket_quantile(buckets, q):
    """The upper bound of the bucket holding quantile q of a histogram given
    as cumulative counts; None when empty."""
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0
    if total <= 0:
        return None
    for b in bounds:
        if buckets[b] >= q * total:
            return b
    return bounds[-1]


def bucket_delta(now, before):
    return {b: now[b] - before.get(b, 0.0) for b in now}


class Sampler(threading.Thread):
    """The lag sampler: one connection that pings once a second (half a
    second out of step with the /proc samples) and times the pong."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile("rb")
        self.file.readline()  # hello
        # Only the command transitions' events, so that its reading stays
        # small: the lag is the daemon's, not this client's.
        self.sock.sendall(b'{"cmd":"subscribe","transitions":["home"]}\n')
        self.wait_for(lambda o: o.get("type") == "ok")
        self.rtts = []  # (monotonic time sent, seconds)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.next_id = 0
        self.failure = None

    def close(self):
        self.file.close()  # the socket's descriptor closes with its last user
        self.sock.close()

    def wait_for(self, match, timeout=PING_TIMEOUT):
        self.sock.settimeout(timeout)
        while True:
            line = self.file.readline()
            if not line:
                raise Failed("the daemon closed the lag sampler's connection")
            obj = json.loads(line)
            if match(obj):
                return obj

    def ask(self, command):
        with self.lock:
            self.next_id += 1
            i = self.next_id
            sent = time.monotonic()
            self.sock.sendall(json.dumps(dict(command, id=i)).encode() + b"\n")
            reply = self.wait_for(lambda o: o.get("id") == i)
            return reply, time.monotonic() - sent, sent

    def run(self):
        tick = time.monotonic() + 0.5
        while not self.stop.is_set():
            tick += 1.0
            self.stop.wait(max(0.0, tick - time.monotonic()))
            if self.stop.is_set():
                break
            try:
                _, rtt, sent = self.ask({"cmd": "ping"})
            except (OSError, Failed, ValueError) as e:
                # No pong within PING_TIMEOUT, or the connection failed:
                # the sampler cannot go on (a timed-out socket file is
                # unusable), and the soak reports it.
                self.failure = "the lag sampler stopped: %s" % (e or type(e).__name__)
                self.rtts.append((time.monotonic(), math.nan))
                return
            self.rtts.append((sent, rtt))


# ---------------------------------------------------------------------------
# The run


def run(work):
    recording, loops, events = prepare_recording(work)
    replay_seconds = events / RECORDING_EVENTS * RECORDING_SECONDS / SPEED
    warmup = float(env.get("WARMUP_SECONDS") or max(60.0, min(300.0, replay_seconds / 2)))
    config = os.path.join(work, "soak.toml")
    with open(CONFIG) as f:
        text = f.read()
    with open(config, "w") as f:
        f.write(text + "backlog_limit = %d\n" % BACKLOG_LIMIT)
    sock = os.path.join(work, "soak.sock")
    metrics_port, ws_port = free_port(), free_port()
    argv = [TRANSITIOND, "replay", recording, "--config", config, "--socket", sock, "--speed", repr(SPEED),
            "--loop", str(loops), "--hold", "--wait-clients", str(CLIENTS + SAMPLER),
            "--websocket", "127.0.0.1:%d" % ws_port, "--metrics", "127.0.0.1:%d" % metrics_port]
    say("soak: %s" % " ".join(os.path.basename(a) if a.startswith(work) else a for a in argv))
    say("soak: %d events (%d × %d) at speed %g: about %.0f s of replay; warm-up %.0f s"
        % (events, loops, events // loops, SPEED, replay_seconds, warmup))
    daemon_log = open(os.path.join(OUT, "daemon.log"), "w")
    daemon = start(argv, stdout=daemon_log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
    deadline = time.monotonic() + 120
    while True:
        if daemon.poll() is not None:
            raise Failed("the daemon exited %d at start (bench/out/soak/daemon.log)" % daemon.returncode)
        try:
            scrape(metrics_port)
            if os.path.exists(sock):
                break
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise Failed("the daemon did not serve within 120 s")
        time.sleep(0.2)
    time.sleep(0.5)
    _, rss_idle, fds_idle = proc_sample(daemon.pid)
    say("soak: daemon pid %d serving: RSS %.1f MiB, %d descriptors before any client"
        % (daemon.pid, rss_idle / 1024, fds_idle))

    workers = []
    for i, (role, count) in enumerate(GROUPS):
        results = os.path.join(work, "results-%d-%s.json" % (i, role))
        args = [sys.executable, os.path.join(HERE, "soak-clients.py"), role, str(count), sock, results]
        if role.startswith("ws-"):
            args.append("ws://127.0.0.1:%d/stream" % ws_port)
        workers.append((start(args, preexec_fn=die_with_parent), results, role))
    sampler = Sampler(sock)
    values, buckets0 = wait_for_start(metrics_port, daemon, workers)
    t0 = time.monotonic()
    say("soak: all %d clients and the sampler connected; the replay runs" % CLIENTS)
    sampler.start()

    rows, notes, scrape_failures = [], [], []
    csv_file = open(os.path.join(OUT, "samples.csv"), "w")
    csv_file.write(",".join(CSV_FIELDS) + "\n")
    values = {}
    ticks_prev, t_prev = proc_sample(daemon.pid)[0], t0
    buckets_prev = buckets0
    tick = t0
    hard_deadline = t0 + replay_seconds * 1.5 + 300
    replay_done_at = None
    while True:
        tick += 1.0
        time.sleep(max(0.0, tick - time.monotonic()))
        if daemon.poll() is not None:
            raise Failed("the daemon exited %d during the soak" % daemon.returncode)
        for p, _, role in workers:
            if p.poll() is not None:
                raise Failed("the %s clients' process exited %d during the soak" % (role, p.returncode))
        ticks, rss, fds = proc_sample(daemon.pid)
        # The time of the /proc read, so that a late sample (this process
        # waiting for a core) still divides the CPU time by its own interval.
        now = time.monotonic()
        scraped = try_scrape(metrics_port)
        rtt = next((r for s, r in reversed(sampler.rtts) if s >= now - 1.5), math.nan)
        row = {
            "t": round(now - t0, 3),
            "rss_kib": rss,
            "fds": fds,
            "cpu_pct": round(100.0 * (ticks - ticks_prev) / (CLK_TCK * (now - t_prev)), 1),
            "ping_ms": round(rtt * 1000, 3) if not math.isnan(rtt) else "",
            "load1": load_average(),
        }
        if scraped is None:
            scrape_failures.append(row["t"])
            say("soak: %.0f s: /metrics did not answer within %g s" % (row["t"], SCRAPE_TIMEOUT))
            row.update({k: "" for k in CSV_FIELDS if k not in row})
        else:
            values, buckets = scraped
            delta = bucket_delta(buckets, buckets_prev)
            buckets_prev = buckets
            row.update({
                "clients": int(values.get("transitiond_clients", 0)),
                "unexplained_fds": fds - fds_idle - 2 * int(values.get('transitiond_clients{transport="unix"}', 0))
                                   - int(values.get('transitiond_clients{transport="websocket"}', 0)),
                "due_to_write_p99_ms": q_ms(bucket_quantile(delta, 0.99)),
                "steps": int(delta.get(math.inf, 0)),
                "input_events": int(values.get("transitiond_input_events_total", 0)),
                "coalesced": int(values.get("transitiond_lines_coalesced_total", 0)),
                "backlog_cuts": int(values.get("transitiond_backlog_disconnects_total", 0)),
            })
        rows.append(row)
        csv_file.write(",".join(str(row[k]) for k in CSV_FIELDS) + "\n")
        csv_file.flush()
        ticks_prev, t_prev = ticks, now
        r = rows[-1]
        if len(rows) % 30 == 0:
            say("soak: %5.0f s  %9s events  RSS %6.1f MiB  fds %3d  clients %3s  CPU %5.1f %%  ping %s ms  load %.1f"
                % (r["t"], r["input_events"], rss / 1024, fds, r["clients"], r["cpu_pct"], r["ping_ms"], r["load1"]))
        if values.get("transitiond_input_events_total", 0) >= events and replay_done_at is None:
            replay_done_at = r["t"]
            say("soak: all %d input events replayed at %.0f s" % (events, r["t"]))
            break
        if now > hard_deadline:
            notes.append("the replay had not ended %.0f s after it should have: a hang?" % (now - t0 - replay_seconds))
            break

    # Wind down: commanders stop commanding; then everything must settle.
    for p, _, _ in workers:
        p.send_signal(signal.SIGUSR1)
    settle_deadline = time.monotonic() + 60
    active = None
    reply = {}
    while time.monotonic() < settle_deadline:
        time.sleep(1)
        try:
            reply, _, _ = sampler.ask({"cmd": "state"})
        except (OSError, Failed, ValueError) as e:
            notes.append("no answer to state at the end: %s" % e)
            break
        active = reply.get("active", [])
        if not active:
            break
    final_seq = reply.get("seq")
    csv_file.close()
    time.sleep(1)  # the last lines reach the keepers
    for p, _, _ in workers:
        p.send_signal(signal.SIGTERM)
    end([p for p, _, _ in workers], grace=30)
    groups = []
    for p, results, role in workers:
        try:
            with open(results) as f:
                groups.append(json.load(f))
        except (OSError, ValueError):
            groups.append({"role": role, "clients": [], "crashed": ["no results (exit %s)" % p.returncode],
                           "unfinished": 0})
    sampler.stop.set()
    sampler.join(5)
    sampler.close()
    fds_after, fds_left = settle_descriptors(daemon.pid, fds_idle)
    _, rss_after, _ = proc_sample(daemon.pid)
    values_end, buckets_end = scrape(metrics_port)
    if sampler.failure:
        notes.append(sampler.failure)
    daemon.send_signal(signal.SIGTERM)
    try:
        code = daemon.wait(15)
    except subprocess.TimeoutExpired:
        daemon.kill()
        code = "killed (did not stop within 15 s of SIGTERM)"
    daemon_log.close()
    return {
        "rows": rows, "groups": groups, "active_at_end": active, "final_seq": final_seq,
        "fds_idle": fds_idle, "fds_after": fds_after, "fds_left": fds_left, "rss_idle": rss_idle, "rss_after": rss_after,
        "metrics_end": values_end, "latency": bucket_delta(buckets_end, buckets0), "exit": code,
        "warmup": warmup, "replay_seconds": replay_seconds, "replay_done_at": replay_done_at,
        "loops": loops, "events": events, "notes": notes, "scrape_failures": scrape_failures, "pings": [r for _, r in sampler.rtts],
    }


def descriptors(pid):
    out = {}
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            out[int(fd)] = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            pass
    return out


def settle_descriptors(pid, idle, seconds=15):
    """The daemon's descriptor count once every client has gone: polled
    for up to `seconds` (a connection the daemon cut may take 1 s to
    close); with what is open beyond the idle count, for the report."""
    deadline = time.monotonic() + seconds
    time.sleep(2)
    while True:
        fds = descriptors(pid)
        if len(fds) <= idle or time.monotonic() > deadline:
            extra = ["%d → %s" % kv for kv in sorted(fds.items())] if len(fds) > idle else []
            return len(fds), extra
        time.sleep(1)


def q_ms(seconds):
    return "" if seconds is None else (round(seconds * 1000, 3) if seconds != math.inf else "inf")


def wait_for_start(port, daemon, workers):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            raise Failed("the daemon exited %d while the clients connected" % daemon.returncode)
        for p, _, role in workers:
            if p.poll() is not None:
                raise Failed("the %s clients' process exited %d at start" % (role, p.returncode))
        values, buckets = scrape(port)
        if values.get("transitiond_clients", 0) >= CLIENTS + SAMPLER:
            return values, buckets
        time.sleep(0.1)
    raise Failed("the %d clients did not all connect within 60 s" % (CLIENTS + SAMPLER))


# ---------------------------------------------------------------------------
# The verdict


def percentile(values, q):
    values = sorted(v for v in values if not math.isnan(v))
    if not values:
        return math.nan
    return values[min(len(values) - 1, int(q * len(values)))]


def judge(res):
    rows = res["rows"]
    warm = [r for r in rows if r["t"] > res["warmup"]]
    rss = [r["rss_kib"] for r in rows]
    if len(warm) < 20:
        raise Failed("the run is too short for its warm-up (%d samples after it)" % len(warm))
    ref = statistics.median(r["rss_kib"] for r in warm[:10])
    end_rss = statistics.median(r["rss_kib"] for r in warm[-10:])
    lo = min(r["rss_kib"] for r in warm)
    hi = max(r["rss_kib"] for r in warm)
    drift = (end_rss - ref) / ref
    spread = max(hi - ref, ref - lo) / ref
    # The same with the warm-up at 10 % of the replay, for comparison.
    tenth = [r["rss_kib"] for r in rows if r["t"] > 0.1 * res["replay_seconds"]]
    ref10 = statistics.median(tenth[:10])
    spread10 = max(max(tenth) - ref10, ref10 - min(tenth)) / ref10
    fds = [r["fds"] for r in rows]
    scraped = [r for r in rows if r["clients"] != ""]
    unexplained = [r["unexplained_fds"] for r in scraped]

    pings = res["pings"]
    lat = res["latency"]

    keepers = [c for g in res["groups"] if g["role"] in ("keeper", "ws-keeper") for c in g["clients"]]
    stallers = [c for g in res["groups"] if g["role"] == "staller" for c in g["clients"]]
    recon = [c for g in res["groups"] if g["role"] in ("reconnector", "ws-reconnector") for c in g["clients"]]
    commanders = [c for g in res["groups"] if g["role"] == "commander" for c in g["clients"]]
    crashed = [x for g in res["groups"] for x in g["crashed"]]
    unfinished = sum(g["unfinished"] for g in res["groups"])

    union = set()
    for k in keepers:
        union.update(k["phases"])
    # A keeper owes every phase event after its hello (commands may run
    # before the last client connects and the replay starts).
    lost = {}
    for k in keepers:
        owed = {p for p in union if p // 8 > (k["first_seq"] or 0)}
        lost["%s %d" % (k["role"], k["index"])] = len(owed - set(k["phases"]))
    began = sum(1 for p in union if p % 8 == 1)
    ended = sum(1 for p in union if p % 8 == 2)
    m = res["metrics_end"]
    m_began = int(m.get("transitiond_transitions_began_total", -1))
    m_ended = int(m.get("transitiond_transitions_ended_total", -1))
    keeper_violations = [v for k in keepers for v in k["violations"]]
    keeper_gaps = sum(k["gaps"] for k in keepers)
    keeper_missing = sum(k["missing"] for k in keepers)
    keeper_tail = [k["last_seq"] for k in keepers if k["last_seq"] != res["final_seq"]]
    keeper_cut = [k["index"] for k in keepers if k.get("eof")]
    half_way_keepers = sorted({n for k in keepers for n in k["half_way"]})
    stall_violations = [v for c in stallers for v in c["violations"]]
    other_violations = [v for c in recon + commanders for v in c["violations"]]

    checks = [
        ("RSS flat within 5 % after warm-up", spread <= RSS_TOLERANCE,
         "every sample after warm-up within %.1f %% of the reference (drift end vs reference %+.1f %%)"
         % (100 * spread, 100 * drift)),
        ("descriptors constant", res["fds_after"] == res["fds_idle"] and max(unexplained) <= FD_SLACK
         and statistics.median(unexplained) == 0,
         "%d before the clients, %d after they left; beyond the clients' own: median %+g, %+d…%+d"
         % (res["fds_idle"], res["fds_after"], statistics.median(unexplained), min(unexplained), max(unexplained))),
        ("no phase event lost for keepers", all(v == 0 for v in lost.values()) and began == m_began and ended == m_ended
         and not keeper_violations and not keeper_cut,
         "%d began, %d ended seen (daemon's counters: %d, %d); lost %d; phase-order violations %d; keepers cut %d"
         % (began, ended, m_began, m_ended, sum(lost.values()), len(keeper_violations), len(keeper_cut))),
        ("keepers saw every line (no seq gap)", keeper_gaps == 0 and not keeper_tail,
         "%d gaps (%d lines coalesced) over %d keepers; %d ended before the last seq %s"
         % (keeper_gaps, keeper_missing, len(keepers), len(keeper_tail), res["final_seq"])),
        ("nothing left half-way", not res["active_at_end"] and not half_way_keepers,
         "daemon's state at the end: %d active; keepers' view: %s" % (len(res["active_at_end"] or []),
                                                                       ", ".join(half_way_keepers) or "all idle")),
        ("all input replayed, no hang", res["replay_done_at"] is not None and not res["notes"]
         and int(m.get("transitiond_input_events_total", 0)) == res["events"] and not res["scrape_failures"],
         "%d of %d input events; /metrics unanswered within %g s %d times%s%s"
         % (int(m.get("transitiond_input_events_total", 0)), res["events"], SCRAPE_TIMEOUT, len(res["scrape_failures"]),
            " (at %s s)" % ", ".join("%.0f" % t for t in res["scrape_failures"][:10]) if res["scrape_failures"] else "",
            "; " + "; ".join(res["notes"]) if res["notes"] else "")),
        ("stalled clients never blocked the rest, got phase events in order", not stall_violations,
         "%d phase-order violations in stallers" % len(stall_violations)),
        ("replies and reconnects as expected", not other_violations and not crashed and not unfinished
         and sum(c["unanswered"] + c["wrong_replies"] for c in commanders) == 0
         and sum(c["hello_timeouts"] for c in recon) == 0,
         "%d unanswered, %d wrong replies, %d hello time-outs, %d client crashes"
         % (sum(c["unanswered"] for c in commanders), sum(c["wrong_replies"] for c in commanders),
            sum(c["hello_timeouts"] for c in recon), len(crashed) + unfinished)),
        ("daemon exits 0 on SIGTERM", res["exit"] == 0, "exit %s" % res["exit"]),
    ]

    commands = {}
    for c in commanders:
        for name, tally in c["commands"].items():
            for outcome, n in tally.items():
                commands.setdefault(name, {}).setdefault(outcome, 0)
                commands[name][outcome] += n

    figures = [
        ("run length", "%.0f s (replay %.0f s; warm-up %.0f s)" % (rows[-1]["t"], res["replay_done_at"] or math.nan, res["warmup"])),
        ("input events", "%d (%d loops of %d) at speed %g" % (res["events"], res["loops"], res["events"] // res["loops"], SPEED)),
        ("events streamed (last seq)", str(res["final_seq"])),
        ("lines delivered to keepers", "%d (%d keepers)" % (sum(k["lines"] for k in keepers), len(keepers))),
        ("RSS (MiB) idle / start / after warm-up / end", "%.1f / %.1f / %.1f / %.1f"
         % (res["rss_idle"] / 1024, rss[0] / 1024, ref / 1024, end_rss / 1024)),
        ("RSS (MiB) min / max after warm-up; overall max", "%.1f / %.1f; %.1f" % (lo / 1024, hi / 1024, max(rss) / 1024)),
        ("RSS drift after warm-up", "%+.2f %% (end vs reference); widest %.2f %%" % (100 * drift, 100 * spread)),
        ("RSS widest after 10 % of the replay instead", "%.2f %% (reference %.1f MiB)" % (100 * spread10, ref10 / 1024)),
        ("descriptors min / max (clients connected)", "%d / %d" % (min(fds), max(fds))),
        ("descriptors idle before / after", "%d / %d" % (res["fds_idle"], res["fds_after"])),
        ("daemon CPU (% of one core) median / max", "%.0f / %.0f" % (statistics.median(r["cpu_pct"] for r in rows),
                                                                     max(r["cpu_pct"] for r in rows))),
        ("ping round trip (ms) p50 / p99 / max", "%.2f / %.2f / %.2f" % (1000 * percentile(pings, 0.5),
                                                                        1000 * percentile(pings, 0.99),
                                                                        1000 * max((p for p in pings if not math.isnan(p)), default=math.nan))),
        ("step due → first write (ms, bucket bound) p50 / p99 / p99.9", "%s / %s / %s"
         % (q_ms(bucket_quantile(lat, 0.5)), q_ms(bucket_quantile(lat, 0.99)), q_ms(bucket_quantile(lat, 0.999)))),
        ("keepers' phase events lost", "%d" % sum(lost.values())),
        ("keepers' seq gaps (coalesced lines)", "%d (%d)" % (keeper_gaps, keeper_missing)),
        ("transitions left half-way", "%d" % (len(res["active_at_end"] or []) + len(half_way_keepers))),
        ("stallers: stalls / seconds stalled", "%d / %.0f" % (sum(c["stalls"] for c in stallers),
                                                             sum(c["stalled_seconds"] for c in stallers))),
        ("stallers: lines coalesced away / cut off (backlog error seen)", "%d / %d (%d)"
         % (sum(c["missing"] for c in stallers), sum(c["cut"] for c in stallers),
            sum(c["backlog_errors"] for c in stallers))),
        ("daemon: lines coalesced / backlog disconnects", "%d / %d"
         % (int(m.get("transitiond_lines_coalesced_total", 0)), int(m.get("transitiond_backlog_disconnects_total", 0)))),
        ("reconnects (hellos; closed before hello; ping then close)", "%d (%d; %d; %d)"
         % (sum(c["connections"] for c in recon), sum(c["hellos"] for c in recon),
            sum(c.get("early_closes", 0) for c in recon), sum(c.get("pings_then_close", 0) for c in recon))),
        ("commands sent / answered (hang-ups while driving)", "%d / %d (%d)"
         % (sum(c["sent"] for c in commanders), sum(c["answered"] for c in commanders),
            sum(c["hang_ups_while_driving"] for c in commanders))),
        ("load average (1 min) median / max", "%.1f / %.1f" % (statistics.median(r["load1"] for r in rows),
                                                               max(r["load1"] for r in rows))),
    ]
    details = {"commands": commands, "keeper_violations": keeper_violations[:20], "stall_violations": stall_violations[:20],
               "other_violations": other_violations[:20], "crashed": crashed, "lost": lost,
               "active_at_end": res["active_at_end"], "descriptors_left": res["fds_left"]}
    return checks, figures, details


def write_outputs(res, checks, figures, details):
    lines = ["transitiond soak — %s, commit %s, %d cores" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                                            env.get("COMMIT", "?"), os.cpu_count()), ""]
    width = max(len(k) for k, _ in figures)
    lines += ["%-*s  %s" % (width, k, v) for k, v in figures]
    lines += ["", "commands (outcome: count):"]
    for name in sorted(details["commands"]):
        lines.append("  %-28s %s" % (name, ", ".join("%s %d" % kv for kv in sorted(details["commands"][name].items()))))
    lines += [""]
    width = max(len(k) for k, _, _ in checks)
    for name, ok, why in checks:
        lines.append("%s  %-*s  %s" % ("PASS" if ok else "FAIL", width, name, why))
    verdict = all(ok for _, ok, _ in checks)
    lines += ["", "soak: %s" % ("PASS" if verdict else "FAIL")]
    for key in ("keeper_violations", "stall_violations", "other_violations", "crashed", "descriptors_left"):
        if details[key]:
            lines.append("%s: %s" % (key, "; ".join(details[key][:10])))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(OUT, "summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(OUT, "summary.json"), "w") as f:
        json.dump({"figures": dict(figures), "checks": [{"check": n, "pass": ok, "detail": w} for n, ok, w in checks],
                   "details": details, "warmup_seconds": res["warmup"],
                   "replay_done_at": res["replay_done_at"]}, f, indent=1, default=str)
    print(text, end="")
    subprocess.run([sys.executable, os.path.join(HERE, "soak-plot.py"), os.path.join(OUT, "samples.csv"),
                    os.path.join(OUT, "soak.svg"), str(res["warmup"])], check=True)
    print("soak: samples in %s, plot in %s" % (os.path.join(OUT, "samples.csv"), os.path.join(OUT, "soak.svg")))
    return verdict


def main():
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="transitiond-soak.")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: (_ for _ in ()).throw(Failed("stopped by signal %d" % s)))
    try:
        res = run(work)
        with open(os.path.join(OUT, "results.json"), "w") as f:
            json.dump(res, f, default=str)  # everything judge() reads
        checks, figures, details = judge(res)
        return 0 if write_outputs(res, checks, figures, details) else 1
    except Failed as e:
        say("soak: FAIL: %s" % e)
        return 1
    finally:
        end(list(live), grace=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
