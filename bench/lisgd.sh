#!/usr/bin/env bash
# transitiond's live path measured beside lisgd on a real kernel: the same
# left-edge swipes played into a uinput touchscreen for lisgd (Debian's
# 0.3.7, libinput), `transitiond run` without a client and `transitiond run`
# with one `subscribe --json` client, in the real-kernel tier's systemd
# guest (QEMU, TCG). Prints a Markdown table of medians over the rounds and
# the targets of the comparison as PASS/FAIL lines. See bench/README.md,
# "lisgd comparison".
#
#   bench/lisgd.sh                   3 rounds of 100 swipes (about 11 minutes on 2 cores)
#   QUICK=1 bench/lisgd.sh           1 round of 30 swipes (about 2 minutes)
#   ROUNDS=5 SWIPES=200 bench/lisgd.sh
#   TRANSITIOND=path bench/lisgd.sh  this release binary instead of building one
#   BASELINE=path bench/lisgd.sh     also an older release build, in the same rounds
#                                    (rows `before` and `before+subscriber`)
#
# Exits 1 only when the benchmark could not run (a build, the guest, no
# result); a target's FAIL is a finding, not an error.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/out"
work="$out/lisgd"
say() { echo "$*" >&2; }
fail() { echo "lisgd: error: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }
t_start=$(now)

if [ "${QUICK:-0}" != 0 ]; then ROUNDS=${ROUNDS:-1} SWIPES=${SWIPES:-30}; fi
ROUNDS=${ROUNDS:-3} SWIPES=${SWIPES:-100}
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || fail "ROUNDS must be a positive integer (got $ROUNDS)"
[[ "$SWIPES" =~ ^[1-9][0-9]*$ ]] || fail "SWIPES must be a positive integer (got $SWIPES)"
# The guest's time: the boot (about a minute under TCG with the host busy),
# then per run the settling, the recording (0.45 s a swipe in real time)
# and the stops, with room for a slow host.
RUNS=3; [ -z "${BASELINE:-}" ] || RUNS=5
LIMIT=${LISGD_GUEST_LIMIT:-$((300 + RUNS * ROUNDS * (SWIPES + 60)))}

for tool in qemu-system-x86_64 cpio debootstrap apt-get python3 gcc; do
  command -v "$tool" >/dev/null 2>&1 \
    || fail "no $tool: run Tests/kernel/run.sh --checks none once (it installs what the guests need)"
done
mkdir -p "$work"

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
binary=$(transitiond_binary)

# The tier's kernel and systemd root (Tests/kernel/kernel.sh,
# Tests/kernel/systemd/guest.sh), with lisgd and evemu-tools added to this
# run's copy only: the cached root the tier shares stays as it is.
# shellcheck source=Tests/kernel/kernel.sh
. "$root/Tests/kernel/kernel.sh"
find_kernel "$root/Tests/kernel/.work" >&2 || fail "$kernel_error"
# shellcheck source=Tests/kernel/systemd/guest.sh
. "$root/Tests/kernel/systemd/guest.sh"
t_pack=$(now)
tree="$work/root"
systemd_root "$tree" "$binary" "$work" lisgd evemu-tools >&2 || fail "the guest's root: $guest_error"
B="$tree/usr/local/lib/ktbench"
mkdir -p "$B"
cp "$here/lisgd-guest.sh" "$B/lisgd-guest.sh"
cp "$here/lisgd-guest.service" "$tree/etc/systemd/system/ktbench-lisgd.service"
ln -sf /etc/systemd/system/ktbench-lisgd.service "$tree/etc/systemd/system/multi-user.target.wants/ktbench-lisgd.service"
cp "$kdir/evdev.ko" "$kdir/uinput.ko" "$B/"
if [ -n "${BASELINE:-}" ]; then
  [ -x "$BASELINE" ] || fail "BASELINE=$BASELINE is not an executable"
  cp "$BASELINE" "$B/transitiond-before"
fi
python3 "$here/make-swipes-recording.py" --swipes "$SWIPES" "$B/swipes.events" >&2 \
  || fail "bench/make-swipes-recording.py failed"
# One transition, the left-edge back of the embedded default with its
# margin spelled out; the socket where the subscriber finds it.
cat > "$B/transitiond.toml" <<'EOF'
[[transition]]
name = "back"
gesture = "edge-pan"
edge = "left"
edge_margin = 0.05

[server]
socket = "/run/ktbench/transitiond.sock"
EOF
"$binary" check-config "$B/transitiond.toml" > /dev/null || fail "the benchmark's config does not check"
systemd_pack "$tree" "$work/initramfs.cpio"
rm -rf "$tree"
say "lisgd: guest root made in $(elapsed "$t_pack") s; booting it (TCG, at most $LIMIT s): $ROUNDS round(s) of $SWIPES swipes"

# The guest, in the background so that an interrupted run stops it: timeout
# passes SIGTERM on to QEMU.
boot_pid=""
cleanup() { [ -z "$boot_pid" ] || kill -TERM "$boot_pid" 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM
t_boot=$(now)
log="$work/console.log"
systemd_boot "$work/initramfs.cpio" "$vmlinux" "$log" "$LIMIT" "ktbench=lisgd ktbench.rounds=$ROUNDS" &
boot_pid=$!
status=0
wait "$boot_pid" || status=$?
boot_pid=""
boot_seconds=$(elapsed "$t_boot")
results="$work/results.txt"
grep -aoE 'KTBENCH (run|INFO|DONE).*' "$log" | tr -d '\r' > "$results" || true
sed -n 's/^KTBENCH INFO /lisgd: guest: /p' "$results" >&2
if ! grep -q '^KTBENCH DONE' "$results"; then
  tail -n 30 "$log" | tr -d '\r' | sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/^/  console: /' >&2
  fail "the guest ended without its DONE line (QEMU status $status after ${boot_seconds} s; console: ${log#"$root"/})"
fi
grep -q '^KTBENCH run ' "$results" || fail "no run finished in the guest (console: ${log#"$root"/})"
say "lisgd: guest booted, ran and powered off in ${boot_seconds} s; wall time $(elapsed "$t_start") s"

python3 - "$results" "$(commit_label)" "$ROUNDS" "$SWIPES" <<'PY'
import statistics
import sys

path, commit, rounds, swipes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
runs = {}
for line in open(path, encoding="utf-8"):
    if line.startswith("KTBENCH run "):
        fields = dict(word.split("=", 1) for word in line.split()[2:])
        runs.setdefault(fields["name"], []).append(fields)

def values(name, key, scale=1.0):
    return [float(r[key]) * scale for r in runs.get(name, []) if key in r]

def per_event(name, key):
    """µs per event of each run (key in µs, or ns for *_ns)."""
    scale = 1e-3 if key.endswith("_ns") else 1.0
    return [float(r[key]) * scale / float(r["events"]) for r in runs.get(name, []) if key in r]

def per_round(name, key):
    """{round: µs per event} of name's runs."""
    scale = 1e-3 if key.endswith("_ns") else 1.0
    return {r["round"]: float(r[key]) * scale / float(r["events"]) for r in runs.get(name, []) if key in r}

def ratio(name, key, base="lisgd"):
    """name's figure over lisgd's (or base's), each round's run against the
    same round's (measured minutes apart in the same guest, so a host's slow
    spell is in both): the median and the range over the rounds."""
    a = per_round(name, key)
    b = per_round(base, key if base != "lisgd" else "sched_ns" if key.endswith("_ns") else "cpu_us")
    rs = [a[k] / b[k] for k in a if k in b and b[k] > 0]
    return (med(rs), min(rs), max(rs)) if rs else (float("nan"),) * 3

def fmt_ratio(r):
    return fmt(r[0]) + "x" if r[1] == r[2] else "%sx (%s–%s)" % (fmt(r[0]), fmt(r[1]), fmt(r[2]))

def med(xs):
    return statistics.median(xs) if xs else float("nan")

def fmt(x, digits=2):
    return "n/a" if x != x else "%.*f" % (digits, x)

names = ["lisgd", "transitiond", "transitiond+subscriber", "before", "before+subscriber"]
names = [n for n in names if n in runs or not n.startswith("before")]
events = int(next(iter(runs.values()))[0]["events"])
print("## transitiond beside lisgd (%d round%s of %d swipes, %d events a run; commit %s)" % (
    rounds, "" if rounds == 1 else "s", swipes, events, commit))
print()
print("| daemon | CPU µs/event | × lisgd (rounds) | schedstat µs/event | × lisgd (rounds) | idle RSS MiB (min–max) | peak RSS MiB | threads | gestures / %d |" % swipes)
print("|---|---|---|---|---|---|---|---|---|")
for name in names:
    if name not in runs:
        print("| %s | (no run) | | | | | | | |" % name)
        continue
    cpu, sched = med(per_event(name, "cpu_us")), med(per_event(name, "sched_ns"))
    idle = values(name, "rss_idle_kb", 1 / 1024)
    print("| %s | %s | %s | %s | %s | %s (%s–%s) | %s | %s | %s |" % (
        name, fmt(cpu), fmt_ratio(ratio(name, "cpu_us")) if name != "lisgd" else "1x",
        fmt(sched), fmt_ratio(ratio(name, "sched_ns")) if name != "lisgd" else "1x",
        fmt(med(idle)), fmt(min(idle)), fmt(max(idle)),
        fmt(med(values(name, "rss_peak_kb", 1 / 1024))),
        "%g" % med(values(name, "threads")),
        " ".join("%d" % g for g in values(name, "gestures"))))
sub = "transitiond+subscriber"
for with_sub in (sub, "before+subscriber"):
    if with_sub not in runs:
        continue
    s_cpu, s_sched = med(per_event(with_sub, "sub_cpu_us")), med(per_event(with_sub, "sub_sched_ns"))
    print("| %s's subscriber (`subscribe --json`) | %s | %s | %s | %s | | %s | | %s finishes |" % (
        with_sub.split("+")[0], fmt(s_cpu), fmt_ratio(ratio(with_sub, "sub_cpu_us")), fmt(s_sched),
        fmt_ratio(ratio(with_sub, "sub_sched_ns")), fmt(med(values(with_sub, "sub_rss_peak_kb", 1 / 1024))),
        " ".join("%d" % g for g in values(with_sub, "sub_finishes"))))
print()
for name in names:
    if name in runs:
        print("%s's threads: %s." % (name, runs[name][0].get("thread_names", "?").replace(",", ", ")))
plays = [float(r["play_s"]) for rs in runs.values() for r in rs]
print("evemu-play took %s s (median; %s–%s) to play the %s s recording." % (
    fmt(med(plays), 1), fmt(min(plays), 1), fmt(max(plays), 1),
    next(iter(runs.values()))[0].get("recording_s", "?")))
if "lisgd" in runs:
    print("lisgd's command (`printf x >> FILE` through system()): %s µs/event more in the shells it "
          "starts (its reaped children's CPU, not in its row)." % fmt(med(per_event("lisgd", "child_cpu_us"))))
print()

def verdict(ok, text):
    print("%s %s" % ("PASS" if ok else "FAIL", text))

if "lisgd" in runs and "transitiond" in runs:
    r, rs = ratio("transitiond", "cpu_us"), ratio("transitiond", "sched_ns")
    verdict(r[0] <= 1.5, "transitiond (no client) CPU/event <= 1.5x lisgd's: %s (schedstat %s)" % (
        fmt_ratio(r), fmt_ratio(rs)))
if "lisgd" in runs and sub in runs:
    r, rs = ratio(sub, "cpu_us"), ratio(sub, "sched_ns")
    for row in runs[sub]:
        row["both_us"] = float(row["cpu_us"]) + float(row["sub_cpu_us"])
    verdict(r[0] <= 2.0, "transitiond with a subscriber CPU/event <= 2x lisgd's: %s (schedstat %s; "
            "with the subscriber's own CPU %s)" % (fmt_ratio(r), fmt_ratio(rs), fmt_ratio(ratio(sub, "both_us"))))
for after, before in (("transitiond", "before"), (sub, "before+subscriber")):
    if after in runs and before in runs:
        print("%s against the baseline build's %s: CPU/event %s (schedstat %s)" % (
            after, before, fmt_ratio(ratio(after, "cpu_us", before)), fmt_ratio(ratio(after, "sched_ns", before))))
for name in ("transitiond", sub):
    if name not in runs:
        continue
    idle = values(name, "rss_idle_kb", 1 / 1024)
    m = med(idle)
    verdict(m <= 8, "%s idle RSS <= 8 MiB: %.2f MiB (median)" % (name, m))
    spread = max(abs(x - m) / m for x in idle)
    verdict(spread <= 0.05, "%s idle RSS within +-5 %% between starts: +-%.1f %% (%s MiB over %d start%s)" % (
        name, 100 * spread, ", ".join("%.2f" % x for x in idle), len(idle), "" if len(idle) == 1 else "s"))
    peak = max(values(name, "rss_peak_kb", 1 / 1024))
    verdict(peak <= 12, "%s peak RSS <= 12 MiB: %.2f MiB (the largest of its runs)" % (name, peak))
missing = [n for n in names if len(runs.get(n, [])) < rounds]
if missing:
    print("(runs missing for %s: see the INFO lines above)" % ", ".join(missing))
PY
