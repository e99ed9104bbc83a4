#!/usr/bin/env python3
"""The metrics tier: a real Prometheus scrapes a real daemon.

A paced replay of the project's recordings (with config/example.toml) is served (`transitiond replay
--socket --metrics --websocket --hold`); a client on the Unix socket reads
the whole stream and sends a few commands; Prometheus (Debian's, started
here on loopback with a scrape config pointing at the daemon, 1 s interval)
scrapes it meanwhile. Once the replay has ended, the counters read back
through Prometheus's HTTP API must match what the stream carried (ended
events by transition, decision and reason; began events), what the client
did (commands by name and result, one Unix client), and what `replay
--fast --explain --json` says was rejected; `promtool check metrics`
accepts the exposition; `/healthz` answers; the WebSocket listener serves
the same `/metrics`.

    TRANSITIOND=path/to/transitiond python3 Tests/metrics/prometheus_check.py

Prints one line per check and ends with `metrics: N passed, M failed`;
exits 1 on any failure. Every wait is bounded.
"""
import collections
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tier import CONFIG, ROOT, Tally, free_port, http_get, show_logs, wait_for  # noqa: E402

RECORDINGS = [os.path.join(ROOT, "Recordings", name) for name in (
    "back-drag-finish.events", "back-flick-back-cancel.events", "forward-edge-right-spring.events",
    "pinch-in-2-fingers.events", "back-drag-cancel.events", "swipe-up-3-fingers.events",
)]
tally = Tally()
check = tally.check


class LineClient:
    """A client of the daemon's Unix socket: lines in, JSON objects out."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)
        self.buffer = b""

    def send(self, obj):
        self.sock.sendall(json.dumps(obj).encode() + b"\n")

    def read(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the daemon closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)


def main():
    binary = os.environ.get("TRANSITIOND", os.path.join(ROOT, ".build/debug/transitiond"))
    if not os.path.isabs(binary):
        binary = os.path.join(ROOT, binary)
    for tool in ("prometheus", "promtool"):
        if shutil.which(tool) is None:
            check(f"{tool} is installed (Debian: prometheus)", False)
            return
    work = tempfile.mkdtemp(prefix="transitiond-metrics.")
    daemon = prometheus = None
    try:
        metrics_port, web_port, prom_port = free_port(), free_port(), free_port()
        sock_path = os.path.join(work, "t.sock")
        daemon_log = open(os.path.join(work, "daemon.log"), "w+")
        daemon = subprocess.Popen(
            [binary, "replay", *RECORDINGS, "--config", CONFIG, "--socket", sock_path, "--wait-clients", "1", "--hold",
             "--metrics", f"127.0.0.1:{metrics_port}", "--websocket", f"127.0.0.1:{web_port}"],
            stdout=subprocess.DEVNULL, stderr=daemon_log)
        with open(os.path.join(work, "prometheus.yml"), "w") as config:
            config.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: transitiond
    static_configs:
      - targets: ["127.0.0.1:{metrics_port}"]
""")
        prometheus = subprocess.Popen(
            ["prometheus", f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/data",
             f"--web.listen-address=127.0.0.1:{prom_port}", "--log.level=warn"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "prometheus.log"), "w"))
        api = f"http://127.0.0.1:{prom_port}/api/v1/query?query="

        def query(expression):
            _, _, body = http_get(api + urllib.parse.quote(expression))
            answer = json.loads(body)
            if answer.get("status") != "success":
                raise RuntimeError(body)
            return answer["data"]["result"]

        wait_for("the daemon's socket", lambda: os.path.exists(sock_path), 30)
        wait_for("Prometheus scraping the daemon",
                 lambda: any(r["value"][1] == "1" for r in query('up{job="transitiond"}')), 60)
        check("Prometheus scrapes the daemon (up == 1)", True)

        # The client: starts the replay, sends commands, reads the stream.
        client = LineClient(sock_path)
        hello = client.read()
        check("hello first", hello.get("type") == "hello", str(hello))
        for command in ({"cmd": "ping"}, {"cmd": "ping"}, {"cmd": "fly"},
                        {"cmd": "cancel", "transition": "nosuch"}, {"cmd": "state"}):
            client.send(command)
        began = collections.Counter()
        ended = collections.Counter()
        replies = collections.Counter()
        log_end = "the input has ended; serving until stopped"
        deadline = time.monotonic() + 120

        def replay_over():
            daemon_log.seek(0)
            return log_end in daemon_log.read()

        client.sock.settimeout(0.5)
        while time.monotonic() < deadline:
            try:
                message = client.read()
            except socket.timeout:
                if replay_over():
                    break
                continue
            kind = message.get("type")
            if kind == "began":
                began[message["transition"]] += 1
            elif kind == "ended":
                ended[(message["transition"], message["decision"], message["reason"])] += 1
            elif kind in ("pong", "error", "state", "ok"):
                replies[(kind, message.get("code"))] += 1
        check("the replay ended within 120 s", replay_over())
        check("the stream carried ended events of several transitions",
              len({key[0] for key in ended}) >= 3 and len({key[1] for key in ended}) == 2, str(ended))
        check("every command was answered",
              replies == collections.Counter({("pong", None): 2, ("error", "unknown-command"): 1,
                                              ("error", "unknown-transition"): 1, ("state", None): 1}),
              str(replies))

        # Rejections, as the engine explains them on the virtual clock.
        explained = subprocess.run([binary, "replay", *RECORDINGS, "--config", CONFIG, "--fast", "--explain", "--json"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60)
        rejected = collections.Counter()
        for line in explained.stderr.splitlines():
            entry = json.loads(line)
            if entry.get("type") == "explain" and ": passed over: " in entry.get("text", ""):
                rejected[entry["transition"]] += 1

        def series(expression, labels):
            return {tuple(r["metric"].get(label, "") for label in labels): int(float(r["value"][1]))
                    for r in query(expression)}

        want_ended = {key: n for key, n in ended.items()}
        want_commands = {("ping", "ok"): 2, ("invalid", "unknown-command"): 1,
                         ("cancel", "unknown-transition"): 1, ("state", "ok"): 1}

        def caught_up():
            return (series("transitiond_transitions_ended_total", ("transition", "decision", "reason")) == want_ended
                    and series("transitiond_commands_total", ("command", "result")) == want_commands)

        try:
            wait_for("Prometheus having the final counts", caught_up, 30)
        except TimeoutError:
            pass
        got_ended = series("transitiond_transitions_ended_total", ("transition", "decision", "reason"))
        check("transitions ended by transition, decision and reason match the stream", got_ended == want_ended,
              f"Prometheus {got_ended}, stream {want_ended}")
        got_began = series("transitiond_transitions_began_total", ("transition",))
        check("transitions began match the stream", got_began == {(t,): n for t, n in began.items()},
              f"Prometheus {got_began}, stream {dict(began)}")
        got_commands = series("transitiond_commands_total", ("command", "result"))
        check("commands by name and result match what the client sent", got_commands == want_commands,
              f"Prometheus {got_commands}")
        got_rejected = collections.Counter()
        for (transition, _), n in series("transitiond_candidates_rejected_total", ("transition", "reason")).items():
            got_rejected[transition] += n
        check("candidates rejected match replay --explain", got_rejected == rejected and sum(rejected.values()) > 0,
              f"Prometheus {dict(got_rejected)}, explain {dict(rejected)}")
        clients = series("transitiond_clients", ("transport",))
        check("one Unix client, no WebSocket client", clients == {("unix",): 1, ("websocket",): 0}, str(clients))
        frames = series("transitiond_input_frames_total", ())
        events = series("transitiond_input_events_total", ())
        check("input frames and events counted", frames.get((), 0) > 0 and events.get((), 0) > frames.get((), 0),
              f"frames {frames}, events {events}")
        info = query("transitiond_build_info")
        check("build info has the version", len(info) == 1 and info[0]["metric"].get("version", "") != "", str(info))

        # The exposition itself.
        status, content_type, body = http_get(f"http://127.0.0.1:{metrics_port}/metrics")
        check("GET /metrics is 200 in the text format",
              status == 200 and content_type.startswith("text/plain; version=0.0.4"), f"{status} {content_type}")
        lint = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True, text=True, timeout=30)
        check("promtool check metrics accepts it", lint.returncode == 0 and lint.stdout.strip() == "",
              (lint.stdout + lint.stderr).strip())
        status, _, health = http_get(f"http://127.0.0.1:{metrics_port}/healthz")
        check("/healthz answers ok", status == 200 and health == "ok\n", f"{status} {health!r}")
        status, _, web_body = http_get(f"http://127.0.0.1:{web_port}/metrics")
        check("the WebSocket listener serves /metrics too",
              status == 200 and "transitiond_transitions_ended_total{" in web_body, str(status))
    except Exception as error:
        check("the run", False, f"{type(error).__name__}: {error}")
    finally:
        for process in (daemon, prometheus):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        if tally.failed:
            show_logs((name, os.path.join(work, name)) for name in ("daemon.log", "prometheus.log"))
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
    tally.finish()
