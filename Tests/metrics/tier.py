"""What the metrics tier's checks share: the project's paths, the tally of
checks, free ports, HTTP reads and bounded waits (no third-party module:
the checks run on the system's python3)."""
import os
import socket
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "config", "example.toml")


class Tally:
    """The checks' results: a line each, and the tier's last line."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok    {name}")
        else:
            self.failed += 1
            print(f"FAIL  {name}" + (f": {detail}" if detail else ""))

    def finish(self):
        """Prints `metrics: N passed, M failed` and exits (1 on a failure or with no check)."""
        print(f"metrics: {self.passed} passed, {self.failed} failed")
        raise SystemExit(1 if self.failed or not self.passed else 0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=5):
    """(status, content type, body)."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.headers.get("Content-Type", ""), response.read().decode()


def wait_for(what, predicate, timeout, interval=0.2):
    """Calls predicate until it returns something true, for at most timeout s."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as error:  # not up yet
            last_error = error
        time.sleep(interval)
    raise TimeoutError(f"{what}: not within {timeout} s" + (f" (last: {last_error})" if last_error else ""))


def show_logs(paths):
    """The last lines of each log that has any, after a failure: what the
    servers said is usually why."""
    for name, path in paths:
        if os.path.exists(path) and os.path.getsize(path):
            print(f"--- {name} (last lines)")
            with open(path) as f:
                print("".join(f.readlines()[-20:]), end="")
