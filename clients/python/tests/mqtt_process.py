"""A real MQTT broker (Debian's Mosquitto, on a free loopback port, with a
config file written here), a watcher that records what the broker
publishes, and ``transitiond-mqtt`` as a child process — for the bridge's
tests. Every wait is bounded."""

import os
import pwd
import socket
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from daemon_process import ROOT, free_port, terminate, wait_until

MOSQUITTO = "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = "/usr/bin/mosquitto_passwd"


class Collected:
    """A child's output, read on threads so that its pipe never fills."""

    def __init__(self, process: subprocess.Popen):
        self._text = bytearray()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._read, args=(stream,), daemon=True)
                         for stream in (process.stdout, process.stderr) if stream is not None]
        for thread in self._threads:
            thread.start()

    def _read(self, stream) -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            with self._lock:
                self._text.extend(chunk)

    @property
    def text(self) -> str:
        with self._lock:
            return self._text.decode(errors="replace")

    def join(self) -> None:
        for thread in self._threads:
            thread.join(5)


class Mosquitto:
    """``mosquitto -c CONFIG`` on 127.0.0.1:PORT; ``users`` makes it
    require a password (``{name: password}``)."""

    def __init__(self, directory: Path, port: Optional[int] = None, users: Optional[Dict[str, str]] = None):
        self.directory = directory
        self.port = port or free_port()
        self.users = users
        self.process: Optional[subprocess.Popen] = None
        self.output: Optional[Collected] = None

    def start(self) -> "Mosquitto":
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "log_dest stderr",
                 "log_type error", "log_type warning", "log_type notice",
                 # As root it would switch to the user mosquitto, who cannot
                 # read this test's private folder.
                 f"user {pwd.getpwuid(os.getuid()).pw_name}"]
        if self.users:
            passwords = self.directory / f"passwords-{self.port}"
            passwords.write_text("")
            for name, password in self.users.items():
                subprocess.run([MOSQUITTO_PASSWD, "-b", str(passwords), name, password], check=True,
                               capture_output=True, timeout=20)
            os.chmod(passwords, 0o600)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
        else:
            lines.append("allow_anonymous true")
        config = self.directory / f"mosquitto-{self.port}.conf"
        config.write_text("\n".join(lines) + "\n")
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(config)], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.output = Collected(self.process)

        def listening() -> bool:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited ({self.process.returncode}): {self.output.text}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                return False
        if not wait_until(listening, 15, every=0.05):
            raise RuntimeError(f"mosquitto did not listen on {self.port} within 15 s: {self.output.text}")
        return self

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)
        if self.output is not None:
            self.output.join()


class Watcher:
    """A client of the broker subscribed to everything: what it published
    (retained or not), in order, as ``(topic, payload, retained)``."""

    def __init__(self, port: int, username: Optional[str] = None, password: Optional[str] = None):
        self.messages: List[Tuple[str, str, bool]] = []
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"watcher-{uuid.uuid4().hex[:8]}")
        if username:
            self.client.username_pw_set(username, password)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe("#", qos=1)
        self.client.on_subscribe = lambda c, u, mid, rcs, p: self._subscribed.set()
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port, keepalive=30)
        self.client.loop_start()
        if not self._subscribed.wait(10):
            self.close()
            raise RuntimeError("the watcher could not subscribe within 10 s")

    def _message(self, client, userdata, message) -> None:
        with self._lock:
            self.messages.append((message.topic, message.payload.decode(errors="replace"), bool(message.retain)))

    def all(self) -> List[Tuple[str, str, bool]]:
        with self._lock:
            return list(self.messages)

    def latest(self, topic: str) -> Optional[str]:
        """The last payload seen on ``topic`` (None: none)."""
        for seen, payload, _ in reversed(self.all()):
            if seen == topic:
                return payload
        return None

    def payloads(self, topic: str) -> List[str]:
        return [payload for seen, payload, _ in self.all() if seen == topic]

    def wait(self, topic: str, payload: Optional[str] = None, timeout: float = 15) -> str:
        """Until ``topic``'s latest payload is ``payload`` (any, if None)."""
        def arrived() -> bool:
            latest = self.latest(topic)
            return latest is not None and (payload is None or latest == payload)
        if not wait_until(arrived, timeout):
            raise AssertionError(f"{topic}: expected {payload!r} within {timeout} s, last {self.latest(topic)!r}; "
                                 f"seen: {sorted({t for t, _, _ in self.all()})}")
        return self.latest(topic) or ""

    def publish(self, topic: str, payload: str, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def bridge_script() -> str:
    """The console script the package installed beside this Python."""
    path = Path(sys.executable).parent / "transitiond-mqtt"
    if not path.exists():
        raise RuntimeError(f"no transitiond-mqtt beside {sys.executable}: install the package with its mqtt extra")
    return str(path)


class Bridge:
    """``transitiond-mqtt ARGS`` as a child process, its output collected."""

    def __init__(self, arguments: List[str], environment: Optional[Dict[str, str]] = None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("MQTT_")}
        env.update(environment or {})
        self.process = subprocess.Popen([bridge_script(), *arguments], cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.output = Collected(self.process)

    @property
    def log(self) -> str:
        return self.output.text

    def wait_log(self, text: str, timeout: float = 15, count: int = 1) -> None:
        if not wait_until(lambda: self.log.count(text) >= count, timeout):
            raise AssertionError(f"the bridge did not log {text!r} ({count}x) within {timeout} s: {self.log}")

    def signal(self, number: int) -> None:
        if self.process.poll() is None:
            self.process.send_signal(number)

    def wait(self, timeout: float = 15) -> int:
        return self.process.wait(timeout)

    def stop(self) -> None:
        terminate(self.process)
        self.output.join()


def eventually(condition, timeout: float, what: str) -> None:
    if not wait_until(condition, timeout):
        raise AssertionError(f"not within {timeout} s: {what}")
