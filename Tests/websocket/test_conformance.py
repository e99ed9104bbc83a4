"""The daemon's WebSocket transport, checked with a client that is not ours:
Python's ``websockets`` (and, for what a library will not do, a raw
standard-library client, rawws.py). Every daemon is real."""

import asyncio
import json
import re
import shutil
import signal
import subprocess
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

import rawws
from daemon_process import EXAMPLE_CONFIG, RECORDING, event_lines, fast_lines, server_config, wait_until
from rawws import RawWebSocket

QUIET = "Recordings/swipe-up-3-fingers.events"     # no event on the default config
WAIT = 15


def http_get(url):
    """(status, content type, body) of a plain GET."""
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as reply:
            return reply.status, reply.headers.get("Content-Type", ""), reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()


async def receive_json(ws, timeout=WAIT):
    message = await asyncio.wait_for(ws.recv(), timeout)
    assert isinstance(message, str), f"a binary message: {message!r}"
    return json.loads(message)


async def read_until(ws, condition, timeout=WAIT):
    """Messages (parsed) up to and including the first that satisfies ``condition``."""
    seen = []

    async def run():
        while True:
            seen.append(await receive_json(ws))
            if condition(seen[-1]):
                return seen
    return await asyncio.wait_for(run(), timeout)


async def read_to_close(ws, timeout=WAIT):
    """Every text message until the daemon closes; (messages, close code)."""
    messages = []

    async def run():
        try:
            while True:
                messages.append(await ws.recv())
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None
    code = await asyncio.wait_for(run(), timeout)
    return messages, code


def is_type(kind, name=None):
    return lambda m: m.get("type") == kind and (name is None or m.get("transition") == name)


async def unix_lines(path):
    """An asyncio Unix socket client: (reader, writer)."""
    return await asyncio.open_unix_connection(path, limit=1 << 24)


async def unix_read_all(reader, timeout=WAIT):
    data = await asyncio.wait_for(reader.read(), timeout)      # to EOF
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


# MARK: HTTP and the handshake

def test_http_pages_and_the_upgrade(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    status, kind, body = http_get(f"{daemon.http}/")
    assert status == 200 and kind.startswith("text/html") and b"<html" in body.lower()
    status, kind, body = http_get(f"{daemon.http}/transitiond.js")
    assert status == 200 and "javascript" in kind and b"WebSocket" in body
    assert http_get(f"{daemon.http}/healthz")[0] == 200
    assert http_get(f"{daemon.http}/nope")[0] == 404
    # The upgrade, byte by byte: 101 with the right Sec-WebSocket-Accept
    # (checked by RawWebSocket), then a hello in one text frame.
    raw = RawWebSocket(daemon.websocket, "/stream")
    try:
        assert raw.status == 101 and raw.headers["upgrade"].lower() == "websocket"
        assert json.loads(raw.receive_text())["type"] == "hello"
    finally:
        raw.close()


async def test_any_path_upgrades_and_the_first_message_is_hello(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    for path in ("/stream", "/", "/anything/else"):
        async with connect(f"ws://{daemon.websocket}{path}") as ws:
            hello = await receive_json(ws)
            assert hello["type"] == "hello" and hello["protocol"] == 1
            assert [t["name"] for t in hello["transitions"]] == ["back"]


async def test_hello_describes_each_transition(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True, config=EXAMPLE_CONFIG)
    async with connect(daemon.url) as ws:
        hello = await receive_json(ws)
    described = {t["name"]: t for t in hello["transitions"]}
    assert set(described) == {"back", "forward", "overview", "close"}
    assert {k: described["back"][k] for k in ("gesture", "fingers", "edge")} == \
        {"gesture": "edge-pan", "fingers": 1, "edge": "left"}
    assert described["forward"]["edge"] == "right"
    assert (described["overview"]["gesture"], described["overview"]["fingers"], described["overview"]["direction"]) \
        == ("swipe", 3, "up")
    assert (described["close"]["gesture"], described["close"]["fingers"], described["close"]["direction"]) \
        == ("pinch", 2, "in")


# MARK: The stream

async def test_every_message_is_one_json_object_and_wait_clients_counts_a_websocket_client(launcher):
    daemon = launcher.replay(wait_clients=1, websocket=True)       # waited for /healthz: not a client
    async with connect(daemon.url) as ws:
        messages, code = await read_to_close(ws)
    assert all(isinstance(m, str) for m in messages)
    assert not any(m.endswith("\n") or "\n" in m for m in messages), "one line per message, no newline"
    objects = [json.loads(m) for m in messages]
    assert all(isinstance(o, dict) for o in objects)
    hello = objects[0]
    assert hello["type"] == "hello" and hello["active"] == [] and hello.get("seq", 0) == 0, \
        "the replay had not started before the WebSocket client came"
    expected = event_lines(fast_lines(RECORDING))
    assert [m.encode() for m in messages[1:]] == expected
    assert daemon.wait(WAIT) == 0


async def test_the_same_stream_as_the_unix_socket_byte_for_byte(launcher):
    daemon = launcher.replay(wait_clients=2, websocket=True, config=EXAMPLE_CONFIG)
    reader, writer = await unix_lines(daemon.socket)
    async with connect(daemon.url) as ws:
        unix = await unix_read_all(reader)
        messages, _ = await read_to_close(ws)
    writer.close()
    websocket = [m.encode() for m in messages]
    assert json.loads(unix[0])["type"] == json.loads(websocket[0])["type"] == "hello"
    assert websocket[1:] == unix[1:]
    assert unix[1:] == event_lines(fast_lines("--config", EXAMPLE_CONFIG, RECORDING))
    assert len(unix) > 100
    assert daemon.wait(WAIT) == 0


# MARK: Commands

async def test_ping_state_and_bad_json_keep_the_connection(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        await ws.send('{"cmd":"ping","id":7}')
        assert await receive_json(ws) == {"type": "pong", "id": 7}
        await ws.send("{not json")
        error = await receive_json(ws)
        assert error["type"] == "error" and error["code"] == "bad-json"
        await ws.send("[1,2]")
        assert (await receive_json(ws))["code"] == "bad-json"
        await ws.send('{"cmd":"fly"}')
        assert (await receive_json(ws))["code"] == "unknown-command"
        await ws.send('{"cmd":"state","id":"s"}')
        state = await receive_json(ws)
        assert state["type"] == "state" and state["id"] == "s" and state["active"] == []
        await ws.send('{"cmd":"ping"}')
        assert await receive_json(ws) == {"type": "pong"}


async def test_a_binary_message_closes_with_1003(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        await ws.send(b'{"cmd":"ping"}')
        messages, code = await read_to_close(ws)
    assert code == 1003 and not any(json.loads(m).get("type") == "pong" for m in messages)


async def test_a_message_over_64_kib_closes_with_1009(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        await ws.send('{"cmd":"ping","pad":"' + "x" * (70 * 1024) + '"}')
        _, code = await read_to_close(ws)
    assert code == 1009
    # a message just under the limit is read
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        await ws.send('{"cmd":"ping","id":1,"pad":"' + "x" * (60 * 1024) + '"}')
        assert await receive_json(ws) == {"type": "pong", "id": 1}


async def test_mixed_clients_see_each_others_commands(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    reader, writer = await unix_lines(daemon.socket)
    assert json.loads(await reader.readline())["type"] == "hello"

    async def unix_until(condition):
        while True:
            message = json.loads(await asyncio.wait_for(reader.readline(), WAIT))
            if condition(message):
                return message
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        await ws.send('{"cmd":"drive","transition":"back","progress":0.5,"id":1}')
        replies = await read_until(ws, is_type("ok"))
        assert replies[-1] == {"type": "ok", "cmd": "drive", "id": 1}
        began = await unix_until(is_type("began", "back"))
        assert began["progress"] == 0.5
        # a Unix client's command is seen over the WebSocket too
        writer.write(b'{"cmd":"drive","transition":"back","progress":0.625}\n')
        changed = await read_until(ws, is_type("changed", "back"))
        assert changed[-1]["progress"] == 0.625
        await unix_until(is_type("ok"))
        writer.write(b'{"cmd":"release","transition":"back","velocity":0}\n')
        seen = await read_until(ws, is_type("finished", "back"))
        assert [(m["decision"], m["reason"]) for m in seen if m["type"] == "ended"] == [("finish", "released")]
        await unix_until(is_type("finished", "back"))
        # the WebSocket client drives, then goes away mid-transition
        await ws.send('{"cmd":"drive","transition":"back","progress":0.3}')
        await read_until(ws, is_type("began", "back"))
    ended = await unix_until(is_type("ended", "back"))
    assert (ended["decision"], ended["reason"]) == ("cancel", "client-lost")
    await unix_until(is_type("cancelled", "back"))
    writer.close()


def test_state_changing_commands_need_an_allowed_uid(launcher, workdir):
    """The daemon finds a loopback peer's uid: nobody is refused, then allowed by allow_uids."""
    script = workdir / "rawws.py"          # somewhere nobody may read it
    shutil.copy(rawws.__file__, script)
    script.chmod(0o755)
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", str(script)]
    commands = ['{"cmd":"run","transition":"back","to":"finish","id":1}', '{"cmd":"ping","id":2}']
    for server, allowed in (("", False), ("allow_uids = [65534]", True)):
        daemon = launcher.replay(QUIET, hold=True, websocket=True,
                                 config=server_config(workdir, server, base=EXAMPLE_CONFIG))
        result = subprocess.run([*nobody, daemon.websocket, *commands], capture_output=True, timeout=WAIT)
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        assert lines[0]["type"] == "hello"
        reply = next(m for m in lines if m.get("id") == 1)
        if allowed:
            assert reply == {"type": "ok", "cmd": "run", "id": 1}
        else:
            assert reply["type"] == "error" and reply["code"] == "forbidden" and "65534" in reply["message"]
        assert lines[-1] == {"type": "pong", "id": 2}, "reading stays allowed"
        daemon.stop()


# MARK: Origins

async def test_origins(launcher, workdir):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    with pytest.raises(InvalidStatus) as refused:
        async with connect(daemon.url, origin="http://evil.example"):
            pass
    assert refused.value.response.status_code == 403
    for origin in (None, daemon.http):          # no Origin, and the daemon's own
        async with connect(daemon.url, origin=origin) as ws:
            assert (await receive_json(ws))["type"] == "hello"
    daemon.stop()

    kiosk = launcher.replay(QUIET, hold=True, websocket=True,
                            config=server_config(workdir, 'allow_origins = ["http://kiosk.local"]'))
    async with connect(kiosk.url, origin="http://kiosk.local") as ws:
        assert (await receive_json(ws))["type"] == "hello"
    with pytest.raises(InvalidStatus) as refused:
        async with connect(kiosk.url, origin="http://other.local"):
            pass
    assert refused.value.response.status_code == 403
    kiosk.stop()

    anyone = launcher.replay(QUIET, hold=True, websocket=True,
                             config=server_config(workdir, 'allow_origins = ["*"]'))
    async with connect(anyone.url, origin="http://other.local") as ws:
        assert (await receive_json(ws))["type"] == "hello"


# MARK: Back-pressure and shutdown

async def test_a_stalled_client_delays_no_one_and_is_cut_off(launcher, workdir):
    # About 6 MB in 3 s: more than the kernel's TCP buffers hold for a
    # reader that stops (up to 4 MB of send buffer on loopback).
    loops = 1000
    config = server_config(workdir, "backlog_limit = 4096")
    daemon = launcher.replay("Recordings/back-flick-finish.events", wait_clients=2, pace="200",
                             loop=loops, config=config, websocket=True)
    # The stalled client: handshake done, a small receive window, never reads.
    stalled = RawWebSocket(daemon.websocket, receive_buffer=4096)
    try:
        async with connect(daemon.url, max_size=None) as ws:
            messages, _ = await read_to_close(ws, timeout=60)
        objects = [json.loads(m) for m in messages]
        seqs = [o["seq"] for o in objects if "seq" in o and o["type"] != "hello"]
        assert seqs == list(range(1, len(seqs) + 1)), "every event, in order, none coalesced"
        assert sum(o["type"] == "finished" for o in objects) == loops
        assert re.search(r"\(websocket[^)]*\) fell behind by more than 4096 bytes: disconnecting", daemon.stderr), \
            daemon.stderr
        # Cut off: its connection is closed after at most 1 s (docs/protocol.md),
        # so the daemon, its replay over, exits without waiting for it.
        exited = wait_until(lambda: daemon.process.poll() is not None, WAIT)
        assert exited, f"the daemon still runs {WAIT} s after the replay, held by the stalled client"
        assert daemon.process.returncode == 0
        got = b""
        stalled.sock.settimeout(WAIT)
        while chunk := stalled.sock.recv(1 << 16):
            got += chunk
        assert len(got) < sum(len(m) for m in messages)
    finally:
        stalled.sock.close()


async def test_sigterm_sends_the_cancelled_then_closes_with_1001(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        await ws.send('{"cmd":"drive","transition":"back","progress":0.3}')
        await read_until(ws, is_type("began", "back"))
        daemon.signal(signal.SIGTERM)
        messages, code = await read_to_close(ws)
    objects = [json.loads(m) for m in messages]
    tail = [(o["type"], o.get("reason")) for o in objects if o["type"] not in ("ok", "changed")]
    assert tail == [("ended", "shutdown"), ("cancelled", None)]
    assert objects[-1]["type"] == "cancelled" and objects[-1]["progress"] == 0
    assert code == 1001
    assert daemon.wait(WAIT) == 0


# MARK: Hostile clients (each found by a review, each once a bug)

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def test_a_ping_flood_from_a_client_that_never_reads_costs_no_memory(launcher):
    """Pongs are written one at a time: 100 MB of pings from a client that
    reads nothing leave the daemon's memory where it was, and another
    client's ping is still answered at once."""
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    before = rss_kib(daemon.process.pid)
    flood = RawWebSocket(daemon.websocket, receive_buffer=4096, timeout=30)
    ping = rawws.masked_frame(0x9, b"x" * 125)
    chunk = ping * 1000
    sent = 0
    while sent < 100_000_000:
        flood.sock.sendall(chunk)
        sent += len(chunk)
    other = RawWebSocket(daemon.websocket)
    other.receive_text()                                    # hello
    other.send_text('{"cmd":"ping"}')
    assert json.loads(other.receive_text()) == {"type": "pong"}
    grown = rss_kib(daemon.process.pid) - before
    assert grown < 20_000, f"RSS grew by {grown} KiB under a ping flood"
    flood.sock.close()
    other.close()


async def test_a_name_pointed_at_this_machine_is_not_the_pages_own_origin(launcher):
    """DNS rebinding: a page of another site whose name now resolves here
    sends its own name as both Host and Origin. Only an address (or
    localhost) with the listener's port is the page's own origin."""
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    port = daemon.websocket.rsplit(":", 1)[1]
    for host in (f"evil.example:{port}", f"127.0.0.1:{int(port) + 1}"):
        with pytest.raises(rawws.HandshakeRefused) as refused:
            RawWebSocket(daemon.websocket, origin=f"http://{host}", host_header=host)
        assert refused.value.status == 403, host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        accepted = RawWebSocket(daemon.websocket, origin=f"http://{host}", host_header=host)
        assert json.loads(accepted.receive_text())["type"] == "hello"
        accepted.close()


def test_idle_http_connections_lock_no_one_out(launcher, workdir):
    """Connections that never finish their request hold no client slot, and
    the oldest makes room once 1,024 wait: a WebSocket client still gets in."""
    import resource
    import socket
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
    daemon = launcher.replay(QUIET, hold=True, websocket=True,
                             config=server_config(workdir, "max_clients = 3"))
    host, port = daemon.websocket.rsplit(":", 1)
    idle = []
    try:
        for _ in range(1100):
            s = socket.create_connection((host, int(port)), timeout=WAIT)
            s.sendall(b"GET / HTTP/1.1\r\n")
            idle.append(s)
        client = RawWebSocket(daemon.websocket)
        assert json.loads(client.receive_text())["type"] == "hello"
        client.close()
    finally:
        for s in idle:
            s.close()


def test_protocol_violations_close_with_1002(launcher):
    """An unmasked frame and a reserved bit are protocol errors (RFC 6455
    5.1, 5.2); a close code that may not be sent back is answered 1002."""
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    unmasked = RawWebSocket(daemon.websocket)
    unmasked.receive_text()
    unmasked.sock.sendall(bytes([0x81, 0x02]) + b"{}")
    assert unmasked.receive_frame() == (0x8, b"\x03\xea")
    reserved = RawWebSocket(daemon.websocket)
    reserved.receive_text()
    reserved.sock.sendall(rawws.masked_frame(0x1, b"{}", first_byte=0xC1))
    assert reserved.receive_frame() == (0x8, b"\x03\xea")
    code_1005 = RawWebSocket(daemon.websocket)
    code_1005.receive_text()
    code_1005.send_frame(0x8, b"\x03\xed")
    assert code_1005.receive_frame() == (0x8, b"\x03\xea")


async def test_a_shutdown_closes_a_websocket_client_at_once(launcher):
    """With nothing left to write, the 1001 close goes out at once: the
    daemon does not wait out its 1 s bound for the client."""
    import time
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        started = time.monotonic()
        daemon.signal(signal.SIGTERM)
        _, code = await read_to_close(ws)
        took = time.monotonic() - started
    assert code == 1001
    assert took < 0.5, f"closed after {took:.2f} s"
    assert daemon.wait(WAIT) == 0


async def test_one_message_is_one_command_even_with_line_breaks(launcher):
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    async with connect(daemon.url) as ws:
        await receive_json(ws)
        await ws.send('{"cmd":\n"ping",\r\n"id":7}')
        assert await receive_json(ws) == {"type": "pong", "id": 7}


def test_fragments_make_one_command_and_bad_utf8_closes_with_1007(launcher):
    """RFC 6455 5.4 and 8.1, on the daemon itself (Autobahn runs the same
    code with an echo): a text message in fragments, with a ping between
    them, is one command; text that is not UTF-8, whole or split across
    fragments, and a close reason that is not UTF-8 fail the connection
    with 1007."""
    daemon = launcher.replay(QUIET, hold=True, websocket=True)
    fragmented = RawWebSocket(daemon.websocket)
    fragmented.receive_text()
    fragmented.sock.sendall(rawws.masked_frame(0x1, b'{"cmd":', first_byte=0x01)
                            + rawws.masked_frame(0x9, b"between")
                            + rawws.masked_frame(0x0, b'"ping","id":', first_byte=0x00)
                            + rawws.masked_frame(0x0, b"8}", first_byte=0x80))
    assert fragmented.receive_frame() == (0xA, b"between")
    assert json.loads(fragmented.receive_text()) == {"type": "pong", "id": 8}
    for frames in ([rawws.masked_frame(0x1, b'{"cmd":"\xff"}')],
                   # U+00E9 split between two fragments is fine; a lone lead byte at the end is not.
                   [rawws.masked_frame(0x1, b'{"cmd":"\xc3', first_byte=0x01),
                    rawws.masked_frame(0x0, b'\xa9\xc3', first_byte=0x80)],
                   [rawws.masked_frame(0x8, b"\x03\xe8\xff\xfe")]):
        client = RawWebSocket(daemon.websocket)
        client.receive_text()
        client.sock.sendall(b"".join(frames))
        assert client.receive_frame() == (0x8, b"\x03\xef")
