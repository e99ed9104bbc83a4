"""A real transitiond for the tests: the binary is ``$TRANSITIOND`` (default
``.build/release/transitiond``, relative to the repository's root), run
from the root so that ``Recordings/…`` and ``config/…`` resolve."""

import json
import os
import re
import signal
import socket
import stat
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, List, Optional

ROOT = Path(__file__).resolve().parents[3]
RECORDING = "Recordings/back-drag-finish.events"
EXAMPLE_CONFIG = "config/example.toml"


def run_coroutine_test(pyfuncitem, limit: float) -> bool:
    """Runs an ``async def`` test on a fresh event loop within ``limit``
    seconds (the conftests' ``pytest_pyfunc_call``); False for a plain one."""
    import asyncio
    import inspect
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return False
    arguments = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}

    async def limited():
        await asyncio.wait_for(pyfuncitem.obj(**arguments), limit)
    asyncio.run(limited())
    return True


def binary() -> str:
    path = Path(os.environ.get("TRANSITIOND") or ".build/release/transitiond")
    if not path.is_absolute():
        path = ROOT / path
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"no transitiond binary at {path} (build it, or set $TRANSITIOND)")
    return str(path)


_help_cache: dict = {}


def supports_websocket() -> bool:
    """Whether this binary has the WebSocket transport (``replay --help``
    mentions ``--websocket``)."""
    exe = binary()
    if exe not in _help_cache:
        out = subprocess.run([exe, "replay", "--help"], capture_output=True, text=True, timeout=30)
        _help_cache[exe] = "--websocket" in out.stdout + out.stderr
    return _help_cache[exe]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition: Callable[[], bool], timeout: float, every: float = 0.02) -> bool:
    """Polls ``condition`` until it holds (True) or ``timeout`` passes (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)


def fast_lines(*arguments: str) -> List[bytes]:
    """The lines (no newline) of ``transitiond replay --fast --json ARGS``."""
    result = subprocess.run([binary(), "replay", "--fast", "--json", *arguments], cwd=ROOT,
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return result.stdout.splitlines()


def event_lines(lines: List[bytes]) -> List[bytes]:
    """The lines that are not a hello."""
    return [line for line in lines if json.loads(line).get("type") != "hello"]


def server_config(directory: Path, server: str = "", base: str = EXAMPLE_CONFIG) -> str:
    """A config file: ``base``'s transitions (its [server] table dropped)
    and ``server`` as its [server] table."""
    text = (ROOT / base).read_text()
    engine = text.split("\n[server]")[0]
    path = directory / f"config-{len(list(directory.glob('config-*.toml')))}.toml"
    path.write_text(engine + "\n[server]\n" + server + "\n")
    return str(path)


class Daemon:
    """``transitiond ARGS`` as a child process, its stderr collected."""

    def __init__(self, arguments: List[str], socket_path: Optional[str] = None,
                 websocket: Optional[str] = None, metrics: Optional[str] = None):
        self.socket = socket_path
        self.websocket = websocket
        self.metrics = metrics
        self.arguments = arguments
        self.process = subprocess.Popen([binary(), *arguments], cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._stderr = bytearray()
        self._stdout = bytearray()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._collect, args=(self.process.stderr, self._stderr), daemon=True),
                         threading.Thread(target=self._collect, args=(self.process.stdout, self._stdout), daemon=True)]
        for thread in self._threads:
            thread.start()

    def _collect(self, stream, into: bytearray) -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            with self._lock:
                into.extend(chunk)

    @property
    def stderr(self) -> str:
        with self._lock:
            return self._stderr.decode(errors="replace")

    @property
    def url(self) -> str:
        assert self.websocket, "this daemon has no WebSocket"
        return f"ws://{self.websocket}/stream"

    @property
    def http(self) -> str:
        assert self.websocket, "this daemon has no WebSocket"
        return f"http://{self.websocket}"

    def scrape(self) -> str:
        """The text of its ``/metrics`` (``--metrics``)."""
        assert self.metrics, "this daemon serves no metrics"
        with urllib.request.urlopen(f"http://{self.metrics}/metrics", timeout=10) as reply:
            return reply.read().decode()

    def wait_listening(self, timeout: float = 20) -> "Daemon":
        """Until the socket is served (the daemon logs ``serving PATH``)
        and, with a WebSocket, ``/healthz`` answers. Connects no client."""
        def ready() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"the daemon exited early ({self.process.returncode}): {self.stderr}")
            if self.socket is not None:
                try:
                    if not stat.S_ISSOCK(os.lstat(self.socket).st_mode):
                        return False
                except FileNotFoundError:
                    return False
                if f"serving {self.socket}" not in self.stderr:
                    return False
            for address in (self.websocket, self.metrics):
                if address is None:
                    continue
                try:
                    with urllib.request.urlopen(f"http://{address}/healthz", timeout=2) as reply:
                        if reply.status != 200:
                            return False
                except (urllib.error.URLError, OSError):
                    return False
            return True
        if not wait_until(ready, timeout):
            raise RuntimeError(f"the daemon did not listen within {timeout} s: {self.stderr}")
        return self

    def signal(self, number: int) -> None:
        if self.process.poll() is None:
            self.process.send_signal(number)

    def wait(self, timeout: float = 20) -> int:
        return self.process.wait(timeout)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not exited in 10 s; reaps it."""
        terminate(self.process)
        for thread in self._threads:
            thread.join(5)


def parse_listen(stderr: str) -> Optional[str]:
    """``HOST:PORT`` from the daemon's log line naming its WebSocket, if any."""
    match = re.search(r"ws://([0-9a-zA-Z.\-]+:\d+)", stderr)
    return match.group(1) if match else None


class Launcher:
    """Starts daemons for one test; all are stopped at its teardown."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.started: List[Daemon] = []
        self.count = 0

    def socket_path(self) -> str:
        self.count += 1
        return str(self.directory / f"d{self.count}.sock")

    def replay(self, *recordings: str, hold: bool = False, wait_clients: Optional[int] = None,
               pace: str = "fast", config: Optional[str] = None, websocket=False,
               socket_path: Optional[str] = None, loop: Optional[int] = None, wait: bool = True,
               metrics: bool = False) -> Daemon:
        """``transitiond replay --socket PATH …`` (``pace`` is ``fast`` or a
        ``--speed``; ``websocket`` True for a free port, or ``HOST:PORT``;
        ``metrics`` True for ``--metrics`` on a free port), listening when
        it returns (unless ``wait`` is False)."""
        path = socket_path or self.socket_path()
        arguments = ["replay", "--socket", path]
        arguments += ["--fast"] if pace == "fast" else ["--speed", pace]
        if hold:
            arguments.append("--hold")
        if wait_clients is not None:
            arguments += ["--wait-clients", str(wait_clients)]
        if config is not None:
            arguments += ["--config", config]
        if loop is not None:
            arguments += ["--loop", str(loop)]
        address = None
        if websocket:
            address = websocket if isinstance(websocket, str) else f"127.0.0.1:{free_port()}"
            arguments += ["--websocket", address]
        metrics_address = f"127.0.0.1:{free_port()}" if metrics else None
        if metrics_address:
            arguments += ["--metrics", metrics_address]
        arguments += list(recordings or [RECORDING])
        daemon = Daemon(arguments, socket_path=path, websocket=address, metrics=metrics_address)
        self.started.append(daemon)
        if wait:
            daemon.wait_listening()
        return daemon

    def stop_all(self) -> None:
        for daemon in self.started:
            daemon.stop()


def where(daemon: Daemon, transport: str) -> dict:
    """``connect`` arguments for a daemon over a transport."""
    return {"url": daemon.url} if transport == "websocket" else {"path": daemon.socket}


def terminate(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL if it has not exited in 10 s; reaps it."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
