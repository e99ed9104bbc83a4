#!/usr/bin/env bash
# Replay throughput per recording shape: events/s and MB/s of `transitiond
# replay --fast --json` against libevemu's own reader (bench/evemu-read.c)
# on the same recordings, and the ratio per shape. See bench/README.md.
#
#   bench/replay-throughput.sh                      # every shape, 7 interleaved rounds
#   SHAPES="four-finger-B protocol-A" ROUNDS=3 bench/replay-throughput.sh
#   RECORDING=file.events bench/replay-throughput.sh
#
# Environment:
#   ROUNDS=7          timed runs of each tool per shape (interleaved)
#   WARMUP=1          untimed runs of each tool first
#   SHAPES="..."      which shapes (default all; the names are bench/throughput.py's)
#   RECORDING=file    one self-contained evemu file instead of the shapes
#   CONFIG=file       transitiond's config (default bench/shapes.toml)
#   TRANSITIOND=path  use this binary instead of building the release one
#   BASELINE=path     also time this transitiond binary (e.g. an older build)
#                     in the same interleaved rounds, and give the ratio
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
mkdir -p "$out"
say() { printf '%s\n' "$*" >&2; }
fail() { printf 'replay-throughput: %s\n' "$*" >&2; exit 1; }
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

rounds=${ROUNDS:-7}
warmup=${WARMUP:-1}
case $rounds in ''|*[!0-9]*|0) fail "ROUNDS must be a positive integer, not '$rounds'";; esac
case $warmup in ''|*[!0-9]*) fail "WARMUP must be a non-negative integer, not '$warmup'";; esac
if [ -n "${BASELINE:-}" ] && [ ! -x "$BASELINE" ]; then fail "BASELINE is not an executable: $BASELINE"; fi

build_evemu_read
transitiond=$(transitiond_binary)

# The recordings: made once into bench/out (the same bytes on every run).
shape_file() { python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import throughput as t
print(" ".join("%s=%s=%s" % (k, f, m) for k, _, f, m in t.SHAPES))' "$here"; }
recordings=
if [ -n "${RECORDING:-}" ]; then
    [ -e "$RECORDING" ] || fail "no such recording: $RECORDING"
    recordings="$(basename "$RECORDING")=$RECORDING"
else
    for entry in $(shape_file); do
        IFS== read -r shape file maker <<<"$entry"
        case " ${SHAPES:-$shape} " in *" $shape "*) ;; *) continue;; esac
        if [ ! -e "$out/$file" ]; then
            say "== generating bench/out/$file ($maker)"
            if [ "$maker" = make-large-recording.py ]; then
                python3 "$here/$maker" "$out/$file" >&2 || fail "cannot generate $file"
            else
                python3 "$here/$maker" "$out" >&2 || fail "cannot generate $file"
            fi
        fi
        recordings="$recordings $shape=$out/$file"
    done
    [ -n "$recordings" ] || fail "no shape called any of: $SHAPES"
fi

say "== timing (libevemu and transitiond, $rounds rounds after $warmup warm-up)"
printf 'Commit %s, %s CPUs (nproc).\n\n' "$(commit_label)" "$(nproc)"
EVEMU_READ="$out/evemu-read" TRANSITIOND_BIN="$transitiond" BASELINE_BIN="${BASELINE:-}" \
RECORDINGS="$recordings" CONFIG="${CONFIG:-$here/shapes.toml}" ROUNDS="$rounds" WARMUP="$warmup" \
    exec python3 "$here/throughput.py"
