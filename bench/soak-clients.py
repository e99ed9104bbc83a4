#!/usr/bin/env python3
"""The clients of the soak (bench/soak.sh, bench/README.md "Soak"): one
process runs one group of clients as asyncio connections, each a real socket
to the daemon (Unix socket, or WebSocket with Python's `websockets`).

    soak-clients.py ROLE COUNT SOCKET RESULTS [WS_URL]

ROLE is one of
  keeper        reads everything; checks that `seq` rises by one with no gap
                and that every transition goes began → changed* → ended →
                animating* → finished|cancelled (a began may catch an
                animation); keeps the seq of every phase event (began, ended,
                finished, cancelled) so the soak can compare the keepers
  ws-keeper     the same over WebSocket (WS_URL)
  staller       reads for 5–20 s, then stops reading for 20–120 s (one in
                four: 240 s) and reads on; a connection the daemon cut (its
                backlog rule) is counted and made again; the phase rules are
                checked on each connection (coalescing may drop changed and
                animating lines, never a phase event)
  reconnector   connects, waits for hello, reads 1–4 s and disconnects
                (sometimes right after a ping, sometimes before hello), and
                connects again
  ws-reconnector the same over WebSocket
  commander     subscribes to the command transitions and sends commands one
                at a time (ping, state, run, drive…release/cancel, enable,
                subscribe, and invalid lines), checking every reply; one
                drive in ten ends by hanging up, which the daemon must end
                with cancel (client-lost)

SIGUSR1: stop starting things (commanders release what they drive); the
readers go on. SIGTERM: write the results (JSON) to RESULTS and exit.
"""

import asyncio
import json
import os
import random
import signal
import sys
import time

PHASES = {"began": 1, "ended": 2, "finished": 3, "cancelled": 4}
COALESCIBLE = (b'{"type":"changed"', b'{"type":"animating"')
COMMAND_TRANSITIONS = ["home", "sheet"]


class Tracker:
    """The checks one connection's stream must pass (see the module doc)."""

    def __init__(self, keep_phases=False):
        self.last_seq = None
        self.states = {}
        self.lines = 0
        self.gaps = 0
        self.missing = 0
        self.disorder = 0
        self.violations = []
        self.phases = [] if keep_phases else None
        self.replies = []
        self.error_codes = []
        self.hellos = 0
        self.first_seq = None

    def violation(self, text):
        if len(self.violations) < 20:
            self.violations.append(text)
        else:
            self.violations[-1] = "… and more"

    def hello(self, obj):
        self.hellos += 1
        self.last_seq = obj.get("seq", 0)
        if self.first_seq is None:
            self.first_seq = self.last_seq
        self.states = {}
        for a in obj.get("active", []):
            self.states[a["transition"]] = "interacting" if a.get("phase") == "interacting" else "animating"

    def step_seq(self, seq, filtered):
        last = self.last_seq
        if last is not None:
            if seq <= last:
                self.disorder += 1
                self.violation("seq %d after %d" % (seq, last))
            elif seq != last + 1 and not filtered:
                self.gaps += 1
                self.missing += seq - last - 1
        self.last_seq = seq

    def line(self, line, filtered=False):
        """One complete line (bytes, without the newline)."""
        self.lines += 1
        if line.startswith(COALESCIBLE):
            # The hot path: no JSON parse for changed/animating.
            i = line.find(b'"transition":"', 17) + 14
            name = line[i:line.find(b'"', i)].decode()
            j = line.find(b'"seq":', i) + 6
            seq = int(line[j:line.find(b",", j)])
            self.step_seq(seq, filtered)
            state = self.states.get(name, "idle")
            if line[9] == ord("c"):
                if state != "interacting":
                    self.violation("changed seq %d of %s while %s" % (seq, name, state))
            elif state not in ("ended", "animating"):
                self.violation("animating seq %d of %s while %s" % (seq, name, state))
            else:
                self.states[name] = "animating"
            return None
        try:
            obj = json.loads(line)
        except ValueError:
            self.violation("not JSON: %r" % line[:80])
            return None
        kind = obj.get("type")
        if kind == "hello":
            self.hello(obj)
            return obj
        code = PHASES.get(kind)
        if code is None:
            if kind == "error":
                self.error_codes.append(obj.get("code"))
            return obj  # a reply
        seq, name = obj["seq"], obj["transition"]
        self.step_seq(seq, filtered)
        state = self.states.get(name, "idle")
        if kind == "began":
            if state == "interacting":
                self.violation("began seq %d of %s while interacting" % (seq, name))
            self.states[name] = "interacting"
        elif kind == "ended":
            if state != "interacting":
                self.violation("ended seq %d of %s while %s" % (seq, name, state))
            self.states[name] = "ended"
        else:
            if state not in ("ended", "animating"):
                self.violation("%s seq %d of %s while %s" % (kind, seq, name, state))
            self.states[name] = "idle"
        if self.phases is not None:
            self.phases.append(seq * 8 + code)
        return obj

    def half_way(self):
        return sorted(n for n, s in self.states.items() if s != "idle")


class LineProtocol(asyncio.Protocol):
    """A Unix socket connection that hands complete lines to `on_line`."""

    def __init__(self, on_line):
        self.on_line = on_line
        self.buffer = b""
        self.transport = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        data = self.buffer + data if self.buffer else data
        lines = data.split(b"\n")
        self.buffer = lines.pop()
        for line in lines:
            self.on_line(line)

    def connection_lost(self, exc):
        if not self.closed.done():
            self.closed.set_result(exc)


class Group:
    """Shared by the clients of one process: the stop flags and results."""

    def __init__(self, role, count, socket_path, ws_url):
        self.role, self.count, self.socket_path, self.ws_url = role, count, socket_path, ws_url
        self.winding_down = False
        self.stopping = asyncio.Event()
        self.results = []


async def open_unix(group, on_line):
    loop = asyncio.get_running_loop()
    _, proto = await loop.create_unix_connection(lambda: LineProtocol(on_line), group.socket_path)
    return proto


# ---------------------------------------------------------------------------
# Keepers


async def keeper(group, index):
    t = Tracker(keep_phases=True)
    result = {"role": group.role, "index": index}
    if group.role == "ws-keeper":
        from websockets.asyncio.client import connect
        async with connect(group.ws_url, max_size=None, ping_interval=None) as ws:
            reader = asyncio.ensure_future(ws_reader(ws, t))
            await group.stopping.wait()
            reader.cancel()
            result["eof"] = reader.done() and not reader.cancelled()
    else:
        proto = await open_unix(group, t.line)
        stop = asyncio.ensure_future(group.stopping.wait())
        await asyncio.wait([stop, proto.closed], return_when=asyncio.FIRST_COMPLETED)
        result["eof"] = proto.closed.done()
        proto.transport.close()
    result.update(lines=t.lines, gaps=t.gaps, missing=t.missing, disorder=t.disorder,
                  violations=t.violations, last_seq=t.last_seq, half_way=t.half_way(),
                  phases=t.phases, hellos=t.hellos, first_seq=t.first_seq)
    group.results.append(result)


async def ws_reader(ws, tracker):
    async for message in ws:
        tracker.line(message.encode() if isinstance(message, str) else message)


# ---------------------------------------------------------------------------
# Stallers


async def staller(group, index):
    rng = random.Random(1000 + index)
    r = {"role": "staller", "index": index, "connections": 0, "stalls": 0, "stalled_seconds": 0.0,
         "cut": 0, "backlog_errors": 0, "missing": 0, "violations": [], "lines": 0}
    while not group.stopping.is_set():
        t = Tracker()
        proto = await open_unix(group, t.line)
        r["connections"] += 1
        closed = proto.closed
        while not closed.done() and not group.stopping.is_set():
            if await wait_or(group, closed, rng.uniform(5, 20)):
                break
            if group.winding_down:
                continue
            stall = 240.0 if index % 4 == 0 else rng.uniform(20, 120)
            proto.transport.pause_reading()
            r["stalls"] += 1
            started = time.monotonic()
            await wait_or(group, None, stall)
            r["stalled_seconds"] += time.monotonic() - started
            if not closed.done():
                proto.transport.resume_reading()
            await asyncio.sleep(0.5)  # take in what waited
        if closed.done():
            # The daemon cut us (its backlog rule): the stream ends, perhaps
            # after a final error line; nothing else may close it.
            r["cut"] += 1
        else:
            proto.transport.close()
        r["backlog_errors"] += t.error_codes.count("backlog")
        r["missing"] += t.missing
        r["lines"] += t.lines
        r["violations"] += t.violations[:5]
        if closed.done() and not group.stopping.is_set():
            await asyncio.sleep(1)
    group.results.append(r)


async def wait_or(group, future, seconds):
    """Sleeps `seconds`, or less if `future` completes or the group stops;
    True when `future` completed."""
    waits = [asyncio.ensure_future(group.stopping.wait())]
    if future is not None:
        waits.append(future)
    done, _ = await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    waits[0].cancel()
    return future is not None and future.done()


# ---------------------------------------------------------------------------
# Reconnectors


async def reconnector(group, index):
    rng = random.Random(2000 + index)
    r = {"role": group.role, "index": index, "connections": 0, "hellos": 0, "hello_timeouts": 0,
         "early_closes": 0, "pings_then_close": 0, "violations": [], "lines": 0, "failed_connects": 0}
    ws = group.role == "ws-reconnector"
    while not group.stopping.is_set():
        try:
            if ws:
                await ws_cycle(group, rng, r)
            else:
                await unix_cycle(group, rng, r)
        except (OSError, asyncio.TimeoutError) as e:
            r["failed_connects"] += 1
            r["violations"].append("connect: %s" % e)
            await asyncio.sleep(1)
    group.results.append(r)


async def unix_cycle(group, rng, r):
    t = Tracker()
    got_hello = asyncio.get_running_loop().create_future()

    def on_line(line):
        obj = t.line(line)
        if obj is not None and obj.get("type") == "hello" and not got_hello.done():
            got_hello.set_result(True)

    proto = await open_unix(group, on_line)
    r["connections"] += 1
    if rng.random() < 0.1:
        r["early_closes"] += 1  # hang up before the hello
        proto.transport.close()
        await asyncio.sleep(rng.uniform(0.2, 1))
        return
    try:
        await asyncio.wait_for(asyncio.shield(got_hello), 5)
        r["hellos"] += 1
    except asyncio.TimeoutError:
        r["hello_timeouts"] += 1
    await wait_or(group, proto.closed, rng.uniform(1, 4))
    if rng.random() < 0.2:
        r["pings_then_close"] += 1
        proto.transport.write(b'{"cmd":"ping","id":1}\n')
    proto.transport.close()
    r["lines"] += t.lines
    r["violations"] += t.violations[:5]


async def ws_cycle(group, rng, r):
    from websockets.asyncio.client import connect
    t = Tracker()
    async with connect(group.ws_url, max_size=None, ping_interval=None, open_timeout=5) as ws:
        r["connections"] += 1
        try:
            hello = await asyncio.wait_for(ws.recv(), 5)
            t.line(hello.encode())
            r["hellos"] += 1
        except asyncio.TimeoutError:
            r["hello_timeouts"] += 1
        reader = asyncio.ensure_future(ws_reader(ws, t))
        await wait_or(group, reader, rng.uniform(1, 4))
        reader.cancel()
    r["lines"] += t.lines
    r["violations"] += t.violations[:5]


# ---------------------------------------------------------------------------
# Commanders


def valid(cmd, **fields):
    return dict(cmd=cmd, **fields)


class Commander:
    """One commander connection: sends a command, waits for its reply."""

    def __init__(self, group, index, r):
        self.group, self.index, self.r = group, index, r
        self.replies = asyncio.Queue()
        self.tracker = Tracker()
        self.proto = None
        self.next_id = index * 10_000_000

    def on_line(self, line):
        obj = self.tracker.line(line, filtered=True)
        if obj is not None and obj.get("type") not in ("hello",) and obj.get("type") not in PHASES:
            self.replies.put_nowait(obj)

    async def connect(self):
        self.tracker = Tracker()
        self.replies = asyncio.Queue()
        self.proto = await open_unix(self.group, self.on_line)
        self.r["connections"] += 1
        await self.ask("subscribe", {"cmd": "subscribe", "transitions": COMMAND_TRANSITIONS}, {"ok"})

    def hang_up(self):
        self.r["violations"] += self.tracker.violations[:5]
        self.proto.transport.close()

    async def ask(self, name, command, expected):
        """Sends `command` (a dict gets an id; bytes are sent as they are) and
        checks that the reply is one of `expected` (types, or error codes)."""
        if isinstance(command, dict):
            self.next_id += 1
            command = dict(command, id=self.next_id)
            data = json.dumps(command, separators=(",", ":")).encode() + b"\n"
        else:
            data = command + b"\n"
        tally = self.r["commands"].setdefault(name, {})
        self.r["sent"] += 1
        self.proto.transport.write(data)
        try:
            reply = await asyncio.wait_for(self.replies.get(), 10)
        except asyncio.TimeoutError:
            self.r["unanswered"] += 1
            tally["no reply"] = tally.get("no reply", 0) + 1
            return None
        self.r["answered"] += 1
        kind = reply.get("type")
        outcome = reply.get("code") if kind == "error" else kind
        tally[outcome] = tally.get(outcome, 0) + 1
        if isinstance(command, dict) and reply.get("id") != command["id"]:
            self.r["wrong_replies"] += 1
            self.r["violations"].append("%s: reply id %r, sent %r" % (name, reply.get("id"), command["id"]))
        elif outcome not in expected:
            self.r["wrong_replies"] += 1
            self.r["violations"].append("%s: got %s, expected %s" % (name, outcome, "/".join(sorted(expected))))
        return reply

    async def drive_session(self, rng):
        """drive … then release, cancel, or hang up while driving."""
        p = rng.uniform(0.05, 0.3)
        for _ in range(rng.randint(2, 6)):
            await self.ask("drive", valid("drive", transition="sheet", progress=round(p, 4)), {"ok", "busy"})
            p = min(1.0, p + rng.uniform(0.02, 0.15))
            await asyncio.sleep(rng.uniform(0.01, 0.05))
        ending = rng.random()
        if ending < 0.1:
            self.r["hang_ups_while_driving"] += 1
            self.hang_up()
            await asyncio.sleep(0.2)
            await self.connect()
        elif ending < 0.6:
            await self.ask("release", valid("release", transition="sheet", velocity=round(rng.uniform(-3, 3), 3)),
                           {"ok", "not-active"})
        elif ending < 0.8:
            await self.ask("release", valid("release", transition="sheet"), {"ok", "not-active"})
        else:
            await self.ask("cancel", valid("cancel", transition="sheet"), {"ok", "not-active"})

    async def one(self, rng):
        pick = rng.random()
        if pick < 0.2:
            await self.ask("ping", valid("ping"), {"pong"})
        elif pick < 0.3:
            reply = await self.ask("state", valid("state"), {"state"})
            if reply is not None and not isinstance(reply.get("active"), list):
                self.r["violations"].append("state without active")
        elif pick < 0.45:
            await self.ask("run", valid("run", transition="home", to=rng.choice(["finish", "cancel"])), {"ok", "busy"})
        elif pick < 0.65:
            await self.drive_session(rng)
        elif pick < 0.7:
            await self.ask("enable", valid("enable", transition="home", enabled=True), {"ok"})
        elif pick < 0.73:
            await self.ask("subscribe", valid("subscribe", transitions=COMMAND_TRANSITIONS), {"ok"})
        else:
            await self.invalid(rng)

    async def invalid(self, rng):
        name, line, code = rng.choice([
            ("invalid: not JSON", b"this is not json", "bad-json"),
            ("invalid: array", b"[1,2,3]", "bad-json"),
            ("invalid: bad UTF-8", b'{"cmd":"ping","x":"\xff\xfe"}', "bad-utf8"),
            ("invalid: unknown command", b'{"cmd":"fly"}', "unknown-command"),
            ("invalid: progress 2", b'{"cmd":"drive","transition":"sheet","progress":2}', "bad-field"),
            ("invalid: velocity NaN", b'{"cmd":"release","transition":"sheet","velocity":"x"}', "bad-field"),
            ("invalid: unknown transition", b'{"cmd":"run","transition":"nope","to":"finish"}', "unknown-transition"),
            ("invalid: no cmd", b'{"hello":1}', "bad-field"),
        ])
        await self.ask(name, line, {code})

    async def wind_down(self):
        """Leaves nothing driven: cancel what this client may drive."""
        await self.ask("cancel (wind-down)", valid("cancel", transition="sheet"), {"ok", "not-active"})


async def commander(group, index):
    rng = random.Random(3000 + index)
    r = {"role": "commander", "index": index, "connections": 0, "sent": 0, "answered": 0, "unanswered": 0,
         "wrong_replies": 0, "hang_ups_while_driving": 0, "commands": {}, "violations": []}
    c = Commander(group, index, r)
    await c.connect()
    while not group.winding_down and not group.stopping.is_set():
        await c.one(rng)
        await asyncio.sleep(rng.uniform(0.05, 0.3))
    if not group.stopping.is_set():
        await c.wind_down()
        await group.stopping.wait()
    r["half_way"] = c.tracker.half_way()
    c.hang_up()
    group.results.append(r)


# ---------------------------------------------------------------------------

ROLES = {"keeper": keeper, "ws-keeper": keeper, "staller": staller, "reconnector": reconnector,
         "ws-reconnector": reconnector, "commander": commander}


async def main():
    role, count, socket_path, results_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    ws_url = sys.argv[5] if len(sys.argv) > 5 else None
    group = Group(role, count, socket_path, ws_url)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, lambda: setattr(group, "winding_down", True))
    loop.add_signal_handler(signal.SIGTERM, group.stopping.set)
    tasks = [asyncio.ensure_future(ROLES[role](group, i)) for i in range(count)]
    await group.stopping.wait()
    done, pending = await asyncio.wait(tasks, timeout=15)
    crashed = []
    for task in done:
        if task.exception() is not None:
            crashed.append("%s: %r" % (role, task.exception()))
    for task in pending:
        task.cancel()
    with open(results_path + ".part", "w") as f:
        json.dump({"role": role, "clients": group.results, "crashed": crashed,
                   "unfinished": len(pending)}, f)
    os.replace(results_path + ".part", results_path)


if __name__ == "__main__":
    asyncio.run(main())
