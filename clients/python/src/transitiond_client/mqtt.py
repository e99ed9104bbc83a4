"""``transitiond-mqtt``: a bridge from the daemon's socket to an MQTT broker,
with Home Assistant discovery (``pip install 'transitiond-client[mqtt]'``).

It is a client of the socket protocol like any other, so that the daemon
keeps no network code of its own. Under ``transitiond/<kiosk>/`` it
publishes, retained, the kiosk's availability (``offline`` is also its last
will), each transition's state, last decision, last touch and whether it is
enabled, the input's state and the panels' health; it turns
``…/<transition>/enable/set`` and ``…/<transition>/run/set`` into the
daemon's ``enable`` and ``run``. Both connections are retried for ever with
backoff, and everything retained is published again after each
reconnection. SIGTERM publishes ``offline`` and exits 0. See README.md.
"""

import argparse
import asyncio
import json
import logging
import math
import os
import re
import signal
import socket
import sys
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ._paths import socket_path
from .client import Client, CommandError, TransitiondError, connect
from .events import TRANSITION_EVENTS, Event
from .mirror import IDLE

try:
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion
except ImportError:     # main() says what to install; importing the package needs none of it
    paho = None         # type: ignore[assignment]

log = logging.getLogger("transitiond-mqtt")

#: Every topic of a kiosk is under ``transitiond/<kiosk>/``.
TOPIC_ROOT = "transitiond"
#: The exit status for a broker that refuses the credentials: a
#: configuration error (sysexits' EX_CONFIG), which retrying cannot fix.
EXIT_REFUSED = 78
#: Waits between attempts to reach the daemon or the broker (seconds).
BACKOFF_FIRST, BACKOFF_MAX = 0.5, 15.0
#: CONNACK reason codes that mean "these credentials will never do": MQTT
#: 3.1.1's 4 and 5 and MQTT 5's 134 and 135.
_AUTH_REFUSALS = {4, 5, 134, 135}
#: Reasons of an ``ended`` that are not a person at the panel.
_NOT_A_TOUCH = {"command", "client-lost", "shutdown", "reload"}


def topic_part(name: str) -> str:
    """A name as one level of a topic: MQTT's wildcards (``+``, ``#``), the
    level separator, spaces and control characters become ``_``."""
    cleaned = re.sub(r"[+#/\s\x00-\x1f\x7f]", "_", name)
    return cleaned or "_"


def object_id(name: str) -> str:
    """A name as Home Assistant's ids want it: ``[A-Za-z0-9_-]``."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name) or "_"


# MARK: Options


class Options:
    """What the command line and the environment say."""

    def __init__(self, arguments: argparse.Namespace, password: Optional[str]):
        self.socket: str = arguments.socket
        self.broker: str = arguments.broker
        self.port: int = arguments.port
        self.username: Optional[str] = arguments.username or None
        self.password = password
        self.tls: bool = arguments.tls
        self.tls_ca: Optional[str] = arguments.tls_ca
        self.protocol: str = arguments.protocol
        self.discovery_prefix: str = arguments.discovery_prefix.strip("/")
        self.discovery: bool = not arguments.no_discovery
        self.kiosk: Optional[str] = arguments.kiosk
        self.state_interval: float = arguments.state_interval
        self.min_interval: float = arguments.min_interval
        self.keepalive: int = arguments.keepalive

    @property
    def broker_name(self) -> str:
        return f"{self.broker}:{self.port}"


def parse_options(argv: Optional[Sequence[str]] = None,
                  environ: Optional[Mapping[str, str]] = None) -> Options:
    env = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(
        prog="transitiond-mqtt",
        description="Publishes transitiond's transitions to an MQTT broker (with Home Assistant "
                    "discovery) and carries out enable/run commands from it.")
    parser.add_argument("--socket", default=None,
                        help="the daemon's socket (default: $TRANSITIOND_SOCKET, else "
                             "$XDG_RUNTIME_DIR/transitiond.sock, else /run/transitiond/transitiond.sock)")
    parser.add_argument("--broker", default=env.get("MQTT_HOST") or "localhost",
                        help="the broker's host name or address ($MQTT_HOST; default localhost)")
    parser.add_argument("--port", type=int, default=None,
                        help="the broker's port ($MQTT_PORT; default 1883, 8883 with --tls)")
    parser.add_argument("--username", default=env.get("MQTT_USERNAME") or None,
                        help="the user name to log in with ($MQTT_USERNAME)")
    parser.add_argument("--password-file", default=None,
                        help="a file whose first line is the password (default: $MQTT_PASSWORD, else "
                             "the systemd credential mqtt-password when there is one)")
    parser.add_argument("--tls", action="store_true", default=_truthy(env.get("MQTT_TLS")),
                        help="connect with TLS, checking the broker's certificate ($MQTT_TLS=1)")
    parser.add_argument("--tls-ca", default=env.get("MQTT_TLS_CA") or None,
                        help="with --tls: the CA certificates to trust (default: the system's)")
    parser.add_argument("--protocol", choices=("3.1.1", "5"), default=env.get("MQTT_PROTOCOL") or "3.1.1",
                        help="the MQTT version ($MQTT_PROTOCOL; default 3.1.1)")
    parser.add_argument("--discovery-prefix", default=env.get("MQTT_DISCOVERY_PREFIX") or "homeassistant",
                        help="Home Assistant's discovery prefix (default homeassistant)")
    parser.add_argument("--no-discovery", action="store_true", help="publish no discovery messages")
    parser.add_argument("--kiosk", default=env.get("MQTT_KIOSK") or None,
                        help="the name in the topics (default: the daemon's [identity] kiosk, else the host name)")
    parser.add_argument("--state-interval", type=float, default=10.0,
                        help="seconds between two state requests for the input and the panels (default 10)")
    parser.add_argument("--min-interval", type=float, default=0.25,
                        help="the least seconds between two messages on one topic (default 0.25)")
    parser.add_argument("--keepalive", type=int, default=30,
                        help="MQTT keep-alive in seconds: the broker publishes the last will after "
                             "1.5 times this without a word (default 30)")
    arguments = parser.parse_args(argv)
    arguments.socket = socket_path(arguments.socket, env)
    if arguments.port is None:
        text = env.get("MQTT_PORT")
        try:
            arguments.port = int(text) if text else (8883 if arguments.tls else 1883)
        except ValueError:
            parser.error(f"MQTT_PORT is not a port number: {text!r}")
    if not 0 < arguments.port < 65536:
        parser.error(f"not a port number: {arguments.port}")
    if not (math.isfinite(arguments.state_interval) and arguments.state_interval > 0
            and math.isfinite(arguments.min_interval) and arguments.min_interval >= 0):
        parser.error("--state-interval must be a number above 0 and --min-interval one at least 0")
    if not 5 <= arguments.keepalive <= 65535:
        parser.error(f"--keepalive must be from 5 to 65535 seconds, not {arguments.keepalive}")
    if arguments.tls_ca and not arguments.tls:
        parser.error("--tls-ca needs --tls")
    if arguments.tls_ca and not os.path.isfile(arguments.tls_ca):
        parser.error(f"--tls-ca {arguments.tls_ca}: no such file")
    try:
        password = _password(arguments.password_file, env)
    except OSError as error:
        parser.error(f"cannot read the password file: {error}")
    if password and not arguments.username:
        parser.error("a password needs a user name (--username or $MQTT_USERNAME)")
    return Options(arguments, password)


def _truthy(value: Optional[str]) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _password(path: Optional[str], env: Mapping[str, str]) -> Optional[str]:
    """--password-file, else $MQTT_PASSWORD, else systemd's credential
    ``mqtt-password`` (LoadCredential=). An empty one is none."""
    if not path and env.get("MQTT_PASSWORD"):
        return env["MQTT_PASSWORD"]
    if not path and env.get("CREDENTIALS_DIRECTORY"):
        candidate = os.path.join(env["CREDENTIALS_DIRECTORY"], "mqtt-password")
        if os.path.exists(candidate):
            path = candidate
    if not path:
        return None
    with open(path, encoding="utf-8") as file:
        line = file.readline().rstrip("\r\n")
    return line or None


# MARK: The broker side


class Broker:
    """paho-mqtt's client, whose network thread connects, reconnects with
    backoff and keeps the session alive; its callbacks are handed to the
    asyncio loop, where everything else happens."""

    def __init__(self, options: Options, client_id: str, will_topic: str,
                 loop: asyncio.AbstractEventLoop,
                 on_connected: Callable[[], None], on_lost: Callable[[str], None],
                 on_message: Callable[[str, bytes, bool], None], on_refused: Callable[[str, bool], None]):
        assert paho is not None
        self.options = options
        self.connected = False
        self._loop = loop
        self._on_connected, self._on_lost = on_connected, on_lost
        self._on_message, self._on_refused = on_message, on_refused
        protocol = paho.MQTTv5 if options.protocol == "5" else paho.MQTTv311
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=protocol)
        if options.username:
            self.client.username_pw_set(options.username, options.password)
        if options.tls:
            self.client.tls_set(ca_certs=options.tls_ca)
        # Set before connecting, so the broker holds it from the first
        # CONNECT: a kiosk that loses power or network shows offline.
        self.client.will_set(will_topic, "offline", qos=1, retain=True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=int(BACKOFF_MAX))
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.client.on_connect_fail = self._connect_failed
        self._failures = 0

    def start(self) -> None:
        # connect_async + loop_start: the thread keeps trying while the
        # broker is missing (at start as after a drop).
        self.client.connect_async(self.options.broker, self.options.port, keepalive=self.options.keepalive)
        self.client.loop_start()

    def publish(self, topic: str, payload: str, retain: bool = True) -> bool:
        """Sends when connected (QoS 1); False when not, so that the caller
        sends it again after the next connection rather than paho queuing
        an old value."""
        if not self.connected:
            return False
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        return info.rc == paho.MQTT_ERR_SUCCESS

    def subscribe(self, topics: List[str]) -> None:
        if self.connected and topics:
            self.client.subscribe([(t, 1) for t in topics])

    def stop(self, last: Optional[Tuple[str, str]] = None, timeout: float = 3.0) -> None:
        """Publishes ``last`` (retained) if connected, waits up to
        ``timeout`` for the broker to take it, disconnects cleanly (the will
        is then dropped, as it should be) and stops the thread."""
        if last is not None and self.connected:
            info = self.client.publish(last[0], last[1], qos=1, retain=True)
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError):
                pass        # the connection went meanwhile: the will says the same
        self.client.disconnect()
        self.client.loop_stop()

    # Called on paho's thread.

    def _hand(self, callback: Callable[..., None], *arguments: Any) -> None:
        try:
            self._loop.call_soon_threadsafe(callback, *arguments)
        except RuntimeError:
            pass        # the loop is closed: the bridge has stopped

    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if getattr(reason, "is_failure", False):
            code = getattr(reason, "value", None)
            fatal = code in _AUTH_REFUSALS
            if fatal:
                client.disconnect()     # stop retrying: the loop decides what next
            self._hand(self._on_refused, str(reason), fatal)
            return
        self._failures = 0
        self._hand(self._connected_on_loop)

    def _connected_on_loop(self) -> None:
        self.connected = True
        self._on_connected()

    def _disconnected(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self._hand(self._lost_on_loop, str(reason))

    def _lost_on_loop(self, reason: str) -> None:
        was = self.connected
        self.connected = False
        if was:
            self._on_lost(reason)

    def _connect_failed(self, client: Any, userdata: Any) -> None:
        # paho calls this inside its `except OSError:`: the error is the one
        # being handled, and says why (refused, unreachable, a certificate).
        error = sys.exc_info()[1]
        self._failures += 1
        self._hand(self._on_lost_attempt, self._failures, _reason(error))

    def _on_lost_attempt(self, failures: int, reason: str) -> None:
        # Once, then now and then: a broker down for an hour is not 400 lines.
        if failures == 1 or failures % 20 == 0:
            log.warning("cannot reach the broker %s (attempt %d): %s; retrying",
                        self.options.broker_name, failures, reason)

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        self._hand(self._on_message, message.topic, bytes(message.payload), bool(message.retain))


# MARK: Retained values, rate-limited


class Outbox:
    """The retained value of every topic, as it should be on the broker.

    A change is sent at once unless the topic had a message less than
    ``interval`` ago; then the latest value goes when the interval is over
    (what came between is dropped): a gesture is a few messages, never one
    per frame. After a reconnection, :meth:`republish` sends every value
    again (a broker restarted without persistence has lost them)."""

    def __init__(self, send: Callable[[str, str], bool], interval: float, loop: asyncio.AbstractEventLoop):
        self.values: Dict[str, str] = {}
        self._send_to_broker = send
        self._interval = interval
        self._loop = loop
        self._sent: Dict[str, str] = {}
        self._last: Dict[str, float] = {}
        self._timers: Dict[str, asyncio.TimerHandle] = {}

    def set(self, topic: str, payload: str, limit: bool = True) -> None:
        self.values[topic] = payload
        if self._sent.get(topic) == payload and topic not in self._timers:
            return
        due = self._last.get(topic, -math.inf) + self._interval
        if not limit or self._loop.time() >= due:
            self._flush(topic)
        elif topic not in self._timers:
            self._timers[topic] = self._loop.call_at(due, self._flush, topic)

    def _flush(self, topic: str) -> None:
        timer = self._timers.pop(topic, None)
        if timer is not None:
            timer.cancel()
        payload = self.values.get(topic)
        if payload is None or self._sent.get(topic) == payload:
            return
        if self._send_to_broker(topic, payload):
            self._sent[topic] = payload
            self._last[topic] = self._loop.time()

    def republish(self) -> None:
        self._sent.clear()
        for topic in list(self.values):
            self._flush(topic)

    def resend(self, topic: str) -> None:
        """Sends the topic's value again, now."""
        self._sent.pop(topic, None)
        self._flush(topic)

    def lost(self) -> None:
        """The broker went: nothing counts as sent any more."""
        self._sent.clear()


# MARK: The bridge


class Bridge:
    """Reads the daemon, writes the broker; :meth:`run` until SIGTERM."""

    def __init__(self, options: Options):
        self.options = options
        self.kiosk: Optional[str] = None
        self.version = ""
        self.root = ""
        self.client: Optional[Client] = None
        self.broker: Optional[Broker] = None
        self.outbox: Optional[Outbox] = None
        self.exit_status = 0
        self._stop: Optional[asyncio.Event] = None
        self._snapshot: Dict[str, Any] = {}
        self._discovery: Dict[str, str] = {}
        self._daemon_down_logged = False
        self._tasks: Set["asyncio.Task[Any]"] = set()

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()        # made here: Python 3.9 binds it to the running loop
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, self._stop.set)
        if self.options.kiosk:
            self._name_kiosk(self.options.kiosk)
        daemon = loop.create_task(self._daemon_loop())
        stop = loop.create_task(self._stop.wait())
        await asyncio.wait({daemon, stop}, return_when=asyncio.FIRST_COMPLETED)
        if daemon.done() and not daemon.cancelled() and daemon.exception() is not None:
            # The loop never ends by itself: this is a bug, which must not
            # look like a clean stop to systemd.
            error = daemon.exception()
            log.error("stopping on an unexpected error: %r", error, exc_info=error)
            self.exit_status = 70
        daemon.cancel()
        for task in (daemon, stop, *self._tasks):
            task.cancel()
        await asyncio.gather(daemon, stop, *self._tasks, return_exceptions=True)
        if self.client is not None:
            await self.client.close()
        if self.broker is not None:
            # Off the loop: paho waits for the broker's PUBACK on its thread.
            await loop.run_in_executor(None, self.broker.stop, (self._topic("availability"), "offline"))
        log.info("stopped")
        return self.exit_status

    @property
    def _stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    # MARK: Naming

    def _name_kiosk(self, name: str) -> None:
        """The topics' kiosk is fixed once known: the last will names it."""
        self.kiosk = topic_part(name)
        self.root = f"{TOPIC_ROOT}/{self.kiosk}"
        if self.kiosk != name:
            log.info("kiosk %r is %r in topics", name, self.kiosk)

    def _topic(self, *levels: str) -> str:
        return "/".join([self.root, *levels])

    # MARK: The daemon

    async def _daemon_loop(self) -> None:
        delay = BACKOFF_FIRST
        while True:
            try:
                client = await connect(self.options.socket, timeout=10)
            except (TransitiondError, OSError, asyncio.TimeoutError) as error:
                if not self._daemon_down_logged:
                    log.warning("cannot reach transitiond at %s (%s); waiting for it", self.options.socket, error)
                    self._daemon_down_logged = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_MAX)
                continue
            delay = BACKOFF_FIRST
            self._daemon_down_logged = False
            log.info("connected to transitiond at %s", self.options.socket)
            self.client = client
            try:
                await self._serve(client)
            except (ConnectionError, TransitiondError, asyncio.TimeoutError) as error:
                log.warning("the connection to transitiond ended: %s", error)
            finally:
                self.client = None
                await client.close()
            log.warning("lost transitiond at %s; waiting for it", self.options.socket)
            self._daemon_down_logged = True
            self._set("availability", "offline", limit=False)

    async def _serve(self, client: Client) -> None:
        hello = client.hello
        assert hello is not None
        if self.kiosk is None:
            identity = hello.get("identity")
            kiosk = identity.get("kiosk") if isinstance(identity, dict) else None
            self._name_kiosk(kiosk if isinstance(kiosk, str) and kiosk else socket.gethostname())
        self._start_broker()
        self._snapshot_in(hello, client)
        self._set("availability", "online", limit=False)
        poll = asyncio.get_running_loop().create_task(self._poll_state(client))
        try:
            async for event in client:
                kind = event.type
                if kind == "hello":
                    self._snapshot_in(event, client)
                elif kind in TRANSITION_EVENTS:
                    self._event_in(event, client)
                elif kind == "error":
                    log.warning("transitiond says: %s: %s", event.get("code"), event.get("message"))
        finally:
            poll.cancel()
            await asyncio.gather(poll, return_exceptions=True)

    async def _poll_state(self, client: Client) -> None:
        """``state`` now and then: the input's state and the panels' health
        change without a new ``hello``."""
        while True:
            await asyncio.sleep(self.options.state_interval)
            try:
                self._snapshot_in(await client.state(), client)
            except CommandError as error:
                log.warning("state refused: %s", error)
            except (ConnectionError, asyncio.TimeoutError):
                return      # the read loop sees the drop

    def _snapshot_in(self, snapshot: Event, client: Client) -> None:
        """A ``hello`` or ``state``: every value it carries."""
        self._snapshot = dict(snapshot)
        if snapshot.get("type") == "hello":
            version = snapshot.get("version")
            self.version = version if isinstance(version, str) else ""
            identity = snapshot.get("identity")
            named = identity.get("kiosk") if isinstance(identity, dict) else None
            if isinstance(named, str) and named and not self.options.kiosk and topic_part(named) != self.kiosk:
                log.warning("the daemon's kiosk is now %r; the topics stay under %s until the bridge restarts",
                            named, self.root)
            self._set("info", json.dumps({"version": self.version, "identity": identity,
                                          "socket": self.options.socket}, sort_keys=True), limit=False)
        for info in snapshot.get("transitions") or []:
            if isinstance(info, dict) and isinstance(info.get("name"), str):
                name = info["name"]
                self._set(name, "enabled", "OFF" if info.get("enabled") is False else "ON")
                self._transition_in(name, client)
        if isinstance(snapshot.get("input"), str):
            self._set("input", snapshot["input"])
            details = {k: snapshot[k] for k in ("device", "device_name", "devices", "waiting_for") if k in snapshot}
            self._set("input", "attributes", json.dumps(details, sort_keys=True))
        panels = snapshot.get("panels")
        if isinstance(panels, list):
            degraded = any(isinstance(p, dict) and p.get("degraded") is True for p in panels)
            self._set("health", "degraded" if degraded else "ok")
            self._set("panels", json.dumps(panels, sort_keys=True))
        self._publish_discovery()

    def _event_in(self, event: Event, client: Client) -> None:
        name = event.transition
        if not isinstance(name, str):
            return
        if event.type == "ended":
            decision = event.get("decision")
            if isinstance(decision, str):
                self._set(name, "decision", decision)
            if event.get("reason") not in _NOT_A_TOUCH:
                now = datetime.now(timezone.utc).isoformat(timespec="seconds")
                self._set(name, "last_touch", now)
        self._transition_in(name, client)

    def _transition_in(self, name: str, client: Client) -> None:
        state = client.transitions.get(name)
        self._set(name, "state", state.phase if state is not None else IDLE)
        if state is not None and state.decision and self.outbox is not None \
                and self._topic(name, "decision") not in self.outbox.values:
            self._set(name, "decision", state.decision)

    def _set(self, *levels_and_payload: str, limit: bool = True) -> None:
        *levels, payload = levels_and_payload
        if self.outbox is not None:
            self.outbox.set(self._topic(*levels), payload, limit=limit)

    # MARK: The broker

    def _start_broker(self) -> None:
        if self.broker is not None:
            return
        loop = asyncio.get_running_loop()
        client_id = f"transitiond-mqtt-{object_id(self.kiosk or '')}-{os.getpid()}"
        self.broker = Broker(self.options, client_id, self._topic("availability"), loop,
                             self._broker_connected, self._broker_lost, self._command_in, self._broker_refused)
        self.outbox = Outbox(self.broker.publish, self.options.min_interval, loop)
        log.info("connecting to the broker %s (MQTT %s) as %s", self.options.broker_name,
                 self.options.protocol, self.root)
        self.broker.start()

    def _broker_connected(self) -> None:
        assert self.broker is not None and self.outbox is not None
        log.info("connected to the broker %s", self.options.broker_name)
        self.broker.subscribe([self._topic("+", "enable", "set"), self._topic("+", "run", "set"),
                               self._topic("availability")])
        self._discovery_sent_clear()
        self._publish_discovery()
        self.outbox.republish()

    def _broker_lost(self, reason: str) -> None:
        if self.outbox is not None:
            self.outbox.lost()
        self._discovery_sent_clear()
        if not self._stopping:
            log.warning("lost the broker %s (%s); reconnecting", self.options.broker_name, reason)

    def _broker_refused(self, reason: str, fatal: bool) -> None:
        if fatal:
            log.error("the broker %s refused the connection: %s (check the user name and the password)",
                      self.options.broker_name, reason)
            self.exit_status = EXIT_REFUSED
            assert self._stop is not None
            self._stop.set()
        else:
            log.warning("the broker %s refused the connection: %s; retrying", self.options.broker_name, reason)

    # MARK: Commands

    def _command_in(self, topic: str, payload: bytes, retained: bool = False) -> None:
        if not topic.startswith(self.root + "/"):
            return
        levels = topic[len(self.root) + 1:].split("/")
        text = payload.decode("utf-8", errors="replace").strip()
        if levels == ["availability"]:
            # A will from an earlier connection of ours (a kiosk that
            # rebooted faster than the broker's keep-alive) must not win.
            topic = self._topic("availability")
            if text == "offline" and not self._stopping and self.outbox is not None \
                    and self.outbox.values.get(topic) == "online":
                self.outbox.resend(topic)
            return
        if len(levels) != 3 or levels[2] != "set" or levels[1] not in ("enable", "run"):
            return
        if not text:
            # An empty message is how a retained one is cleared from the
            # broker (`mosquitto_pub -r -n`): never a command.
            return
        if retained:
            # A command left retained on the broker (`mosquitto_pub -r`, a
            # flow) would run again at every connection: commands are
            # what happens now, never a state to restore.
            log.warning("%s: a retained command, not carried out (publish commands without retain)", topic)
            return
        task = asyncio.get_running_loop().create_task(self._command(levels[0], levels[1], text))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _command(self, transition: str, what: str, text: str) -> None:
        client = self.client
        try:
            command = _command_for(transition, what, text)
        except ValueError as error:
            self._refuse(transition, what, "bad-payload", str(error))
            return
        if client is None:
            self._refuse(transition, what, "unavailable", "transitiond is not connected")
            return
        try:
            await client.command(command)
        except CommandError as error:
            hint = (" (the bridge's user must be allowed to command: [server] allow_uids or allow_groups "
                    "in the daemon's config)") if error.code == "forbidden" else ""
            self._refuse(transition, what, error.code, error.message + hint)
            return
        except (ConnectionError, asyncio.TimeoutError) as error:
            self._refuse(transition, what, "unavailable", f"transitiond did not answer: {error}")
            return
        log.info("%s %s: %s", what, transition, text)
        if what == "enable":
            self._set(transition, "enabled", "ON" if command["enabled"] else "OFF", limit=False)

    def _refuse(self, transition: str, what: str, code: str, message: str) -> None:
        message = _shortened(message)
        log.error("%s/%s refused: %s: %s", transition, what, code, message)
        if self.broker is not None:
            self.broker.publish(self._topic("error"), json.dumps(
                {"transition": transition, "command": what, "code": code, "message": message}), retain=False)
        if what == "enable" and self.outbox is not None:
            # Home Assistant's switch moved optimistically: say the state again.
            self.outbox.resend(self._topic(transition, "enabled"))

    # MARK: Home Assistant discovery

    def _discovery_sent_clear(self) -> None:
        self._discovery = {}

    def _publish_discovery(self) -> None:
        broker = self.broker
        if broker is None or not broker.connected or not self.options.discovery:
            return
        wanted = self._discovery_messages()
        for topic in self._discovery:
            if topic not in wanted:
                broker.publish(topic, "")       # an empty config removes the entity
        for topic, payload in wanted.items():
            if self._discovery.get(topic) != payload:
                broker.publish(topic, payload)
        self._discovery = wanted

    def _discovery_messages(self) -> Dict[str, str]:
        """Every discovery config for the snapshot in force, by topic."""
        assert self.kiosk is not None
        prefix = self.options.discovery_prefix
        node = f"transitiond_{object_id(self.kiosk)}"
        device = {"identifiers": [node], "name": self.kiosk, "manufacturer": "transitiond",
                  "model": "transitiond", "sw_version": self.version}
        origin = {"name": "transitiond-mqtt", "sw_version": _package_version()}
        availability = self._topic("availability")
        messages: Dict[str, str] = {}

        def add(component: str, key: str, config: Dict[str, Any], available: bool = True) -> None:
            config = dict(config, unique_id=f"{node}_{key}", device=device, origin=origin)
            if available:
                config["availability_topic"] = availability
            messages[f"{prefix}/{component}/{node}/{key}/config"] = json.dumps(config, sort_keys=True)

        add("binary_sensor", "availability", {
            "name": "Availability", "state_topic": availability, "payload_on": "online",
            "payload_off": "offline", "device_class": "connectivity", "entity_category": "diagnostic",
        }, available=False)
        for info in self._snapshot.get("transitions") or []:
            if not isinstance(info, dict) or not isinstance(info.get("name"), str):
                continue
            name = info["name"]
            key = object_id(name)
            add("switch", f"{key}_enabled", {
                "name": f"{name} gesture", "command_topic": self._topic(name, "enable", "set"),
                "state_topic": self._topic(name, "enabled"), "payload_on": "ON", "payload_off": "OFF",
                "icon": "mdi:gesture-swipe",
            })
            add("sensor", f"{key}_state", {
                "name": f"{name} state", "state_topic": self._topic(name, "state"),
                "device_class": "enum", "options": ["idle", "interacting", "animating"],
            })
            add("sensor", f"{key}_decision", {
                "name": f"{name} last decision", "state_topic": self._topic(name, "decision"),
            })
            add("sensor", f"{key}_last_touch", {
                "name": f"{name} last touch", "state_topic": self._topic(name, "last_touch"),
                "device_class": "timestamp",
            })
            add("button", f"{key}_run", {
                "name": f"{name} run", "command_topic": self._topic(name, "run", "set"), "payload_press": "finish",
            })
        if isinstance(self._snapshot.get("input"), str):
            add("sensor", "input", {"name": "Input", "state_topic": self._topic("input"),
                                    "json_attributes_topic": self._topic("input", "attributes"),
                                    "entity_category": "diagnostic"})
        if isinstance(self._snapshot.get("panels"), list):
            add("sensor", "panel_health", {"name": "Panel health", "state_topic": self._topic("health"),
                                           "json_attributes_topic": self._topic("panels"),
                                           "entity_category": "diagnostic"})
        return messages


def _reason(error: Optional[BaseException]) -> str:
    """Why a connection failed, in a few words; a certificate the broker's
    name or CA does not vouch for is named as such (it will not pass by
    retrying, unlike a broker that is down)."""
    if error is None:
        return "no reason given"
    import ssl
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"its TLS certificate is not trusted ({error.verify_message}; see --tls-ca)"
    return str(error) or type(error).__name__


def _shortened(text: str, limit: int = 120) -> str:
    """A payload quoted in a log line or on the error topic: at most ``limit`` characters."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def _command_for(transition: str, what: str, text: str) -> Dict[str, Any]:
    """The daemon's command for a ``…/enable/set`` or ``…/run/set`` payload."""
    if what == "enable":
        word = text.upper()
        if word in ("ON", "TRUE", "1"):
            return {"cmd": "enable", "transition": transition, "enabled": True}
        if word in ("OFF", "FALSE", "0"):
            return {"cmd": "enable", "transition": transition, "enabled": False}
        raise ValueError(f"enable/set takes ON or OFF, not {text!r}")
    command: Dict[str, Any] = {"cmd": "run", "transition": transition}
    word = text.lower()
    if word in ("finish", "press", "cancel"):
        command["to"] = "cancel" if word == "cancel" else "finish"
    elif re.fullmatch(r"#\d+", word):
        command["index"] = int(word[1:])
    else:
        try:
            point = float(word)
        except ValueError:
            raise ValueError(f"run/set takes finish, cancel, a snap point (0.5) or #INDEX, not {text!r}") from None
        if not math.isfinite(point):
            raise ValueError(f"not a snap point: {text!r}")
        command["to"] = point
    return command


def _package_version() -> str:
    from . import __version__
    return __version__


class _Format(logging.Formatter):
    """``transitiond-mqtt: MESSAGE``, with ``error:``/``warning:`` before
    the message when it is one (the journal adds the time)."""

    def format(self, record: logging.LogRecord) -> str:
        level = f"{record.levelname.lower()}: " if record.levelno >= logging.WARNING else ""
        return f"transitiond-mqtt: {level}{record.getMessage()}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Format())
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    if paho is None:
        log.error("paho-mqtt is missing: pip install 'transitiond-client[mqtt]'")
        return 69
    options = parse_options(argv)
    try:
        return asyncio.run(Bridge(options).run())
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
