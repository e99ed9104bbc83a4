#!/usr/bin/env bash
# The real-kernel test tier: boots a Linux guest under QEMU (TCG) with evdev
# and uinput, and runs transitiond against real input devices there.
#
#   Tests/kernel/run.sh [--checks LIST]
#
#   --checks LIST  comma-separated subset of: replay,device-lost,two-panels,filter,dump,metrics,record,flood,latency,latency-costs,
#                  filter-flood,filter-latency,filter-latency-rules,systemd,compositor,filter-libinput,
#                  filter-block,panel-health
#                  (default: all; the boot check always runs; `none`: only boot)
#
# Steps: install missing packages, find a kernel with evdev.ko/uinput.ko and
# extract its ELF vmlinux (cached in Tests/kernel/.work/), boot a trivial
# guest (QEMU cannot run → SKIP, exit 0), build transitiond (release, static
# Swift stdlib) and the C helper kt, make the reference streams with
# `replay --fast` on the host, pack an initramfs, boot the test guests and
# read their `KERNELTEST` lines from the serial console. Ends with
# `kernel: N passed, M failed`; exits 1 on any failure or timeout.
# Logs: Tests/kernel/.work/console-*.log. See Tests/kernel/README.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$here/.work"
checks=all
while [ $# -gt 0 ]; do
  case "$1" in
    --checks) checks="$2"; shift 2 ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "kernel: unknown option $1" >&2; exit 64 ;;
  esac
done

# Time limits in seconds. The host's are wall time. Each guest also limits
# its checks by its own clock, so that it can still say which check ran out
# of time: guest 2's clock is the host's (30 s less than the host's limit);
# guest 1's is the virtual one, which is deterministic (its checks take
# about 45 virtual seconds, panel-health's 22 of them, whatever the host's load).
SMOKE_LIMIT=60         # the trivial guest
VIRTUAL_LIMIT=240      # guest 1: replay, device-lost, record, panel-health (about 75 s of wall time)
VIRTUAL_GUEST_LIMIT=120 # ... in virtual seconds
REAL_LIMIT=300         # guest 2: flood, latency, latency-costs, the filter's (about 150 s)
STREAM_SECONDS=12      # the latency check's stream (240 events/s; a slow guest coalesces some)
FLOOD_SECONDS=30       # the flood's stream, written as fast as possible

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
t_start=$(now)
say() { echo "kernel: $*"; }
skip() {
  say "SKIP: $* (the real-kernel tier needs QEMU to boot a Linux guest)"
  exit 0
}
die() {
  say "error: $*" >&2
  say "0 passed, 1 failed"
  exit 1
}

# A running guest: the pid of `timeout` (which forwards SIGTERM to QEMU)
# and the pid QEMU wrote itself.
qemu_pid=""
cleanup() {
  [ -n "$qemu_pid" ] || return 0
  kill -TERM "$qemu_pid" 2>/dev/null || true
  local pid
  pid=$(cat "$work/qemu.pid" 2>/dev/null || true)
  if [ -n "$pid" ]; then
    sleep 1
    if grep -q '^qemu-system' "/proc/$pid/comm" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$work"

# ------------------------------------------------------------- packages

is_static_busybox() {
  [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1
}
have_kernel_modules() {
  local dir
  for dir in /lib/modules/*/; do
    [ -e "/boot/vmlinuz-$(basename "$dir")" ] || continue
    ls "$dir"kernel/drivers/input/misc/uinput.ko* >/dev/null 2>&1 || continue
    ls "$dir"kernel/drivers/input/evdev.ko* >/dev/null 2>&1 && return 0
  done
  return 1
}

apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  say "installing $* with apt-get"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "$@" >&2 && return 0
  $sudo apt-get update -qq >&2 || true
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "$@" >&2
}

# The guest's ingredients: without these no guest can boot (SKIP).
guest_missing=()
command -v qemu-system-x86_64 >/dev/null 2>&1 || guest_missing+=(qemu-system-x86)
is_static_busybox || guest_missing+=(busybox-static)
command -v cpio >/dev/null 2>&1 || guest_missing+=(cpio)
have_kernel_modules || guest_missing+=(linux-image-amd64)
command -v xz >/dev/null 2>&1 || guest_missing+=(xz-utils)
if [ "${#guest_missing[@]}" -gt 0 ]; then
  apt_install "${guest_missing[@]}" || skip "could not install ${guest_missing[*]}"
  command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "no qemu-system-x86_64 after installing qemu-system-x86"
  is_static_busybox || skip "no static /bin/busybox after installing busybox-static"
  have_kernel_modules || skip "no kernel with evdev.ko and uinput.ko after installing linux-image-amd64"
fi
# The build's: missing ones are failures of the project's set-up, not skips.
build_missing=()
[ -e /usr/include/libevdev-1.0/libevdev/libevdev.h ] || build_missing+=(libevdev-dev)
command -v gcc >/dev/null 2>&1 || build_missing+=(gcc)
[ -e "$(gcc -print-file-name=libc.a 2>/dev/null || echo /nonexistent)" ] || build_missing+=(libc6-dev)
command -v python3 >/dev/null 2>&1 || build_missing+=(python3)
if [ "${#build_missing[@]}" -gt 0 ]; then
  apt_install "${build_missing[@]}" || die "could not install ${build_missing[*]}"
fi
if ! command -v swift >/dev/null 2>&1; then
  for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    if [ -x "$dir/swift" ]; then PATH="$dir:$PATH"; break; fi
  done
fi
command -v swift >/dev/null 2>&1 || die "no Swift toolchain on PATH"

# --------------------------------------------------------------- kernel

# The newest installed kernel that has both modules: its ELF vmlinux and
# the two modules, cached in .work/kernel-VERSION/ (Tests/kernel/kernel.sh).
. "$here/kernel.sh"
find_kernel "$work" || skip "$kernel_error"

# boot INITRAMFS LOG LIMIT CLOCK [APPEND...]: runs QEMU in the background
# (killed by the EXIT trap if this script ends first) and waits for it.
# CLOCK real: the guest's clocks follow the host's time; virtual: QEMU
# counts instructions (-icount shift=2: 4 ns each, a 250 MIPS CPU) and skips
# idle time (sleep=off), so what the guest sees of time does not depend on
# how busy the host is.
boot() {
  local initramfs="$1" log="$2" limit="$3" clock="$4"; shift 4
  local icount=()
  [ "$clock" = virtual ] && icount=(-icount shift=2,sleep=off)
  rm -f "$work/qemu.pid"
  timeout -k 5 "$limit" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 "${icount[@]}" \
    -nographic -no-reboot -nic none -pidfile "$work/qemu.pid" \
    -kernel "$vmlinux" -initrd "$initramfs" \
    -append "console=ttyS0 random.trust_cpu=on panic=-1 quiet kt.clock=$clock $*" \
    < /dev/null > "$log" 2>&1 &
  qemu_pid=$!
  local status=0
  wait "$qemu_pid" || status=$?
  qemu_pid=""
  return "$status"
}

# pack DIR OUTPUT: an uncompressed newc cpio of DIR (the kernel unpacks it
# faster than it would gunzip it under TCG).
pack() {
  (cd "$1" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$2"
}

# --------------------------------------------------------- smoke guest

# A guest that only says hello: if this does not boot, QEMU cannot run here.
smoke="$work/smoke"
if [ ! -s "$work/smoke.cpio" ] || [ /bin/busybox -nt "$work/smoke.cpio" ]; then
  rm -rf "$smoke"; mkdir -p "$smoke/bin" "$smoke/proc"
  cp /bin/busybox "$smoke/bin/busybox"
  printf '#!/bin/busybox sh\n/bin/busybox echo KTSMOKE hello\n/bin/busybox poweroff -f\n' > "$smoke/init"
  chmod +x "$smoke/init"
  pack "$smoke" "$work/smoke.cpio"
fi
t_smoke=$(now)
smoke_status=0
boot "$work/smoke.cpio" "$work/smoke.log" "$SMOKE_LIMIT" real || smoke_status=$?
boot_seconds=$(elapsed "$t_smoke")
if ! grep -q 'KTSMOKE hello' "$work/smoke.log"; then
  tr -d '\r' < "$work/smoke.log" | sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/^/  smoke guest: /' | tail -n 15
  skip "QEMU did not boot a trivial guest (status $smoke_status, ${boot_seconds} s)"
fi
say "a trivial guest boots and powers off in ${boot_seconds} s (kernel $kernel_version, TCG, PVH)"

# ----------------------------------------------------- project's parts

t_build=$(now)
cd "$root"
say "building transitiond (release, static Swift stdlib, .build-kernel/)"
build=(swift build -c release --static-swift-stdlib --product transitiond --scratch-path .build-kernel)
if ! "${build[@]}" > "$work/build.log" 2>&1; then
  grep -vE '^\[[0-9]+/[0-9]+\]' "$work/build.log" | tail -n 30 >&2
  die "the build of transitiond failed (log: ${work#"$root"/}/build.log)"
fi
bin="$("${build[@]}" --show-bin-path)"
transitiond="$bin/transitiond"
gcc -static -O2 -Wall -Wextra -Werror -o "$work/kt" "$here/kt.c" "$here/kt_filter.c" -lm || die "could not build Tests/kernel/kt.c"
build_seconds=$(elapsed "$t_build")

# The guest's file tree, rebuilt from the sources every run.
t_pack=$(now)
tree="$work/root"
rm -rf "$tree"
mkdir -p "$tree"/{bin,usr/bin,lib/modules,proc,sys,dev,tmp,run,etc,tests,recordings,refs,data,config}
cp /bin/busybox "$tree/bin/busybox"
cp "$here/guest/init" "$tree/init"
cp "$here/guest/checks.sh" "$tree/tests/checks.sh"
chmod +x "$tree/init" "$tree/tests/checks.sh"
cp "$kdir/evdev.ko" "$kdir/uinput.ko" "$tree/lib/modules/"
strip -o "$tree/usr/bin/transitiond" "$transitiond"
cp "$work/kt" "$tree/usr/bin/kt"
# The shared libraries the binary needs (and the dynamic loader), at the
# paths ldd names.
for lib in $(ldd "$transitiond" | grep -oE '/[^ ]+' | sort -u); do
  mkdir -p "$tree$(dirname "$lib")"
  cp -L "$lib" "$tree$lib"
done
printf 'root:x:0:0:root:/:/bin/sh\n' > "$tree/etc/passwd"
printf 'root:x:0:\nkiosk:x:1000:\n' > "$tree/etc/group"
cp config/example.toml "$tree/config/example.toml"
cp Recordings/*.events "$tree/recordings/"
for rec in Recordings/*.events; do
  name=$(basename "$rec" .events)
  "$transitiond" replay --fast --json --config config/example.toml "$rec" > "$tree/refs/$name.ndjson" \
    || die "replay --fast of $rec failed on the host"
done

# cut_stream IN OUT SECONDS: the first SECONDS of an evemu recording, then
# on to the end of the frame where the last finger lifts (so no gesture is
# left held).
cut_stream() {
  awk -v limit="$3" '
    !/^E: / { print; next }
    { print }
    $2 + 0 >= limit && $4 == "0039" && $5 + 0 == -1 { lifted = 1 }
    lifted && $3 == "0000" && $4 == "0000" { exit }' "$1" > "$2"
}
python3 bench/make-stream-recording.py "$work/stream-240hz.events" >/dev/null \
  || die "bench/make-stream-recording.py failed"
cut_stream "$work/stream-240hz.events" "$tree/data/stream.events" "$STREAM_SECONDS"
cut_stream "$work/stream-240hz.events" "$tree/data/flood.events" "$FLOOD_SECONDS"
python3 "$here/make-filter-recording.py" "$tree/data/filter-mix.events" \
  || die "Tests/kernel/make-filter-recording.py failed"
python3 "$here/make-health-recording.py" "$tree/data/health.events" \
  || die "Tests/kernel/make-health-recording.py failed"
pack "$tree" "$work/initramfs.cpio"
pack_seconds=$(elapsed "$t_pack")
say "initramfs: $(($(stat -c %s "$work/initramfs.cpio") / 1048576)) MiB, made in ${pack_seconds} s; build ${build_seconds} s"

# ----------------------------------------------------------------- run

# Two guests from the same initramfs. The checks that compare values
# derived from the event times (release velocities) run on the virtual
# clock, where the host's load cannot skew the moments of the uinput writes.
# The flood and the latency run on the host's clock: the flood is a race
# between a writer and a reader as the scheduler really shares the CPU, and
# the latency is measured in time as it passes.
virtual_checks="" real_checks=""
for c in replay device-lost two-panels filter dump metrics panel-health record flood latency latency-costs filter-flood filter-latency filter-latency-rules; do
  if [ "$checks" = all ] || [[ ",$checks," == *",$c,"* ]]; then
    case "$c" in
      flood|latency|latency-costs|filter-flood|filter-latency|filter-latency-rules) real_checks="${real_checks:+$real_checks,}$c" ;;
      *) virtual_checks="${virtual_checks:+$virtual_checks,}$c" ;;
    esac
  fi
done
[ -n "$virtual_checks$real_checks" ] || virtual_checks=none

passed=0 failed=0 guest_times=""
rm -f "$work"/console-*.log "$work"/results-*.txt
# guest NAME CLOCK CHECKS LIMIT GUEST_LIMIT: boots a test guest, prints its
# results and adds them to the counts.
guest() {
  local name="$1" clock="$2" list="$3" limit="$4" guest_limit="$5"
  local log="$work/console-$name.log" results="$work/results-$name.txt"
  say "guest $name ($clock clock): boot, ${list//,/, } (at most ${limit} s)"
  local t0 status=0
  t0=$(now)
  boot "$work/initramfs.cpio" "$log" "$limit" "$clock" "kt.checks=$list kt.limit=$guest_limit" || status=$?
  local seconds
  seconds=$(elapsed "$t0")
  guest_times="$guest_times, guest $name ${seconds} s"
  # The result lines; anything the kernel printed on the console is
  # ignored (a line is read from KERNELTEST on).
  grep -aoE 'KERNELTEST (PASS|FAIL|INFO|DONE).*' "$log" | tr -d '\r' > "$results" || true
  sed -nE 's/^KERNELTEST (PASS|FAIL|INFO) /\1 /p' "$results" | sed 's/^INFO /     /'
  local p f done_line
  p=$(grep -c '^KERNELTEST PASS' "$results" || true)
  f=$(grep -c '^KERNELTEST FAIL' "$results" || true)
  done_line=$(grep -m1 '^KERNELTEST DONE' "$results" || true)
  if [ -z "$done_line" ]; then
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then
      echo "FAIL guest-$name: no result after ${limit} s (timeout); console: ${log#"$root"/}"
    else
      echo "FAIL guest-$name: it stopped without its DONE line (QEMU status $status); console: ${log#"$root"/}"
    fi
    tail -n 20 "$log" | tr -d '\r' | sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/^/     console: /'
    f=$((f + 1))
  elif [ "$done_line" != "KERNELTEST DONE passed=$p failed=$f" ]; then
    echo "FAIL guest-$name: the console lost result lines ($done_line, but $p PASS and $f FAIL lines read)"
    f=$((f + 1))
  fi
  passed=$((passed + p)); failed=$((failed + f))
}

[ -z "$virtual_checks" ] || guest 1 virtual "$virtual_checks" "$VIRTUAL_LIMIT" "$VIRTUAL_GUEST_LIMIT"
[ -z "$real_checks" ] || guest 2 real "$real_checks" "$REAL_LIMIT" "$((REAL_LIMIT - 30))"

# The booted-systemd guest: the .deb in a Debian 12 root with systemd as PID 1;
# `systemd` are the unit's checks, `compositor` libinput and cage on the
# filter's copy, `filter-libinput` libinput on a copy with the [filter] rules,
# `filter-block` libinput on a copy with block = ["pinch"] and filter_regions.
systemd_checks=""
for c in systemd compositor filter-libinput filter-block; do
  if [ "$checks" = all ] || [[ ",$checks," == *",$c,"* ]]; then systemd_checks="${systemd_checks:+$systemd_checks,}$c"; fi
done
if [ -n "$systemd_checks" ]; then
  list=""
  [[ ",$systemd_checks," != *",systemd,"* ]] || list="activation, websocket, user, device, reload, restart, watchdog, filter, the docs' systemd blocks"
  [[ ",$systemd_checks," != *",compositor,"* ]] || list="${list:+$list, }compositor (libinput, cage)"
  [[ ",$systemd_checks," != *",filter-libinput,"* ]] || list="${list:+$list, }filter-libinput"
  [[ ",$systemd_checks," != *",filter-block,"* ]] || list="${list:+$list, }filter-block"
  say "guest 3 (systemd as PID 1, the .deb installed): $list"
  t0=$(now)
  status=0
  "$here/systemd/run.sh" "$transitiond" "$kdir" "$vmlinux" "$systemd_checks" > "$work/results-systemd.txt" 2>&1 || status=$?
  sed -nE 's/^KERNELTEST (PASS|FAIL) /\1 /p; s/^KERNELTEST INFO /     /p; s/^kernel: /     /p' "$work/results-systemd.txt"
  p=$(grep -c '^KERNELTEST PASS' "$work/results-systemd.txt" || true)
  f=$(grep -c '^KERNELTEST FAIL' "$work/results-systemd.txt" || true)
  if [ "$status" != 0 ] && [ "$f" = 0 ]; then
    echo "FAIL guest-systemd: exit $status"; tail -n 20 "$work/results-systemd.txt"; f=1
  fi
  passed=$((passed + p)); failed=$((failed + f))
  guest_times="$guest_times, guest systemd $(elapsed "$t0") s"
fi

say "wall time $(elapsed "$t_start") s: trivial guest ${boot_seconds} s, build ${build_seconds} s, initramfs ${pack_seconds} s${guest_times} (consoles: ${work#"$root"/}/console-*.log)"
say "$passed passed, $failed failed"
[ "$failed" = 0 ]
