"""transitiond-mqtt against a real daemon and a real broker (Debian's
Mosquitto on a free loopback port): the topics and Home Assistant's
discovery while a replay is served, commands from the broker, the last
will, both sides restarting, and a broker that wants a password."""

import asyncio
import json
import shutil
import signal
import subprocess

import pytest

import transitiond_client as tc
from daemon_process import RECORDING, Daemon
from daemon_process import ROOT as ROOT_DIR
from mqtt_process import Bridge, Mosquitto, Watcher, bridge_script, eventually
from transitiond_client.mqtt import _command_for, object_id, parse_options, topic_part

#: Every wait is bounded by this (seconds).
WAIT = 15
#: A replay that makes no event on the config: a daemon that answers.
QUIET = "Recordings/swipe-up-3-fingers.events"

CONFIG = """
[[transition]]
name = "back"
gesture = "edge-pan"
edge = "left"

[identity]
kiosk = "lobby-3"
site = "berlin-hbf"
"""
ROOT = "transitiond/lobby-3"


def kiosk_config(workdir) -> str:
    path = workdir / "kiosk.toml"
    path.write_text(CONFIG)
    return str(path)


@pytest.fixture
def brokers(workdir):
    started = []

    def start(**kwargs) -> Mosquitto:
        broker = Mosquitto(workdir, **kwargs).start()
        started.append(broker)
        return broker
    yield start
    for broker in started:
        broker.stop()


@pytest.fixture
def bridges():
    started = []

    def start(*arguments: str, **kwargs) -> Bridge:
        bridge = Bridge(list(arguments), **kwargs)
        started.append(bridge)
        return bridge
    yield start
    for bridge in started:
        bridge.stop()


@pytest.fixture
def watchers():
    started = []

    def start(port: int, **kwargs) -> Watcher:
        watcher = Watcher(port, **kwargs)
        started.append(watcher)
        return watcher
    yield start
    for watcher in started:
        watcher.close()


def bridge_arguments(daemon, broker, *more: str):
    # A short state interval: the tests wait for what a poll brings.
    return ["--socket", daemon.socket, "--broker", "127.0.0.1", "--port", str(broker.port),
            "--state-interval", "0.5", *more]


def test_names_and_payloads():
    assert topic_part("kiosk+1/#a b") == "kiosk_1__a_b"
    assert topic_part("lobby-3.hall") == "lobby-3.hall"
    assert object_id("lobby-3.hall") == "lobby-3_hall"
    assert _command_for("back", "enable", "off") == {"cmd": "enable", "transition": "back", "enabled": False}
    assert _command_for("back", "enable", "ON")["enabled"] is True
    assert _command_for("back", "run", "finish") == {"cmd": "run", "transition": "back", "to": "finish"}
    assert _command_for("back", "run", "PRESS")["to"] == "finish"
    assert _command_for("back", "run", "cancel")["to"] == "cancel"
    assert _command_for("c", "run", "0.5") == {"cmd": "run", "transition": "c", "to": 0.5}
    assert _command_for("c", "run", "#2") == {"cmd": "run", "transition": "c", "index": 2}
    for bad in (("enable", "maybe"), ("run", "sideways"), ("run", "nan"), ("run", "")):
        with pytest.raises(ValueError):
            _command_for("back", *bad)
    # What would only fail later, or never say why, is refused at the start.
    for bad in (["--min-interval", "nan"], ["--min-interval", "inf"], ["--keepalive", "-1"],
                ["--tls-ca", "ca.pem"], ["--tls", "--tls-ca", "/nonexistent/ca.pem"]):
        with pytest.raises(SystemExit):
            parse_options(bad, {})
    with pytest.raises(SystemExit):
        parse_options([], {"MQTT_PASSWORD": "secret"})


def test_discovery_and_state_while_a_replay_is_served(launcher, workdir, brokers, bridges, watchers):
    broker = brokers()
    watcher = watchers(broker.port)
    # Real time, so that the gesture has phases to see; the replay waits for the bridge.
    daemon = launcher.replay(RECORDING, hold=True, wait_clients=1, pace="1", config=kiosk_config(workdir))
    bridge = bridges(*bridge_arguments(daemon, broker, "--protocol", "5"))
    watcher.wait(f"{ROOT}/availability", "online")
    watcher.wait(f"{ROOT}/back/decision", "finish", WAIT)
    watcher.wait(f"{ROOT}/back/state", "idle", WAIT)
    states = watcher.payloads(f"{ROOT}/back/state")
    assert "interacting" in states and "animating" in states, states
    # Rate-limited: a few messages for a gesture of dozens of frames.
    assert len(states) <= 8, states
    touched = watcher.wait(f"{ROOT}/back/last_touch")
    assert touched.endswith("+00:00") and touched[:2] == "20", touched
    assert watcher.latest(f"{ROOT}/back/enabled") == "ON"
    info = json.loads(watcher.wait(f"{ROOT}/info"))
    assert info["identity"]["kiosk"] == "lobby-3" and info["identity"]["site"] == "berlin-hbf"
    # Everything a dashboard reads is retained: a late subscriber gets it.
    late = watchers(broker.port)
    for topic, payload in ((f"{ROOT}/availability", "online"), (f"{ROOT}/back/state", "idle"),
                           (f"{ROOT}/back/decision", "finish"), (f"{ROOT}/back/enabled", "ON")):
        late.wait(topic, payload)
    retained = {topic for topic, _, was_retained in late.all() if was_retained}
    assert f"{ROOT}/back/last_touch" in retained

    node = "transitiond_lobby-3"
    switch = json.loads(watcher.wait(f"homeassistant/switch/{node}/back_enabled/config"))
    assert switch["command_topic"] == f"{ROOT}/back/enable/set"
    assert switch["state_topic"] == f"{ROOT}/back/enabled"
    assert switch["availability_topic"] == f"{ROOT}/availability"
    assert switch["unique_id"] == f"{node}_back_enabled"
    device = switch["device"]
    assert device["identifiers"] == [node] and device["name"] == "lobby-3"
    assert device["manufacturer"] == "transitiond" and device["sw_version"] == info["version"] != ""
    for key in ("back_state", "back_decision", "back_last_touch"):
        sensor = json.loads(watcher.wait(f"homeassistant/sensor/{node}/{key}/config"))
        assert sensor["device"] == device and sensor["unique_id"] == f"{node}_{key}"
    assert json.loads(watcher.wait(f"homeassistant/sensor/{node}/back_last_touch/config"))["device_class"] == "timestamp"
    online = json.loads(watcher.wait(f"homeassistant/binary_sensor/{node}/availability/config"))
    assert online["state_topic"] == f"{ROOT}/availability" and online["payload_off"] == "offline"
    assert "availability_topic" not in online
    # A replay has no input and no panels: no entities for them.
    assert not any("/input/" in t or "panel_health" in t for t, _, _ in watcher.all())
    assert "error" not in bridge.log.lower(), bridge.log


async def test_enable_and_run_from_the_broker(launcher, workdir, brokers, bridges, watchers):
    broker = brokers()
    watcher = watchers(broker.port)
    daemon = launcher.replay(QUIET, hold=True, config=kiosk_config(workdir))
    bridge = bridges(*bridge_arguments(daemon, broker))
    watcher.wait(f"{ROOT}/back/enabled", "ON")

    async with await tc.connect(daemon.socket) as client:
        watcher.publish(f"{ROOT}/back/enable/set", "OFF")
        await asyncio.to_thread(watcher.wait, f"{ROOT}/back/enabled", "OFF")
        back = next(t for t in (await client.state())["transitions"] if t["name"] == "back")
        assert back.get("enabled") is False

        watcher.publish(f"{ROOT}/back/enable/set", "ON")
        await asyncio.to_thread(watcher.wait, f"{ROOT}/back/enabled", "ON")
        back = next(t for t in (await client.state())["transitions"] if t["name"] == "back")
        assert back.get("enabled", True) is True

        watcher.publish(f"{ROOT}/back/run/set", "finish")
        ended = (await client.wait_for(lambda e: e.type == "ended", WAIT))[-1]
        assert ended["decision"] == "finish" and ended["reason"] == "command"
        await client.wait_for(lambda e: e.type == "finished", WAIT)

        # A command left retained on the broker (`mosquitto_pub -r`) is a
        # command to the bridge connected when it comes, never again: a
        # bridge that connects later (or reconnects) does not carry it out.
        watcher.publish(f"{ROOT}/back/enable/set", "OFF", retain=True)
        await asyncio.to_thread(watcher.wait, f"{ROOT}/back/enabled", "OFF")
        watcher.publish(f"{ROOT}/back/enable/set", "ON")
        await asyncio.to_thread(watcher.wait, f"{ROOT}/back/enabled", "ON")
        later = bridges(*bridge_arguments(daemon, broker))
        await asyncio.to_thread(later.wait_log, "a retained command, not carried out")
        back = next(t for t in (await client.state())["transitions"] if t["name"] == "back")
        assert back.get("enabled", True) is True
        later.stop()
        watcher.publish(f"{ROOT}/back/enable/set", "", retain=True)     # the broker forgets it

    # A payload the bridge cannot read, and a transition the daemon lacks:
    # an error message and a log line, and the bridge carries on.
    watcher.publish(f"{ROOT}/back/run/set", "sideways")
    watcher.publish(f"{ROOT}/nowhere/enable/set", "OFF")
    eventually(lambda: len(watcher.payloads(f"{ROOT}/error")) >= 2, WAIT, "two error messages")
    errors = [json.loads(p) for p in watcher.payloads(f"{ROOT}/error")]
    assert {e["code"] for e in errors} == {"bad-payload", "unknown-transition"}, errors
    bridge.wait_log("nowhere/enable refused: unknown-transition")
    assert bridge.process.poll() is None


def test_sigkill_makes_the_broker_publish_the_last_will_and_sigterm_says_offline(
        launcher, workdir, brokers, bridges, watchers):
    broker = brokers()
    watcher = watchers(broker.port)
    daemon = launcher.replay(QUIET, hold=True, config=kiosk_config(workdir))
    bridge = bridges(*bridge_arguments(daemon, broker, "--keepalive", "5"))
    watcher.wait(f"{ROOT}/availability", "online")
    bridge.signal(signal.SIGKILL)
    bridge.wait()
    watcher.wait(f"{ROOT}/availability", "offline")
    assert watcher.all()[-1][0] == f"{ROOT}/availability"

    # A new bridge is online again (the stale will does not win), and
    # SIGTERM publishes offline itself and exits 0.
    again = bridges(*bridge_arguments(daemon, broker))
    watcher.wait(f"{ROOT}/availability", "online")
    again.signal(signal.SIGTERM)
    assert again.wait() == 0, again.log
    watcher.wait(f"{ROOT}/availability", "offline")
    assert "stopped" in again.log


def test_restarting_the_broker_then_the_daemon(launcher, workdir, brokers, bridges, watchers):
    config = kiosk_config(workdir)
    socket_path = launcher.socket_path()
    broker = Mosquitto(workdir)
    # Neither is there at first: the bridge waits for both.
    bridge = bridges("--socket", socket_path, "--broker", "127.0.0.1", "--port", str(broker.port),
                     "--state-interval", "0.5")
    bridge.wait_log("cannot reach transitiond")
    daemon = launcher.replay(QUIET, hold=True, config=config, socket_path=socket_path)
    bridge.wait_log("connected to transitiond")
    bridge.wait_log("cannot reach the broker")
    first = brokers(port=broker.port)
    watcher = watchers(broker.port)
    watcher.wait(f"{ROOT}/availability", "online")

    async def disable() -> None:
        async with await tc.connect(socket_path) as client:
            await client.enable("back", False)
    asyncio.run(disable())
    watcher.wait(f"{ROOT}/back/enabled", "OFF")     # from the next state poll
    watcher.close()

    # The broker restarts without persistence: every retained message is
    # gone, and the bridge must publish them again.
    first.stop()
    bridge.wait_log("lost the broker")
    restarted = brokers(port=broker.port)
    bridge.wait_log("connected to the broker", count=2)
    late = watchers(restarted.port)
    late.wait(f"{ROOT}/availability", "online")
    late.wait(f"{ROOT}/back/enabled", "OFF")
    late.wait(f"{ROOT}/back/state", "idle")
    late.wait("homeassistant/switch/transitiond_lobby-3/back_enabled/config")

    # The daemon restarts: offline while it is away, then its new state
    # (enabled again: a restart starts from the config).
    daemon.stop()
    late.wait(f"{ROOT}/availability", "offline")
    launcher.replay(QUIET, hold=True, config=config, socket_path=socket_path)
    late.wait(f"{ROOT}/availability", "online")
    late.wait(f"{ROOT}/back/enabled", "ON")
    final = watchers(restarted.port)
    for topic, payload in ((f"{ROOT}/availability", "online"), (f"{ROOT}/back/enabled", "ON"),
                           (f"{ROOT}/back/state", "idle")):
        final.wait(topic, payload)
    assert bridge.process.poll() is None, bridge.log
    assert bridge.log.count("connected to transitiond") == 2, bridge.log


def test_the_live_daemons_input(launcher, workdir, brokers, bridges, watchers):
    """``transitiond run`` with no touchscreen: its input is waiting, and the
    input sensor is discovered (a replay has none)."""
    broker = brokers()
    watcher = watchers(broker.port)
    path = launcher.socket_path()
    # A device that is never there, so that a machine with a touchscreen waits too.
    missing = str(workdir / "no-such-touchscreen")
    daemon = Daemon(["run", "--socket", path, "--config", kiosk_config(workdir), "--device", missing],
                    socket_path=path)
    launcher.started.append(daemon)
    daemon.wait_listening()
    bridges(*bridge_arguments(daemon, broker))
    watcher.wait(f"{ROOT}/input", "waiting")
    assert "waiting_for" in json.loads(watcher.wait(f"{ROOT}/input/attributes"))
    sensor = json.loads(watcher.wait("homeassistant/sensor/transitiond_lobby-3/input/config"))
    assert sensor["state_topic"] == f"{ROOT}/input"
    assert sensor["json_attributes_topic"] == f"{ROOT}/input/attributes"


def test_a_broker_that_wants_a_password(launcher, workdir, brokers, bridges, watchers):
    broker = brokers(users={"kiosk": "s3cret"})
    daemon = launcher.replay(QUIET, hold=True, config=kiosk_config(workdir))
    wrong = workdir / "wrong-password"
    wrong.write_text("guess\n")
    refused = bridges(*bridge_arguments(daemon, broker, "--username", "kiosk", "--password-file", str(wrong)))
    status = refused.wait(WAIT)
    assert status == 78, refused.log
    assert f"the broker 127.0.0.1:{broker.port} refused the connection" in refused.log, refused.log
    assert "not authorized" in refused.log.lower() or "bad user name or password" in refused.log.lower(), refused.log

    # The right password, from the environment as a unit's EnvironmentFile gives it.
    accepted = bridges("--socket", daemon.socket, "--state-interval", "0.5",
                       environment={"MQTT_HOST": "127.0.0.1", "MQTT_PORT": str(broker.port),
                                    "MQTT_USERNAME": "kiosk", "MQTT_PASSWORD": "s3cret"})
    watcher = watchers(broker.port, username="kiosk", password="s3cret")
    watcher.wait(f"{ROOT}/availability", "online")
    assert accepted.process.poll() is None


def test_the_unit_verifies_and_is_hardened(workdir):
    """systemd/transitiond-mqtt.service under systemd's own checkers, naming
    this environment's bridge (the unit names /opt's)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("no systemd-analyze")
    units = ROOT_DIR / "systemd"
    text = (units / "transitiond-mqtt.service").read_text()
    assert "/opt/transitiond-mqtt/bin/transitiond-mqtt" in text
    (workdir / "transitiond-mqtt.service").write_text(
        text.replace("/opt/transitiond-mqtt/bin/transitiond-mqtt", bridge_script()))
    shutil.copy(units / "transitiond.socket", workdir / "transitiond.socket")
    verify = subprocess.run([analyze, "verify", "--man=no", str(workdir / "transitiond-mqtt.service")],
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and verify.stdout + verify.stderr == "", verify.stdout + verify.stderr
    security = subprocess.run([analyze, "security", "--offline=true", "--no-pager",
                               str(workdir / "transitiond-mqtt.service")], capture_output=True, text=True, timeout=60)
    line = next((l for l in security.stdout.splitlines() if "Overall exposure level" in l), "")
    level = float(line.split(":")[-1].split()[0]) if line else 10.0
    assert level <= 1.5, security.stdout
