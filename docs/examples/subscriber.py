#!/usr/bin/env python3
"""Print transitiond's event stream, with the transitiond_client package.

Connects to the daemon's socket (--socket, else $TRANSITIOND_SOCKET, else
$XDG_RUNTIME_DIR/transitiond.sock, else /run/transitiond/transitiond.sock)
or, with --url, to its WebSocket; optionally subscribes to the transitions
named as arguments, and prints one readable line per event -- or, with
--json, the daemon's lines unchanged. When the connection drops
mid-transition the client yields a synthetic "cancelled" for each
transition in flight (progress 0, "synthetic": true) so nothing downstream
stays half-way, and reconnects.

    python3 docs/examples/subscriber.py                 # everything, readable
    python3 docs/examples/subscriber.py back --json     # only "back", NDJSON

The package is clients/python (pip install ./clients/python); run from a
checkout, this script also finds it there.
"""

import argparse
import asyncio
import os
import signal
import sys

try:
    import transitiond_client
except ImportError:   # not installed: use the checkout's copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python", "src"))
    import transitiond_client

EX_USAGE, EX_UNAVAILABLE = 64, 69


def readable(message):
    """One line for a message, or None for messages not worth a line."""
    kind = message.get("type")
    if kind == "hello":
        names = ", ".join(t["name"] for t in message.get("transitions", []))
        return f"connected: transitiond {message.get('version', '?')} ({names or 'no transitions'})"
    if kind == "error":
        return f"daemon error {message.get('code')}: {message.get('message', '')}"
    if kind not in transitiond_client.TRANSITION_EVENTS:
        return None
    text = f"{message['time']:10.3f}s  {message['transition']:<12} {kind:<10} {message['progress'] * 100:6.1f}%"
    if kind == "ended":
        text += f"  {message.get('decision')} ({message.get('reason')}), velocity {message['velocity']:+.2f}/s"
    if message.get("synthetic"):
        text += "  (synthetic: connection lost)"
    return text


async def subscribe(args, out):
    where = {"url": args.url} if args.url else {"path": transitiond_client.socket_path(args.socket)}
    shown = args.url or where["path"]

    def lost(client):
        print(f"subscriber: connection to {shown} lost; reconnecting", file=sys.stderr)

    options = dict(where, transitions=args.transitions or None, reconnect=True, on_disconnect=lost)
    try:
        client = await transitiond_client.connect(retry_seconds=0, **options)
    except transitiond_client.Unavailable:
        if args.retry_seconds <= 0:
            raise
        print(f"subscriber: the daemon is not running at {shown}; retrying for up to {args.retry_seconds:g} s",
              file=sys.stderr)
        client = await transitiond_client.connect(retry_seconds=args.retry_seconds, **options)
    client.retry_seconds = args.retry_seconds
    async with client:
        async for message in client:
            if args.json:
                out.write(message.raw + b"\n")
                out.flush()
            else:
                line = readable(message)
                if line is not None:
                    print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description="Print transitiond's event stream.")
    parser.add_argument("transitions", nargs="*", metavar="NAME", help="only these transitions (default: all)")
    parser.add_argument("--socket", metavar="PATH", help="the daemon's socket")
    parser.add_argument("--url", metavar="URL", help="the daemon's WebSocket instead, e.g. ws://127.0.0.1:8765/stream")
    parser.add_argument("--json", action="store_true", help="print the daemon's NDJSON lines unchanged")
    parser.add_argument("--retry-seconds", type=float, default=30, metavar="N",
                        help="how long to keep trying to (re)connect (default 30)")
    args = parser.parse_args()
    if args.socket and args.url:
        parser.error("--socket and --url exclude each other")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        asyncio.run(subscribe(args, sys.stdout.buffer))
    except KeyboardInterrupt:
        sys.exit(0)
    except transitiond_client.CommandError as error:      # the subscription named an unknown transition
        print(f"subscriber: {error.message}", file=sys.stderr)
        sys.exit(EX_USAGE)
    except transitiond_client.Unavailable as error:
        print(f"subscriber: {error}; gave up after {args.retry_seconds:g} s", file=sys.stderr)
        sys.exit(EX_UNAVAILABLE)
    except PermissionError as error:
        print(f"subscriber: {error.filename or ''}: permission denied", file=sys.stderr)
        sys.exit(EX_UNAVAILABLE)
    except (BrokenPipeError, ConnectionError) as error:
        print(f"subscriber: {error}", file=sys.stderr)
        sys.exit(EX_UNAVAILABLE)


if __name__ == "__main__":
    main()
