"""Starting `transitiond run` the way a service manager does, for the
benchmarks that measure the daemon itself (bench/ready-time.py,
bench/idle.py): a datagram socket bound as $NOTIFY_SOCKET, a fresh socket
path and an empty --input-root, so there is no touchscreen and the daemon is
ready once it serves and waits."""

import os
import socket
import subprocess
import tempfile
import time

import benchprocs  # bench/benchprocs.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BINARY = os.path.join(ROOT, ".build/release/transitiond")


def check_binary(binary):
    """Exits with a hint when `binary` is not an executable."""
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"no binary at {binary} (build it: swift build -c release "
                         "--static-swift-stdlib --product transitiond)")


class Notifier:
    """A folder with an empty input root and the $NOTIFY_SOCKET; each
    `start` runs one daemon in it and returns once it said READY=1."""

    def __enter__(self):
        self.folder = tempfile.TemporaryDirectory(prefix="transitiond-bench-")
        self.inputs = os.path.join(self.folder.name, "inputs")
        os.mkdir(self.inputs)
        path = os.path.join(self.folder.name, "notify")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(path)
        self.notify.settimeout(30)
        self.env = dict(os.environ, NOTIFY_SOCKET=path)
        self.runs = 0
        return self

    def __exit__(self, *_):
        self.notify.close()
        self.folder.cleanup()

    def start(self, binary):
        """(the daemon's Popen, seconds from just before the exec to
        READY=1). The caller stops it with `stop`."""
        self.runs += 1
        sock = os.path.join(self.folder.name, f"s{self.runs}.sock")
        start = time.perf_counter()
        daemon = benchprocs.start([binary, "run", "--socket", sock, "--input-root", self.inputs],
                                  env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  preexec_fn=benchprocs.die_with_parent)
        try:
            while not self.notify.recv(4096).decode(errors="replace").startswith("READY=1"):
                pass
        except BaseException:
            stop(daemon)
            raise
        return daemon, time.perf_counter() - start


def stop(daemon):
    """SIGTERM, then SIGKILL if it has not ended within 30 s."""
    benchprocs.end([daemon], 30.0)
