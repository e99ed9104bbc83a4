"""The client against a real daemon, over the Unix socket and the WebSocket
(``transport``): the stream, the mirror, commands and replies, the
subscription filter, connection loss, reconnection and shutdown."""

import asyncio
import signal
import time

import pytest

import transitiond_client as tc
from daemon_process import RECORDING, event_lines, fast_lines, where

#: A replay that makes no event on the default config (three fingers, no
#: edge): a daemon that only answers commands.
QUIET = "Recordings/swipe-up-3-fingers.events"
#: Every wait on the daemon is bounded by this (seconds).
WAIT = 15

TWO_EDGES = """
[[transition]]
name = "back"
gesture = "edge-pan"
edge = "left"

[[transition]]
name = "forward"
gesture = "edge-pan"
edge = "right"
"""


def two_edges(workdir):
    path = workdir / "two-edges.toml"
    path.write_text(TWO_EDGES)
    return str(path)


def of(kind, name=None):
    return lambda e: e.type == kind and (name is None or e.transition == name)


async def test_the_stream_is_the_fast_replay_byte_for_byte(launcher, transport):
    daemon = launcher.replay(wait_clients=1, websocket=transport == "websocket")
    client = await tc.connect(**where(daemon, transport))
    assert client.hello["type"] == "hello" and client.hello["protocol"] == 1
    assert [t["name"] for t in client.hello["transitions"]] == ["back"]
    messages = await asyncio.wait_for(_all(client), WAIT)
    assert messages[0] is client.hello
    assert [m.raw for m in messages[1:]] == event_lines(fast_lines(RECORDING))
    assert not any(m.synthetic for m in messages), "nothing was in flight when the replay ended"
    back = client.transitions["back"]
    assert (back.phase, back.progress, back.finished, back.cancelled) == ("idle", 1.0, 1, 0)
    assert back.gesture == "edge-pan" and back.fingers == 1
    assert back.values == messages[-1]["values"] and back.decision == "finish" and back.reason == "released"
    assert client.mirror.last_seq == messages[-1]["seq"]
    assert daemon.wait(WAIT) == 0


async def _all(client):
    return [m async for m in client]


async def test_commands_and_replies(launcher, transport):
    daemon = launcher.replay(QUIET, hold=True, websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as client:
        pong = await client.ping()
        assert pong["type"] == "pong" and str(pong["id"]).startswith("py-")
        assert (await client.command({"cmd": "ping", "id": 7}))["id"] == 7
        assert (await client.command({"cmd": "ping", "id": "mine"}))["id"] == "mine"
        state = await client.state()
        assert state["type"] == "state" and [t["name"] for t in state["transitions"]] == ["back"]
        assert state["active"] == []

        # drive from 0: began, the resting values are seen
        assert (await client.drive("back", 0))["type"] == "ok"
        began = (await client.wait_for(of("began", "back"), WAIT))[-1]
        assert began["progress"] == 0 and began["values"] == {"dim": 1}
        await client.drive("back", 0.3)
        changed = (await client.wait_for(of("changed", "back"), WAIT))[-1]
        assert changed["progress"] == 0.3 and changed["values"] == {"dim": 0.4}
        back = client.transitions["back"]
        assert (back.phase, back.progress, back.values, back.resting_values) == \
            ("interacting", 0.3, {"dim": 0.4}, {"dim": 1})

        # release slowly below the threshold: cancel, animated back to 0
        await client.release("back", 0)
        seen = await client.wait_for(of("cancelled", "back"), WAIT)
        ended = [e for e in seen if e.type == "ended"]
        assert [(e["decision"], e["reason"]) for e in ended] == [("cancel", "released")]
        assert all(e["target"] == 0 for e in seen if e.type == "animating")
        assert not any(e.type in tc.REPLY_TYPES for e in seen), "awaited replies are not repeated in the stream"
        assert (back.phase, back.progress, back.cancelled, back.decision) == ("idle", 0, 1, "cancel")

        # run: a non-interactive transition
        await client.run("back", "finish")
        seen = await client.wait_for(of("finished", "back"), WAIT)
        assert [e.type for e in seen][:2] == ["began", "ended"]
        assert (seen[1]["decision"], seen[1]["reason"]) == ("finish", "command")
        assert (back.phase, back.finished) == ("idle", 1)

        # enable: the UI turns a gesture off; state lists it as disabled
        assert (await client.enable("back", False))["cmd"] == "enable"
        assert (await client.state())["transitions"][0].get("enabled") is False
        await client.enable("back", True)
        assert "enabled" not in (await client.state())["transitions"][0]

        # exclude: the UI's exclusion regions, shown by state; over the cap refused; [] clears
        assert "exclusions" not in await client.state()
        assert "filter" not in await client.state(), "a replay runs no filter"
        assert (await client.exclude([[0, 0.6, 0.3, 1]]))["cmd"] == "exclude"
        assert (await client.state())["exclusions"] == [[0, 0.6, 0.3, 1]]
        with pytest.raises(tc.CommandError) as refused:
            await client.exclude([[0, 0, 0.04, 0.9]])
        assert refused.value.code == "bad-field" and "max_edge_exclusion (0.5)" in refused.value.reply["message"]
        assert (await client.state())["exclusions"] == [[0, 0.6, 0.3, 1]], "refused whole: nothing changed"
        await client.exclude([])
        assert "exclusions" not in await client.state()

        # filter_regions: accepted (a replay has no filter to change), a bad name refused
        assert (await client.filter_regions([{"x": [0, 0.5], "y": [0, 1], "block": []}]))["cmd"] == "filter_regions"
        with pytest.raises(tc.CommandError) as refused:
            await client.filter_regions([{"x": [0, 1], "y": [0, 1], "block": ["circle"]}])
        assert refused.value.code == "bad-field" and "unknown gesture 'circle'" in refused.value.reply["message"]
        assert (await client.filter_regions(None))["cmd"] == "filter_regions"

        # refusals raise CommandError, and the connection stays
        with pytest.raises(tc.CommandError) as refused:
            await client.cancel("back")
        assert refused.value.code == "not-active" and refused.value.reply["type"] == "error"
        with pytest.raises(tc.CommandError) as refused:
            await client.drive("nope", 0.5)
        assert refused.value.code == "unknown-transition"
        with pytest.raises(tc.CommandError) as refused:
            await client.drive("back", 1.5)
        assert refused.value.code == "bad-field"
        with pytest.raises(tc.CommandError) as refused:
            await client.command({"cmd": "fly", "id": 9})
        assert refused.value.code == "unknown-command" and refused.value.reply["id"] == 9
        assert (await client.ping())["type"] == "pong"


async def test_a_late_client_starts_from_the_snapshot(launcher, transport):
    daemon = launcher.replay(QUIET, hold=True, websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as driver:
        await driver.drive("back", 0.4)
        await driver.wait_for(of("began", "back"), WAIT)
        async with await tc.connect(**where(daemon, transport)) as late:
            assert [a["transition"] for a in late.hello["active"]] == ["back"]
            back = late.transitions["back"]
            assert (back.phase, back.progress, back.values) == ("interacting", 0.4, {"dim": 0.2})
            await driver.release("back", 5)          # a flick: finishes
            seen = await late.wait_for(of("finished", "back"), WAIT)
            assert seen[0] is late.hello
            kinds = [e.type for e in seen[1:]]
            assert kinds[0] == "ended" and kinds[-1] == "finished" and set(kinds[1:-1]) == {"animating"}
            assert seen[1]["decision"] == "finish" and seen[1]["velocity"] == 5
            seqs = [e["seq"] for e in seen[1:]]
            assert seqs == sorted(seqs) and seqs[0] > late.hello["seq"]
            assert (back.phase, back.progress, back.finished, back.target) == ("idle", 1, 1, None)


async def test_subscribe_filters_and_unknown_names_are_refused(launcher, workdir, transport):
    daemon = launcher.replay(QUIET, hold=True, config=two_edges(workdir), websocket=transport == "websocket")
    with pytest.raises(tc.CommandError) as refused:
        await tc.connect(**where(daemon, transport), transitions=["nope"])
    assert refused.value.code == "unknown-transition"
    async with await tc.connect(**where(daemon, transport)) as driver, \
            await tc.connect(**where(daemon, transport), transitions=["forward"]) as watcher:
        await driver.run("back", "finish")
        await driver.wait_for(of("finished", "back"), WAIT)
        await driver.run("forward", "cancel")
        seen = await watcher.wait_for(of("cancelled", "forward"), WAIT)
        assert {e.transition for e in seen if e.is_transition_event} == {"forward"}
        assert watcher.transitions["back"].finished == 0 and watcher.transitions["forward"].cancelled == 1
        # back to everything
        await watcher.subscribe([])
        await driver.run("back", "cancel")
        seen = await watcher.wait_for(of("cancelled", "back"), WAIT)
        assert seen[0].type == "began" and seen[0].transition == "back"


async def test_a_drop_mid_transition_yields_a_synthetic_cancelled(launcher, transport):
    daemon = launcher.replay(QUIET, hold=True, websocket=transport == "websocket")
    lost = []
    client = await tc.connect(**where(daemon, transport), on_disconnect=lost.append)
    await client.drive("back", 0)
    await client.drive("back", 0.3)
    changed = (await client.wait_for(of("changed", "back"), WAIT))[-1]
    daemon.signal(signal.SIGKILL)               # no goodbye from the daemon
    rest = await asyncio.wait_for(_all(client), WAIT)
    assert len(rest) == 1, rest
    cancel = rest[0]
    assert cancel == {"type": "cancelled", "transition": "back", "seq": changed["seq"] + 1,
                      "time": changed["time"], "progress": 0, "velocity": 0, "values": {"dim": 1},
                      "synthetic": True}
    assert cancel.synthetic and cancel.raw == tc.encode(dict(cancel))
    assert lost == [client] and not client.connected
    back = client.transitions["back"]
    assert (back.phase, back.progress, back.cancelled) == ("idle", 0, 1)
    with pytest.raises(ConnectionError):
        await client.ping()


async def test_reconnects_after_a_restart_and_subscribes_again(launcher, workdir, transport):
    config = two_edges(workdir)
    websocket = transport == "websocket"
    first = launcher.replay(QUIET, hold=True, config=config, websocket=websocket)
    client = await tc.connect(**where(first, transport), transitions=["forward"], reconnect=True, retry_seconds=WAIT)
    async with await tc.connect(**where(first, transport)) as driver:
        await driver.drive("forward", 0.5)
        await client.wait_for(of("began", "forward"), WAIT)
    # the driver left: the daemon cancels its transition (client-lost)
    seen = await client.wait_for(of("cancelled", "forward"), WAIT)
    assert [e["reason"] for e in seen if e.type == "ended"] == ["client-lost"]
    async with await tc.connect(**where(first, transport)) as driver:
        await driver.drive("forward", 0.6)
        await client.wait_for(of("began", "forward"), WAIT)
        first.signal(signal.SIGKILL)
        synthetic = await client.wait_for(lambda e: e.synthetic, WAIT)
        assert synthetic[-1].transition == "forward" and synthetic[-1]["progress"] == 0
    assert first.wait(WAIT) == -signal.SIGKILL
    second = launcher.replay(QUIET, hold=True, config=config, socket_path=first.socket,
                             websocket=first.websocket if websocket else False)
    hello = (await client.wait_for(of("hello"), WAIT))[-1]
    assert hello is client.hello and client.reconnections == 1 and client.connected
    assert client.transitions["forward"].phase == "idle"
    async with await tc.connect(**where(second, transport)) as driver:
        assert (await client.ping())["type"] == "pong"
        await driver.run("back", "finish")
        await driver.wait_for(of("finished", "back"), WAIT)
        await driver.run("forward", "finish")
        seen = await client.wait_for(of("finished", "forward"), WAIT)
        assert {e.transition for e in seen if e.is_transition_event} == {"forward"}, \
            "the subscription was sent again on the new connection"
    await client.close()
    assert [e async for e in client] == []


async def test_gives_up_when_no_daemon_comes(workdir):
    absent = str(workdir / "absent.sock")
    with pytest.raises(tc.Unavailable):
        await tc.connect(absent)
    started = time.monotonic()
    with pytest.raises(tc.Unavailable):
        await tc.connect(absent, reconnect=True, retry_seconds=0.5)
    assert 0.5 <= time.monotonic() - started < 5


async def test_after_a_drop_iteration_ends_with_unavailable_when_retries_run_out(launcher, transport):
    daemon = launcher.replay(QUIET, hold=True, websocket=transport == "websocket")
    client = await tc.connect(**where(daemon, transport), reconnect=True, retry_seconds=0.3)
    daemon.signal(signal.SIGKILL)
    with pytest.raises(tc.Unavailable):
        await asyncio.wait_for(_all(client), WAIT)
    with pytest.raises(tc.Unavailable):
        await client.receive(WAIT)              # and stays ended


async def test_shutdown_ends_what_is_in_flight_before_closing(launcher, transport):
    daemon = launcher.replay(QUIET, hold=True, websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as client:
        await client.drive("back", 0.3)
        await client.wait_for(of("began", "back"), WAIT)
        daemon.signal(signal.SIGTERM)
        rest = await asyncio.wait_for(_all(client), WAIT)
        assert [(e.type, e.get("reason")) for e in rest] == [("ended", "shutdown"), ("cancelled", None)]
        assert not any(e.synthetic for e in rest)
        if transport == "websocket":
            assert client.close_code == 1001
    assert daemon.wait(WAIT) == 0
