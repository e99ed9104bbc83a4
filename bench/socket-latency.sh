#!/usr/bin/env bash
# Socket fan-out: latency from "written" to "read" for 1, 10, 100 and 1,000
# subscriber processes at 240 lines/s, and the server's CPU and RSS, for
# `transitiond replay --socket --stamp-sent` and for a minimal C floor, side by
# side. Prints a table in Markdown (bench/run puts it into docs/benchmarks.md).
# See bench/README.md, "Socket fan-out benchmark".
#
#   bench/socket-latency.sh
#   FLOOR_ONLY=1 bench/socket-latency.sh          # the C floor alone
#   WEBSOCKET=1 SIZES="1 100" bench/socket-latency.sh   # Unix socket vs WebSocket
#   SIZES="1 100" ROUNDS=3 SECONDS_PER_RUN=5 bench/socket-latency.sh
#
# Environment:
#   SIZES="1 10 100 1000"  subscriber counts
#   ROUNDS=5               runs of each server per size (the first alternates)
#   SECONDS_PER_RUN=10     measured seconds per run (after WARMUP_SECONDS=1)
#   FLOOR_ONLY=1           measure the floor only (no transitiond build)
#   METRICS=1              transitiond with metrics off against the same binary
#                          with a metrics listener scraped SCRAPE_HZ=5 times a
#                          second; its own table in the doc
#   FRAMES=1               touch to frame's cost: subscribers that only read
#                          against the same ones reporting a presented frame
#                          at most every 1/60 s (metrics on in both); its own
#                          table in the doc
#   WEBSOCKET=1            transitiond's Unix socket against its WebSocket
#                          transport (the same subscriber as a WebSocket
#                          client), no floor; its own table in the doc
#   WAIT_CLIENTS=0         stream from the start while the subscribers connect
#                          (default 1: both servers get --wait-clients N)
#   WAIT_IDLE=S            before each run, wait up to S s for the machine to
#                          be under 15 % busy (default 0: do not wait)
#   TRANSITIOND=path       use this binary instead of building the release one
#   BASELINE=path          also measure this transitiond binary (e.g. an older
#                          build) in the same rounds, in turn with the others,
#                          and compare p99 and CPU with it (with WEBSOCKET=1:
#                          both of its transports, in a table of their own)
#   CONFIG=file            transitiond's config instead of the generated one
#                          (which is the default `back`, frame_rate = 240 and
#                          [server] max_clients, max_websocket_clients and
#                          max_clients_per_peer = 2000)
#   LINE_BYTES=N           the floor's line size (default: transitiond's mean
#                          `changed` line with the stamp, else 152)
#   DOC=file               also write the table into this file, between its
#                          markers (default: nowhere)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
mkdir -p "$out"

say() { printf '%s\n' "$*" >&2; }
fail() { printf 'socket-latency: %s\n' "$*" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

sizes=${SIZES:-1 10 100 1000}
rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_RUN:-10}
floor_only=${FLOOR_ONLY:-0}
for n in $sizes; do
    case $n in ''|*[!0-9]*|0) fail "SIZES must be positive integers, not '$sizes'";; esac
    [ "$n" -le 2000 ] || fail "at most 2000 subscribers (the config's max_clients), not $n"
done
[ -n "$sizes" ] || fail "SIZES is empty"
case $rounds in ''|*[!0-9]*|0) fail "ROUNDS must be a positive integer, not '$rounds'";; esac
case $seconds in ''|*[!0-9.]*|.|*.*.*) fail "SECONDS_PER_RUN must be a positive number, not '$seconds'";; esac

# The measuring script runs as a child that ends with this one (it ends every
# process it starts itself: servers and subscribers).
children=()
cleanup() {
    local pid
    for pid in "${children[@]:-}"; do
        [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# 1. File descriptors: the server holds one per subscriber.
max=0
for n in $sizes; do [ "$n" -gt "$max" ] && max=$n; done
need=$((max + 256))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
    hard=$(ulimit -Hn)
    if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ]; then
        fail "need $need open files for $max subscribers, but the hard limit is $hard (ulimit -Hn)"
    fi
    ulimit -n "$need"
fi

# 2. The C programs
say "== building bench/out/socket-floor and bench/out/socket-subscriber (gcc -O2)"
gcc -O2 -Wall -Wextra -o "$out/socket-floor" "$here/socket-floor.c" -lm || fail "cannot build socket-floor.c"
gcc -O2 -Wall -Wextra -o "$out/socket-subscriber" "$here/socket-subscriber.c" || fail "cannot build socket-subscriber.c"

# 3. transitiond (with FLOOR_ONLY, only an existing binary, to size the lines)
given="${TRANSITIOND:+1}"
if [ -z "${TRANSITIOND:-}" ] && [ "$floor_only" != 0 ]; then
    transitiond="$root/.build/release/transitiond"
    [ -x "$transitiond" ] || transitiond=
else
    transitiond=$(transitiond_binary)
fi

# 4. The recording (deterministic, so always rewritten: about half a second)
recording="$out/stream-240hz.events"
say "== generating $recording"
python3 "$here/make-stream-recording.py" "$recording" >&2 || fail "cannot generate the recording"

# 5. The runs and the table
commit=$(commit_label)
command="bench/socket-latency.sh"
[ "$floor_only" = 0 ] || command="FLOOR_ONLY=1 $command"
[ "${WEBSOCKET:-0}" = 0 ] || command="WEBSOCKET=1 $command"
[ "${METRICS:-0}" = 0 ] || command="METRICS=1 $command"
[ "${FRAMES:-0}" = 0 ] || command="FRAMES=1 $command"
[ "$seconds" = 10 ] || command="SECONDS_PER_RUN=$seconds $command"
[ "$rounds" = 5 ] || command="ROUNDS=$rounds $command"
[ "$sizes" = "1 10 100 1000" ] || command="SIZES=\"$sizes\" $command"
[ -z "${CONFIG:-}" ] || command="CONFIG=$CONFIG $command"
[ -z "${TRANSITIOND:-}" ] || [ "$floor_only" != 0 ] || command="TRANSITIOND=${TRANSITIOND#"$root"/} $command"
[ -z "${BASELINE:-}" ] || [ "$floor_only" != 0 ] || command="BASELINE=$(basename "$BASELINE") $command"
if [ -n "${BASELINE:-}" ] && [ ! -x "$BASELINE" ]; then fail "BASELINE is not an executable: $BASELINE"; fi
[ "${WAIT_IDLE:-0}" = 0 ] || command="WAIT_IDLE=$WAIT_IDLE $command"
[ "${WAIT_CLIENTS:-1}" = 1 ] || command="WAIT_CLIENTS=$WAIT_CLIENTS $command"
say "== running (open files: $(ulimit -n))"
FLOOR="$out/socket-floor" SUBSCRIBER="$out/socket-subscriber" TRANSITIOND="$transitiond" \
RECORDING="$recording" SIZES="$sizes" ROUNDS="$rounds" SECONDS_PER_RUN="$seconds" \
TRANSITIOND_GIVEN="$given" BASELINE="${BASELINE:-}" FLOOR_ONLY="$floor_only" WEBSOCKET="${WEBSOCKET:-0}" METRICS="${METRICS:-0}" FRAMES="${FRAMES:-0}" SCRAPE_HZ="${SCRAPE_HZ:-5}" WAIT_IDLE="${WAIT_IDLE:-0}" WAIT_CLIENTS="${WAIT_CLIENTS:-1}" DOC="${DOC:-}" NPROC="$(nproc)" COMMIT="$commit" \
COMMAND="$command" \
    python3 "$here/socket-latency.py" &
children+=($!)
wait $!
