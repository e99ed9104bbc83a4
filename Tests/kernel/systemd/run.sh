#!/usr/bin/env bash
# The booted-systemd guest of the real-kernel tier: a Debian 12 root made
# with debootstrap (cached outside the checkout, in
# ${XDG_CACHE_HOME:-~/.cache}/transitiond/), the project's .deb installed in
# it with dpkg, systemd as PID 1 under QEMU, transitiond.socket enabled.
# Tests/kernel/systemd/checks.sh runs there once the system is up: socket
# activation, the daemon's user, a uinput touchscreen through the hardened
# service, systemctl reload, a crash and a watchdog kill with restarts, the
# docs' blocks marked `<!-- example: systemd -->` (extracted here by
# Tests/examples/examples.py --extract systemd), systemd-analyze security and
# the journal.
#
#   Tests/kernel/systemd/run.sh BINARY KDIR VMLINUX [CHECKS]
#
# BINARY: the release transitiond (static Swift stdlib); KDIR: the folder
# with evdev.ko and uinput.ko; VMLINUX: the kernel (Tests/kernel/run.sh
# passes its own); CHECKS: `systemd` (the unit's checks), `compositor`
# (libinput and cage on the filter's copy), `filter-libinput` (libinput on a
# copy with the [filter] rules), `filter-block` (libinput on a copy with
# block = ["pinch"], and the UI's filter_regions), comma-separated (default:
# all four).
# Prints `KERNELTEST …` result lines; exits 1 on a failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
work="$here/../.work/systemd"
binary="$1" kdir="$2" vmlinux="$3" checks="${4:-systemd,compositor,filter-libinput,filter-block}"
LIMIT=${SYSTEMD_GUEST_LIMIT:-420}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "kernel: systemd guest: $*"; }
mkdir -p "$work"

# ------------------------------------------------------------ the root

# The Debian 12 root (debootstrap once, cached as a tarball) with the
# package from this build's release binary installed by dpkg
# (Tests/kernel/systemd/guest.sh, shared with bench/lisgd.sh).
. "$here/guest.sh"
t_pack=$(now)
tree="$work/root"
systemd_root "$tree" "$binary" "$work" || { echo "KERNELTEST FAIL systemd-guest: $guest_error"; exit 1; }
[ -L "$tree/etc/systemd/system/sockets.target.wants/transitiond.socket" ] \
  || { echo "KERNELTEST FAIL systemd-guest: the package did not enable transitiond.socket"; exit 1; }
# The WebSocket and metrics listeners are off by default; the docs' blocks
# enable them in the guest (checks.sh), as a kiosk would.
for unit in transitiond-websocket.socket transitiond-metrics.socket; do
  [ ! -e "$tree/etc/systemd/system/sockets.target.wants/$unit" ] \
    || { echo "KERNELTEST FAIL systemd-guest: the package enabled $unit by itself"; exit 1; }
done

# The checks, their helper and data; what the boot needs.
mkdir -p "$tree/usr/local/lib/kt"
cp "$here/checks.sh" "$tree/usr/local/lib/kt/checks.sh"
cp "$here/kt-systemd.service" "$tree/etc/systemd/system/kt-systemd.service"
ln -sf /etc/systemd/system/kt-systemd.service "$tree/etc/systemd/system/multi-user.target.wants/kt-systemd.service"
cp "$kdir/evdev.ko" "$kdir/uinput.ko" "$tree/usr/local/lib/kt/"
gcc -static -O2 -o "$tree/usr/local/lib/kt/kt" "$here/../kt.c" "$here/../kt_filter.c" -lm
cp "$root/Recordings/back-drag-finish.events" "$tree/usr/local/lib/kt/gesture.events"
python3 "$here/../make-filter-recording.py" "$tree/usr/local/lib/kt/filter-mix.events"
python3 "$here/../make-filter-recording.py" --compositor "$tree/usr/local/lib/kt/compositor.events"
python3 "$here/../make-filter-recording.py" --libinput "$tree/usr/local/lib/kt/libinput.events"
python3 "$here/../make-filter-recording.py" --block "$tree/usr/local/lib/kt/block.events"
python3 "$here/../make-filter-recording.py" --block-pinch "$tree/usr/local/lib/kt/block-pinch.events"
"$binary" replay --fast --json --config "$root/config/kiosk.toml" "$root/Recordings/back-drag-finish.events" \
  > "$tree/usr/local/lib/kt/gesture.ndjson"
# The docs' blocks marked `systemd`, one script each (examples.py --extract:
# lines the mark leaves out are commented out, with why), in the documents'
# order; list names them. They say `sudo`, which a minbase root has not:
# the checks run as root, so a stand-in that runs its arguments.
mkdir -p "$tree/usr/local/lib/kt/examples" "$tree/usr/local/bin"
python3 "$root/Tests/examples/examples.py" --extract systemd "$tree/usr/local/lib/kt/examples" \
  > "$tree/usr/local/lib/kt/examples/list" 2> "$work/examples.log" \
  || { cat "$work/examples.log" >&2; echo "KERNELTEST FAIL systemd-guest: examples.py --extract systemd failed"; exit 1; }
! grep -v '\.sh$' "$tree/usr/local/lib/kt/examples/list" \
  || { echo "KERNELTEST FAIL systemd-guest: examples.py --extract systemd: the lines above"; exit 1; }
if [ ! -e "$tree/usr/bin/sudo" ]; then
  printf '#!/bin/sh\n# The kernel tier: a stand-in for sudo (the examples run as root).\nexec "$@"\n' > "$tree/usr/local/bin/sudo"
  chmod 755 "$tree/usr/local/bin/sudo"
fi
systemd_pack "$tree" "$work/initramfs.cpio"
say "root with the package: $(($(stat -c %s "$work/initramfs.cpio") / 1048576)) MiB, made in $(elapsed "$t_pack") s"

# ------------------------------------------------------------- boot

t_boot=$(now)
log="$work/console.log"
status=0
systemd_boot "$work/initramfs.cpio" "$vmlinux" "$log" "$LIMIT" "kt.checks=$checks" || status=$?
say "booted, checked and powered off in $(elapsed "$t_boot") s ($guest_accel; console: ${log#"$root"/})"
grep -aoE 'KERNELTEST (PASS|FAIL|INFO|DONE).*' "$log" | tr -d '\r' > "$work/results.txt" || true
cat "$work/results.txt"
p=$(grep -c '^KERNELTEST PASS' "$work/results.txt" || true)
f=$(grep -c '^KERNELTEST FAIL' "$work/results.txt" || true)
if ! grep -q "^KERNELTEST DONE passed=$p failed=$f" "$work/results.txt"; then
  echo "KERNELTEST FAIL systemd-guest: no DONE line (QEMU status $status)"
  tail -n 30 "$log" | tr -d '\r' | sed 's/^/     console: /'
  exit 1
fi
[ "$f" = 0 ]
