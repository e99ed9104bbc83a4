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
cache="${XDG_CACHE_HOME:-$HOME/.cache}/transitiond"
LIMIT=${SYSTEMD_GUEST_LIMIT:-420}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "kernel: systemd guest: $*"; }
mkdir -p "$work" "$cache"

# ------------------------------------------------------------ the root

# debootstrap once; the tarball is reused until the package list changes.
# The compositor check's stack: libinput10, cage (wlroots 0.15) with wev as
# its client, seatd for cage's session; curl, which the docs' examples use;
# and the `libinput` tool (debug-events, list-devices) taken from
# libinput-tools without the rest of that package, whose dependencies
# (GTK 3, Python) would triple the root.
packages="systemd,systemd-sysv,udev,dbus,kmod,procps,init-system-helpers,libevdev2,libinput10,cage,wev,seatd,curl"
extras="libinput-tools:usr/bin/libinput,usr/libexec/libinput/libinput-debug-events,usr/libexec/libinput/libinput-list-devices"
base="$cache/bookworm-minbase.tar"
if [ ! -s "$base" ] || [ "$(cat "$base.packages" 2>/dev/null)" != "$packages $extras" ]; then
  command -v debootstrap >/dev/null 2>&1 || {
    say "installing debootstrap with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 debootstrap >&2
  }
  mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  t0=$(now)
  say "debootstrap bookworm (minbase + systemd) from ${mirror:-http://deb.debian.org/debian}, once"
  rm -rf "$work/debootstrap"
  debootstrap --variant=minbase --include="$packages" bookworm "$work/debootstrap" "${mirror:-http://deb.debian.org/debian}" \
    > "$work/debootstrap.log" 2>&1 || { tail -n 20 "$work/debootstrap.log" >&2; echo "KERNELTEST FAIL systemd-guest: debootstrap failed"; exit 1; }
  # The extras: PACKAGE:FILE,FILE... fetched with apt-get download (the
  # host is Debian 12 too), only those files unpacked into the root.
  rm -rf "$work/extras"; mkdir -p "$work/extras"
  for extra in $extras; do
    (cd "$work/extras" && apt-get download -q "${extra%%:*}" > "$work/extras.log" 2>&1) \
      || { apt-get update -qq > /dev/null 2>&1; (cd "$work/extras" && apt-get download -q "${extra%%:*}" > "$work/extras.log" 2>&1); } \
      || { cat "$work/extras.log" >&2; echo "KERNELTEST FAIL systemd-guest: apt-get download ${extra%%:*} failed"; exit 1; }
    dpkg-deb -x "$work/extras/${extra%%:*}"_*.deb "$work/extras/tree"
    for f in $(echo "${extra#*:}" | tr ',' ' '); do
      mkdir -p "$work/debootstrap/$(dirname "$f")"
      cp -a "$work/extras/tree/$f" "$work/debootstrap/$f"
    done
  done
  rm -rf "$work/extras"
  tar -C "$work/debootstrap" -cf "$base.tmp" . && mv "$base.tmp" "$base"
  echo "$packages $extras" > "$base.packages"
  rm -rf "$work/debootstrap"
  say "debootstrap took $(elapsed "$t0") s ($(du -m "$base" | cut -f1) MiB, cached in $cache)"
fi

t_pack=$(now)
tree="$work/root"
rm -rf "$tree"; mkdir -p "$tree"
tar -C "$tree" -xf "$base"

# The package, from this build's release binary, installed with dpkg.
deb=$(TRANSITIOND_BINARY="$binary" "$root/bin/package" --output "$work/deb" 2> "$work/package.log" | tail -n 1) \
  || { cat "$work/package.log" >&2; echo "KERNELTEST FAIL systemd-guest: bin/package failed"; exit 1; }
cp "$deb" "$tree/tmp/transitiond.deb"
chroot "$tree" dpkg -i /tmp/transitiond.deb > "$work/dpkg.log" 2>&1 \
  || { cat "$work/dpkg.log" >&2; echo "KERNELTEST FAIL systemd-guest: dpkg -i failed"; exit 1; }
rm "$tree/tmp/transitiond.deb"
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
ln -sf /lib/systemd/systemd "$tree/init"
ln -sf /dev/null "$tree/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$tree/etc/systemd/system/getty@tty1.service"
echo kiosk > "$tree/etc/hostname"
: > "$tree/etc/machine-id"
(cd "$tree" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$work/initramfs.cpio"
say "root with the package: $(($(stat -c %s "$work/initramfs.cpio") / 1048576)) MiB, made in $(elapsed "$t_pack") s"

# ------------------------------------------------------------- boot

# TCG, as the rest of the tier: KVM is not usable on every machine of this
# kind (nested, QEMU aborts setting an MSR); KERNEL_TIER_KVM=1 tries it.
accel=tcg cpu=max
if [ "${KERNEL_TIER_KVM:-0}" = 1 ] && [ -w /dev/kvm ]; then accel=kvm cpu=host; fi
t_boot=$(now)
log="$work/console.log"
status=0
timeout -k 5 "$LIMIT" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 2048 -smp 2 \
  -nographic -no-reboot -nic none \
  -kernel "$vmlinux" -initrd "$work/initramfs.cpio" \
  -append "console=ttyS0 rdinit=/init random.trust_cpu=on panic=-1 systemd.show_status=0 loglevel=3 kt.checks=$checks" \
  < /dev/null > "$log" 2>&1 || status=$?
say "booted, checked and powered off in $(elapsed "$t_boot") s ($accel; console: ${log#"$root"/})"
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
