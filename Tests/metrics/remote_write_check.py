#!/usr/bin/env python3
"""The metrics tier's fleet path: a kiosk's Prometheus agent remote-writes
a real daemon's metrics to a second, real Prometheus, and rides out that
Prometheus going away.

A paced replay is served with a config whose [identity] names the kiosk
(test-kiosk, site test-site). The agent is Debian's prometheus run the way
systemd/transitiond-prometheus-agent.service runs it: the unit's
ExecStartPre renders the shipped contrib/prometheus/agent.yml from an
environment file written as an operator would (REMOTE_WRITE_URL, INSTANCE,
METRICS_TARGET, SCRAPE_INTERVAL=1s), and its ExecStart's flags start the
agent; only the unit's paths become this run's folders and its web port a
free one. The receiver is a plain Prometheus with its remote-write receiver
on. Checked:
- the receiver has the daemon's series, under the agent's instance label,
  transitiond_info with kiosk, site and config_hash (the daemon's
  [identity]) and process_start_time_seconds;
- the receiver stops for 15 s while the agent keeps scraping and retrying;
  started again on the same data, it gets the outage's samples from the
  agent's write-ahead log: the raw samples of transitiond_build_info over
  the outage, read back as a range vector (a query_range would fill a gap
  from the 5-minute lookback and hide it), must leave no gap longer than
  2.5 scrape intervals (one late or lost scrape is tolerated, on a shared
  machine) and number at least 90 % of the outage's seconds;
- the agent gave up on no sample (failed and dropped counters at 0).

    TRANSITIOND=path/to/transitiond python3 Tests/metrics/remote_write_check.py

Prints one line per check and ends with `metrics: N passed, M failed`;
exits 1 on any failure. Every wait is bounded.
"""
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tier import CONFIG, ROOT, Tally, free_port, http_get, show_logs, wait_for  # noqa: E402

CONTRIB = os.path.join(ROOT, "contrib", "prometheus")
UNIT = os.path.join(ROOT, "systemd", "transitiond-prometheus-agent.service")
# Where the package puts what the unit names, and where it is in the sources.
INSTALLED = {"/usr/libexec/transitiond/": CONTRIB + "/", "/usr/share/transitiond/prometheus/": CONTRIB + "/"}
RECORDINGS = [os.path.join(ROOT, "Recordings", name) for name in (
    "back-drag-finish.events", "back-flick-back-cancel.events", "forward-edge-right-spring.events",
)]
KIOSK, SITE, INSTANCE = "test-kiosk", "test-site", "test-kiosk-agent"
SCRAPE_INTERVAL = 1.0
OUTAGE = 15.0
tally = Tally()
check = tally.check


def stop(process, timeout=15):
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def unit_commands(env, runtime_root, state_root, web_address):
    """The unit's ExecStartPre and ExecStart as argument lists, as systemd
    would run them here: ${VAR} from Environment= and the environment file,
    %t and %S as this run's folders, the package's paths as the sources'."""
    text = open(UNIT).read().replace("\\\n", " ")
    values = {}
    commands = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == "Environment":
            name, _, setting = value.partition("=")
            values[name] = setting
        elif key in ("ExecStartPre", "ExecStart"):
            commands[key] = value
    values.update(env)  # EnvironmentFile= overrides Environment=
    result = {}
    for key, command in commands.items():
        arguments = []
        for word in shlex.split(command):
            word = re.sub(r"\$\{(\w+)\}", lambda m: values.get(m.group(1), ""), word)
            word = word.replace("%t", runtime_root).replace("%S", state_root)
            for installed, source in INSTALLED.items():
                word = word.replace(installed, source)
            if word.startswith("--web.listen-address="):
                word = "--web.listen-address=" + web_address
            arguments.append(word)
        result[key] = arguments
    return result


def identity_config(work):
    """example.toml with an [identity] naming the test kiosk (any
    [identity] it has of its own left out)."""
    lines, skipping = [], False
    for line in open(CONFIG).read().splitlines():
        header = line.strip()
        if header.startswith("[") and not header.startswith("[["):
            skipping = header == "[identity]"
        if not skipping:
            lines.append(line)
    lines += ["", "[identity]", f'kiosk = "{KIOSK}"', f'site = "{SITE}"']
    path = os.path.join(work, "kiosk.toml")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def agent_counter(agent_port, name):
    """The sum of an agent's own counter over its series (None if absent)."""
    _, _, body = http_get(f"http://127.0.0.1:{agent_port}/metrics")
    values = [float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
              if line.startswith(name + "{") or line.startswith(name + " ")]
    return sum(values) if values else None


def main():
    binary = os.environ.get("TRANSITIOND", os.path.join(ROOT, ".build/debug/transitiond"))
    if not os.path.isabs(binary):
        binary = os.path.join(ROOT, binary)
    if shutil.which("prometheus") is None:
        check("prometheus is installed (Debian: prometheus)", False)
        return
    work = tempfile.mkdtemp(prefix="transitiond-remote-write.")
    daemon = agent = receiver = None
    logs = {name: os.path.join(work, name) for name in ("daemon.log", "agent.log", "receiver.log", "render.log")}
    try:
        metrics_port, agent_port, receiver_port = free_port(), free_port(), free_port()

        # The daemon, with the kiosk's identity when this build has [identity].
        config = identity_config(work)
        accepted = subprocess.run([binary, "check-config", config], capture_output=True, text=True, timeout=30)
        check("the daemon takes an [identity] table (kiosk, site)", accepted.returncode == 0,
              (accepted.stderr.strip().splitlines() or [""])[0] + " (running without it)")
        if accepted.returncode != 0:
            config = CONFIG
        daemon_started = time.time()
        daemon = subprocess.Popen(
            [binary, "replay", *RECORDINGS, "--config", config, "--socket", os.path.join(work, "t.sock"), "--hold",
             "--metrics", f"127.0.0.1:{metrics_port}"],
            stdout=subprocess.DEVNULL, stderr=open(logs["daemon.log"], "w"))
        wait_for("the daemon's /metrics", lambda: http_get(f"http://127.0.0.1:{metrics_port}/metrics")[0] == 200, 30)

        # The receiver: a Prometheus that scrapes nothing and takes remote writes.
        with open(os.path.join(work, "receiver.yml"), "w") as f:
            f.write("global:\n  evaluation_interval: 1m\n")

        def start_receiver():
            return subprocess.Popen(
                ["prometheus", f"--config.file={work}/receiver.yml", f"--storage.tsdb.path={work}/receiver-data",
                 f"--web.listen-address=127.0.0.1:{receiver_port}", "--web.enable-remote-write-receiver",
                 "--log.level=warn"],
                stdout=subprocess.DEVNULL, stderr=open(logs["receiver.log"], "a"))

        def receiver_ready():
            return http_get(f"http://127.0.0.1:{receiver_port}/-/ready")[0] == 200

        receiver = start_receiver()
        wait_for("the receiver ready", receiver_ready, 30)

        # The agent, as the unit starts it from the operator's environment file.
        env_file = os.path.join(work, "prometheus-agent.env")
        with open(env_file, "w") as f:
            f.write(f"# as in /etc/transitiond/prometheus-agent.env\n"
                    f"REMOTE_WRITE_URL=http://127.0.0.1:{receiver_port}/api/v1/write\n"
                    f"INSTANCE={INSTANCE}\nMETRICS_TARGET=127.0.0.1:{metrics_port}\nSCRAPE_INTERVAL=1s\n")
        env = {}
        for line in open(env_file):
            if line.strip() and not line.startswith("#"):
                name, _, value = line.strip().partition("=")
                env[name] = value
        runtime_root, state_root = os.path.join(work, "run"), os.path.join(work, "state")
        # What RuntimeDirectory= and StateDirectory= make.
        os.makedirs(os.path.join(runtime_root, "transitiond-prometheus-agent"))
        os.makedirs(os.path.join(state_root, "transitiond-prometheus-agent"))
        commands = unit_commands(env, runtime_root, state_root, f"127.0.0.1:{agent_port}")
        render = subprocess.run(commands["ExecStartPre"], env={**os.environ, **env}, capture_output=True, text=True,
                                timeout=30)
        with open(logs["render.log"], "w") as f:
            f.write(render.stdout + render.stderr)
        check("the unit's ExecStartPre renders the shipped agent.yml", render.returncode == 0,
              render.stderr.strip())
        start = commands["ExecStart"]
        check("the unit's ExecStart runs prometheus in agent mode",
              os.path.basename(start[0]) == "prometheus" and "--enable-feature=agent" in start, " ".join(start))
        agent = subprocess.Popen(["prometheus", *start[1:]], stdout=subprocess.DEVNULL,
                                 stderr=open(logs["agent.log"], "w"))
        wait_for("the agent ready", lambda: http_get(f"http://127.0.0.1:{agent_port}/-/ready")[0] == 200, 30)

        def query(expression, at=None):
            url = f"http://127.0.0.1:{receiver_port}/api/v1/query?query=" + urllib.parse.quote(expression)
            if at is not None:
                url += f"&time={at:.3f}"
            answer = json.loads(http_get(url)[2])
            if answer.get("status") != "success":
                raise RuntimeError(answer)
            return answer["data"]["result"]

        build_info = f'transitiond_build_info{{job="transitiond", instance="{INSTANCE}"}}'
        wait_for("the daemon's series on the receiver", lambda: query(build_info), 60)
        check("the receiver has the daemon's series, remote-written under the agent's instance label", True)
        info = f'transitiond_info{{instance="{INSTANCE}"}}'
        try:
            wait_for("transitiond_info on the receiver", lambda: query(info), 10 if accepted.returncode == 0 else 0.1)
        except TimeoutError:
            pass
        identity = query(info)
        labels = identity[0]["metric"] if len(identity) == 1 else {}
        check("transitiond_info arrives with kiosk, site and config_hash",
              labels.get("kiosk") == KIOSK and labels.get("site") == SITE and labels.get("config_hash", "") != "",
              str(identity))
        # What the fleet's restart alert counts the changes of.
        started = query(f'process_start_time_seconds{{instance="{INSTANCE}"}}')
        check("process_start_time_seconds arrives, the daemon's start",
              len(started) == 1 and daemon_started - 5 <= float(started[0]["value"][1]) <= time.time(), str(started))

        # The outage: the receiver stops; the agent keeps scraping into its WAL.
        wait_for("the receiver caught up",
                 lambda: any(float(r["value"][0]) >= time.time() - 3 for r in query(build_info)), 30)
        retried_before = agent_counter(agent_port, "prometheus_remote_storage_samples_retried_total") or 0
        receiver.send_signal(signal.SIGTERM)
        receiver.wait(timeout=30)
        outage_start = time.time()
        # 15 s of outage, watching the agent: it must be retrying meanwhile.
        retried = retried_before
        while time.time() < outage_start + OUTAGE:
            try:
                retried = agent_counter(agent_port, "prometheus_remote_storage_samples_retried_total") or retried
            except OSError:
                pass
            time.sleep(0.5)
        check("the agent retried while the receiver was away", retried > retried_before,
              f"samples retried {retried_before} -> {retried}")
        receiver = start_receiver()
        outage_end = time.time()
        wait_for("the receiver ready again", receiver_ready, 30)

        window = outage_end - outage_start
        span = int(window) + 5

        def outage_samples():
            # Raw samples (a range vector at the outage's end), not a query_range.
            result = query(f"{build_info}[{span}s]", at=outage_end)
            stamps = sorted(float(t) for t, _ in result[0]["values"]) if result else []
            inside = [t for t in stamps if outage_start <= t <= outage_end]
            edges = [outage_start] + inside + [outage_end]
            gap = max(b - a for a, b in zip(edges, edges[1:]))
            return len(inside), gap

        def outage_filled():
            count, gap = outage_samples()
            return count >= 0.9 * window / SCRAPE_INTERVAL and gap <= 2.5 * SCRAPE_INTERVAL

        try:
            wait_for("the outage's samples on the receiver", outage_filled, 60, interval=0.5)
        except TimeoutError:
            pass
        count, gap = outage_samples()
        check(f"the outage's samples arrived from the agent's WAL (≥ 90 % of {window:.1f} s at 1 s, no gap over 2.5 s):"
              f" {count} samples, longest gap {gap:.1f} s",
              count >= 0.9 * window / SCRAPE_INTERVAL and gap <= 2.5 * SCRAPE_INTERVAL,
              f"{count} samples in {window:.1f} s, longest gap {gap:.1f} s")
        lost = {name: agent_counter(agent_port, name) for name in
                ("prometheus_remote_storage_samples_failed_total", "prometheus_remote_storage_samples_dropped_total")}
        check("the agent gave up on no sample", all(value == 0 for value in lost.values()), str(lost))
    except Exception as error:
        check("the run", False, f"{type(error).__name__}: {error}")
    finally:
        for process in (agent, receiver, daemon):
            stop(process)
        if tally.failed:
            show_logs(logs.items())
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
    tally.finish()
