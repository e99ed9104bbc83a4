#!/usr/bin/env bash
# Replay throughput: events per second of `transitiond replay --fast --json`
# against libevemu's own reader (bench/evemu-read.c) on the same recording.
# See bench/README.md.
#
#   bench/replay-throughput.sh
#
# Environment:
#   ROUNDS=7          timed runs of each tool (interleaved)
#   WARMUP=1          untimed runs of each tool first
#   TRANSITIOND=path  use this binary instead of building the release one
#   BASELINE=path     also time this transitiond binary (e.g. an older build)
#                     in the same interleaved rounds, and give the ratio
#   RECORDING=file    use this evemu file instead of bench/out/large-1M.events
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/out"
mkdir -p "$out"
rounds=${ROUNDS:-7}
warmup=${WARMUP:-1}
recording=${RECORDING:-$out/large-1M.events}

say() { printf '%s\n' "$*" >&2; }
fail() { printf 'replay-throughput: %s\n' "$*" >&2; exit 1; }

case $rounds in ''|*[!0-9]*|0) fail "ROUNDS must be a positive integer, not '$rounds'";; esac
case $warmup in ''|*[!0-9]*) fail "WARMUP must be a non-negative integer, not '$warmup'";; esac

# 1. libevemu. Its pkg-config module is called "evemu"; Debian's evemu.pc
#    requires libevdev.pc, so pkg-config only answers once libevdev-dev is
#    installed too. The header is what decides whether to install.
if ! pkg-config --exists evemu 2>/dev/null && [ ! -e /usr/include/evemu.h ]; then
    say "== installing libevemu-dev (apt-get)"
    sudo=
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get install -y libevemu-dev libevdev-dev >&2 || fail "could not install libevemu-dev"
fi
if evemu_flags=$(pkg-config --cflags --libs evemu 2>/dev/null); then :; else evemu_flags=-levemu; fi

# 2. the C reader
say "== building bench/out/evemu-read"
# shellcheck disable=SC2086  # the flags are words
gcc -O2 -Wall -o "$out/evemu-read" "$here/evemu-read.c" $evemu_flags || fail "cannot build evemu-read.c"

# 3. transitiond
if [ -n "${TRANSITIOND:-}" ]; then
    transitiond=$TRANSITIOND
else
    say "== building transitiond (swift build -c release --static-swift-stdlib --product transitiond)"
    (cd "$root" && swift build -c release --static-swift-stdlib --product transitiond >&2) || fail "swift build failed"
    transitiond="$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)/transitiond"
fi
[ -x "$transitiond" ] || fail "transitiond is not an executable: $transitiond"

# 4. the recording
if [ ! -e "$recording" ]; then
    [ -z "${RECORDING:-}" ] || fail "no such recording: $recording"
    say "== generating $recording"
    python3 "$here/make-large-recording.py" "$recording" >&2 || fail "cannot generate the recording"
fi

# 5 and 6. interleaved timed runs and the summary
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    commit="$commit (+ uncommitted changes)"
fi
if [ -n "${BASELINE:-}" ] && [ ! -x "$BASELINE" ]; then fail "BASELINE is not an executable: $BASELINE"; fi
EVEMU_READ="$out/evemu-read" TRANSITIOND_BIN="$transitiond" RECORDING_FILE="$recording" BASELINE_BIN="${BASELINE:-}" \
ROUNDS="$rounds" WARMUP="$warmup" NPROC="$(nproc)" COMMIT="$commit" \
exec python3 - <<'PY'
import os, statistics, subprocess, sys, tempfile, time

env = os.environ
reader, transitiond, recording = env["EVEMU_READ"], env["TRANSITIOND_BIN"], env["RECORDING_FILE"]
rounds, warmup = int(env["ROUNDS"]), int(env["WARMUP"])

# The number of events, as libevemu counts them (= the `E:` lines).
first = subprocess.run([reader, recording], capture_output=True, text=True)
if first.returncode != 0:
    sys.exit("replay-throughput: evemu-read failed (%d): %s" % (first.returncode, first.stderr.strip()))
events = int(first.stdout.split()[0])

tools = [
    ("libevemu evemu_read_event", [reader, recording]),
    ("transitiond replay --fast", [transitiond, "replay", "--fast", "--json", recording]),
]
if env.get("BASELINE_BIN"):
    tools.append(("baseline replay --fast", [env["BASELINE_BIN"], "replay", "--fast", "--json", recording]))

def run(name, argv):
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        rc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=err).returncode
        wall = time.perf_counter() - start
        if rc != 0:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace").strip().splitlines()[-15:]
            sys.exit("replay-throughput: %s exited with status %d:\n  $ %s\n%s" % (
                name, rc, " ".join(argv), "\n".join("  " + line for line in tail)))
    return wall

walls = {name: [] for name, _ in tools}
for i in range(warmup + rounds):
    order = tools if i % 2 == 0 else tools[::-1]  # alternate who goes first
    for name, argv in order:
        wall = run(name, argv)
        if i >= warmup:
            walls[name].append(wall)
    if i >= warmup:
        print("  round %d/%d: %s" % (i - warmup + 1, rounds, ", ".join(
            "%s %.3f s" % (name.split()[0], walls[name][-1]) for name, _ in tools)), file=sys.stderr)

size = os.path.getsize(recording)
print("replay throughput: %s (%d events, %.1f MB)" % (recording, events, size / 1e6))
print("machine: %s CPUs (nproc); commit %s" % (env["NPROC"], env["COMMIT"]))
print("%d timed rounds per tool after %d warm-up, interleaved; events/s = events / wall time" % (rounds, warmup))
print()
print("%-28s %14s %14s %14s %10s" % ("", "median ev/s", "min ev/s", "max ev/s", "median s"))
medians = {}
for name, _ in tools:
    rates = [events / w for w in walls[name]]
    medians[name] = statistics.median(rates)
    print("%-28s %14s %14s %14s %10.3f" % (
        name, format(round(medians[name]), ","), format(round(min(rates)), ","),
        format(round(max(rates)), ","), statistics.median(walls[name])))
print()
libevemu, ours = medians[tools[0][0]], medians[tools[1][0]]
print("ratio of medians (transitiond / libevemu): %.2f" % (ours / libevemu))
if len(tools) > 2:
    print("ratio of medians (transitiond / baseline): %.3f" % (ours / medians[tools[2][0]]))
PY
