#!/usr/bin/env python3
"""A transitiond client in the Python standard library only.

Connects to the daemon's socket (--socket, else $TRANSITIOND_SOCKET, else
$XDG_RUNTIME_DIR/transitiond.sock, else /run/transitiond/transitiond.sock),
optionally subscribes to the transitions named as arguments, and prints one
readable line per event -- or, with --json, the daemon's lines unchanged.
It keeps a tiny mirror of the transitions in flight: when the connection
drops mid-transition it prints a synthetic "cancelled" for each (progress 0,
"synthetic": true) so nothing downstream stays half-way, then reconnects.

    python3 docs/examples/subscriber.py                 # everything, readable
    python3 docs/examples/subscriber.py back --json     # only "back", NDJSON
"""

import argparse
import json
import os
import signal
import socket
import sys
import time

EX_USAGE, EX_UNAVAILABLE = 64, 69


def socket_path(explicit):
    """The path rule of docs/protocol.md "Connecting" (empty counts as unset)."""
    if explicit:
        return explicit
    if os.environ.get("TRANSITIOND_SOCKET"):
        return os.environ["TRANSITIOND_SOCKET"]
    if os.environ.get("XDG_RUNTIME_DIR"):
        return os.path.join(os.environ["XDG_RUNTIME_DIR"], "transitiond.sock")
    return "/run/transitiond/transitiond.sock"


class Mirror:
    """What a consumer of our output believes: each transition's phase."""

    def __init__(self):
        self.phase = {}        # name -> "idle" | "interacting" | "animating"
        self.last_seq = 0
        self.last_time = 0.0

    def apply(self, message):
        kind = message.get("type")
        if kind in ("hello", "state"):
            self.phase = {t["name"]: "idle" for t in message.get("transitions", [])}
            for active in message.get("active", []):
                self.phase[active["transition"]] = active["phase"]
            self.last_seq = message.get("seq", 0)
        elif kind in ("began", "changed", "ended", "animating", "finished", "cancelled"):
            self.last_seq = message["seq"]
            self.last_time = max(self.last_time, message["time"])
            self.phase[message["transition"]] = {
                "began": "interacting", "changed": "interacting", "ended": "animating",
                "animating": "animating", "finished": "idle", "cancelled": "idle",
            }[kind]

    def synthetic_cancellations(self):
        """A cancelled event at progress 0 for every transition in flight."""
        lines = []
        for name, phase in self.phase.items():
            if phase != "idle":
                self.last_seq += 1
                lines.append({"type": "cancelled", "transition": name, "seq": self.last_seq,
                              "time": self.last_time, "progress": 0, "velocity": 0,
                              "values": {}, "synthetic": True})
        for line in lines:
            self.apply(line)
        return lines


def readable(message):
    """One line for an event, or None for lines not worth a line."""
    kind = message.get("type")
    if kind == "hello":
        names = ", ".join(t["name"] for t in message.get("transitions", []))
        return f"connected: transitiond {message.get('version', '?')} ({names or 'no transitions'})"
    if kind == "error":
        return f"daemon error {message.get('code')}: {message.get('message', '')}"
    if kind not in ("began", "changed", "ended", "animating", "finished", "cancelled"):
        return None
    text = f"{message['time']:10.3f}s  {message['transition']:<12} {kind:<10} {message['progress'] * 100:6.1f}%"
    if kind == "ended":
        text += f"  {message.get('decision')} ({message.get('reason')}), velocity {message['velocity']:+.2f}/s"
    if message.get("synthetic"):
        text += "  (synthetic: connection lost)"
    return text


def connect(path, retry_seconds, announce):
    """A connected socket, retrying with backoff (0.1 s doubling to 2 s)."""
    deadline = time.monotonic() + retry_seconds
    delay = 0.1
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except (FileNotFoundError, ConnectionRefusedError) as error:
            sock.close()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                sys.exit(f"subscriber: the daemon is not running at {path} ({error.strerror}); "
                         f"gave up after {retry_seconds:g} s")
            if announce:
                print(f"subscriber: the daemon is not running at {path}; retrying for up to {retry_seconds:g} s",
                      file=sys.stderr)
                announce = False
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 2)
        except PermissionError:
            sys.exit(f"subscriber: {path}: permission denied")


def stream(sock, names, as_json, mirror, out):
    """Reads one connection until it closes; returns nothing."""
    wanted = set(names)
    for raw in sock.makefile("rb"):
        if not raw.endswith(b"\n"):
            break                       # a truncated last line: the daemon died mid-write
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "hello" and names:
            known = [t["name"] for t in message.get("transitions", [])]
            for name in names:
                if name not in known:
                    print(f"subscriber: no transition named '{name}' (the daemon has: {', '.join(known)})",
                          file=sys.stderr)
                    sys.exit(EX_USAGE)
            command = {"cmd": "subscribe", "transitions": names, "id": "subscribe"}
            sock.sendall(json.dumps(command).encode() + b"\n")
        if kind == "ok" and message.get("id") == "subscribe":
            continue                    # the reply to our own subscription
        if wanted and "transition" in message and message["transition"] not in wanted:
            continue                    # sent before the subscription took effect
        mirror.apply(message)
        if as_json:
            out.write(raw)
            out.flush()
        elif (line := readable(message)) is not None:
            print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description="Print transitiond's event stream.")
    parser.add_argument("transitions", nargs="*", metavar="NAME", help="only these transitions (default: all)")
    parser.add_argument("--socket", metavar="PATH", help="the daemon's socket")
    parser.add_argument("--json", action="store_true", help="print the daemon's NDJSON lines unchanged")
    parser.add_argument("--retry-seconds", type=float, default=30, metavar="N",
                        help="how long to keep trying to (re)connect (default 30)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    path = socket_path(args.socket)
    mirror, out = Mirror(), sys.stdout.buffer
    first = True
    try:
        while True:
            sock = connect(path, args.retry_seconds, announce=first)
            first = False
            try:
                stream(sock, args.transitions, args.json, mirror, out)
            except (ConnectionResetError, BrokenPipeError):
                pass
            finally:
                sock.close()
            for cancel in mirror.synthetic_cancellations():
                if args.json:
                    out.write(json.dumps(cancel, separators=(",", ":")).encode() + b"\n")
                    out.flush()
                else:
                    print(readable(cancel), flush=True)
            print(f"subscriber: connection to {path} lost; reconnecting", file=sys.stderr)
    except KeyboardInterrupt:
        sys.exit(0)
    except SystemExit as exit:
        if isinstance(exit.code, str):   # a message: the daemon is unavailable
            print(exit.code, file=sys.stderr)
            sys.exit(EX_UNAVAILABLE)
        raise


if __name__ == "__main__":
    main()
