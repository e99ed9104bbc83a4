#!/usr/bin/env bash
# The live path's instructions per input event on the host, no touchscreen
# and no guest: bench-live-run (bench/LiveRun) plays a recording through the
# input hand-over, the device host, the engine, the encoding and the socket
# under callgrind, once whole and once with no frame (the start-up alone);
# the difference over the events is the figure. With no subscriber and with
# one (a process of its own, not counted). Instruction counts do not move
# with the machine's load, so a change's effect shows in one run.
#
#   bench/live-callgrind.sh                      # Recordings/back-drag-finish.events, twice over
#   RECORDING=file.events LOOP=4 bench/live-callgrind.sh
#   BINARY=path bench/live-callgrind.sh          # a bench-live-run built elsewhere (an older checkout)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
recording="${RECORDING:-$root/Recordings/back-drag-finish.events}"
loop="${LOOP:-2}"

command -v valgrind >/dev/null 2>&1 || {
  echo "live-callgrind: installing valgrind with apt-get" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends valgrind >&2
}
binary="${BINARY:-}"
if [ -z "$binary" ]; then
  (cd "$root" && swift build -c release --product bench-live-run >&2)
  binary="$(cd "$root" && swift build -c release --show-bin-path)/bench-live-run"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the debug information Swift 6 writes: a copy without it.
cp "$binary" "$work/bench-live-run"
strip --strip-debug "$work/bench-live-run"

# The instructions callgrind counted in one run (the speed leaves room for its slowdown).
count() {
  valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/bench-live-run" "$recording" \
    --loop "$loop" --speed 0.2 "$@" 2>&1 | sed -n 's/.*Collected : //p'
}
events=$("$work/bench-live-run" "$recording" --loop "$loop" --speed 50 | sed -n 's/^bench-live-run: \([0-9]*\) events.*/\1/p')
echo "| subscribers | instructions per input event |"
echo "|---:|---:|"
for subscribers in 0 1; do
  whole=$(count --subscribers "$subscribers")
  start=$(count --subscribers "$subscribers" --frames 0)
  echo "| $subscribers | $(( (whole - start) / events )) |"
done
echo
echo "$events events ($(basename "$recording") × $loop), callgrind $(valgrind --version | sed 's/valgrind-//'), commit $(git -C "$root" rev-parse --short HEAD)"
