"""docs/examples/subscriber.py (built on this package) as a real process
against a real daemon: its CLI, output, exit codes and connection loss."""

import json
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

from daemon_process import RECORDING, ROOT, fast_lines

SCRIPT = str(ROOT / "docs" / "examples" / "subscriber.py")
QUIET = "Recordings/swipe-up-3-fingers.events"
WAIT = 15


def subscriber(*arguments, python=(sys.executable,)):
    return subprocess.Popen([*python, SCRIPT, *arguments], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(process):
    try:
        out, err = process.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"the subscriber did not end: {err.decode(errors='replace')}")
    return process.returncode, out, err.decode(errors="replace")


@pytest.mark.parametrize("python", [(sys.executable,), (sys.executable, "-S")], ids=["installed", "from-checkout"])
def test_json_is_the_daemons_stream_unchanged(launcher, python):
    """-S: no site-packages, so the script uses the checkout's package."""
    daemon = launcher.replay(wait_clients=1)
    code, out, err = finish(subscriber("--json", "--socket", daemon.socket, "--retry-seconds", "0", python=python))
    lines = out.splitlines()
    expected = fast_lines(RECORDING)
    assert json.loads(lines[0])["type"] == "hello"
    assert lines[1:] == expected[1:]
    # the daemon exits after the replay; no retry time: gives up with 69
    assert code == 69 and "gave up" in err


def test_readable_lines_and_a_subscription(launcher, workdir):
    config = workdir / "two.toml"
    config.write_text('[[transition]]\nname = "back"\ngesture = "edge-pan"\nedge = "left"\n'
                      '[[transition]]\nname = "forward"\ngesture = "edge-pan"\nedge = "right"\n')
    daemon = launcher.replay(wait_clients=1, config=str(config))
    code, out, err = finish(subscriber("back", "--socket", daemon.socket, "--retry-seconds", "0"))
    lines = out.decode().splitlines()
    assert lines[0].startswith("connected: transitiond ") and lines[0].endswith("(back, forward)")
    ended = [line for line in lines if " ended " in line]
    assert len(ended) == 1 and ended[0].split()[1:3] == ["back", "ended"]
    assert "66.0%  finish (released), velocity +0.23/s" in ended[0]
    assert lines[-1].split()[1:4] == ["back", "finished", "100.0%"]
    assert code == 69


def test_an_unknown_transition_is_a_usage_error(launcher):
    daemon = launcher.replay(QUIET, hold=True)
    code, out, err = finish(subscriber("nope", "--socket", daemon.socket, "--retry-seconds", "0"))
    assert code == 64 and "no transition named 'nope'" in err


def test_no_daemon_gives_up_after_the_retry_time(workdir):
    code, out, err = finish(subscriber("--socket", str(workdir / "absent.sock"), "--retry-seconds", "0.3"))
    assert code == 69 and "retrying for up to 0.3 s" in err and "gave up after 0.3 s" in err and out == b""


def test_a_drop_mid_transition_prints_a_synthetic_cancelled_and_reconnects(launcher):
    daemon = launcher.replay(QUIET, hold=True)
    watcher = subscriber("--json", "--socket", daemon.socket, "--retry-seconds", "10")
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(json.loads(line)) for line in watcher.stdout], daemon=True)
    reader.start()
    seen = []

    def read_until(condition):
        deadline = time.monotonic() + WAIT
        while True:
            seen.append(lines.get(timeout=max(0.01, deadline - time.monotonic())))
            if condition(seen[-1]):
                return seen[-1]

    try:
        read_until(lambda m: m["type"] == "hello")
        with socket.socket(socket.AF_UNIX) as driver:        # a second client drives
            driver.connect(daemon.socket)
            driver.sendall(b'{"cmd":"drive","transition":"back","progress":0.25}\n')
            began = read_until(lambda m: m["type"] == "began")
            daemon.signal(signal.SIGKILL)
            cancel = read_until(lambda m: m.get("synthetic") is True)
        assert cancel == {"type": "cancelled", "transition": "back", "seq": began["seq"] + 1,
                          "time": began["time"], "progress": 0, "velocity": 0, "values": {},
                          "synthetic": True}
        daemon.wait(WAIT)
        launcher.replay(QUIET, hold=True, socket_path=daemon.socket)
        read_until(lambda m: m["type"] == "hello")          # reconnected
    finally:
        watcher.send_signal(signal.SIGTERM)
        code, _, err = finish(watcher)
    assert code == 0
    assert "lost; reconnecting" in err
