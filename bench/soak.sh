#!/usr/bin/env bash
# Soak: 10 million input events through a paced daemon (`transitiond replay
# --socket --hold`) to 100 clients — keepers, stallers, reconnectors and
# commanders — with the daemon's RSS, descriptors, CPU and event-loop lag
# sampled every second. Checks that RSS stays flat after warm-up, descriptors
# stay constant, keepers lose no phase event and nothing is left half-way.
# Not part of bin/test. See bench/README.md, "Soak".
#
#   bench/soak.sh                          # 10 M events at speed 10: about 28 minutes
#   EVENTS=500000 bench/soak.sh            # a short run: about 2 minutes
#   EVENTS=2000000 SPEED=20 bench/soak.sh
#
# Environment:
#   EVENTS=10000000     input events: the 1M-event recording looped, or cut
#                       (above 1M, a multiple of the loop count it needs)
#   SPEED=10            pace: the recording's time line at this speed (its
#                       1M events span 1,607 s)
#   WARMUP_SECONDS=S    excluded from the RSS check (default 300 s, or half
#                       the replay when shorter, at least 60 s)
#   CLIENT_GROUPS="staller:20 keeper:2"  other clients than the 100 (role:count)
#   BACKLOG_LIMIT=N     the daemon's [server] backlog_limit (default 1048576)
#   TRANSITIOND=path    use this binary instead of building the release one
#   OUT=dir             where the results go (default bench/out/soak)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
fail() { printf 'soak: %s\n' "$*" >&2; exit 1; }

events=${EVENTS:-10000000}
speed=${SPEED:-10}
case $events in ''|*[!0-9]*|0) fail "EVENTS must be a positive integer, not '$events'";; esac
case $speed in ''|*[!0-9.]*|.|*.*.*) fail "SPEED must be a positive number, not '$speed'";; esac

if [ -z "${TRANSITIOND:-}" ]; then
    (cd "$root" && swift build -c release --product transitiond >&2) || fail "the build failed"
    TRANSITIOND="$root/.build/release/transitiond"
fi
[ -x "$TRANSITIOND" ] || fail "no transitiond binary at $TRANSITIOND"
recording="$here/out/large-1M.events"
if [ ! -f "$recording" ]; then
    python3 "$here/make-large-recording.py" "$recording" >&2
fi
python3 -c 'import websockets.asyncio.client' 2>/dev/null \
    || fail "the WebSocket clients need Python's websockets (13 or later): pip install websockets"

# The daemon holds a descriptor per client; 100 clients and a sampler fit
# the usual 1024, but say so if the limit is lower.
[ "$(ulimit -n)" -ge 512 ] || ulimit -n 512 || fail "ulimit -n is below 512"

export TRANSITIOND RECORDING="$recording" EVENTS="$events" SPEED="$speed"
export OUT="${OUT:-$here/out/soak}"
export COMMIT="$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)"
exec python3 "$here/soak.py"
