# The booted-systemd guest's shared steps (sourced, not run): the Debian 12
# root, the project's .deb in it, the packing and the boot. Used by the
# tier's systemd guest (Tests/kernel/systemd/run.sh) and by the benchmarks
# that run in that guest (bench/lisgd.sh), so that both boot the same
# system. Each function prints what went wrong on stderr and returns 1 with
# guest_error set.

guest_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
guest_cache="${XDG_CACHE_HOME:-$HOME/.cache}/transitiond"

# debootstrap once; the tarball is reused until the package list changes.
# The compositor check's stack: libinput10, cage (wlroots 0.15) with wev as
# its client, seatd for cage's session; curl, which the docs' examples use;
# and the `libinput` tool (debug-events, list-devices) taken from
# libinput-tools without the rest of that package, whose dependencies
# (GTK 3, Python) would triple the root. A benchmark that needs more adds
# it with systemd_root's PACKAGES rather than here: a change of this list
# rebuilds the cached root (two to three minutes) for everyone who shares
# the cache.
guest_packages="systemd,systemd-sysv,udev,dbus,kmod,procps,init-system-helpers,libevdev2,libinput10,cage,wev,seatd,curl"
guest_extras="libinput-tools:usr/bin/libinput,usr/libexec/libinput/libinput-debug-events,usr/libexec/libinput/libinput-list-devices"

# systemd_base WORK: makes the cached root tarball when it is missing or was
# made from another list; sets guest_base (its path).
systemd_base() {
  local work="$1" mirror t0 extra f
  guest_base="$guest_cache/bookworm-minbase.tar"
  mkdir -p "$guest_cache" "$work"
  if [ -s "$guest_base" ] && [ "$(cat "$guest_base.packages" 2>/dev/null)" = "$guest_packages $guest_extras" ]; then
    return 0
  fi
  command -v debootstrap >/dev/null 2>&1 || {
    echo "kernel: systemd guest: installing debootstrap with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 debootstrap >&2
  }
  mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  t0=$(date +%s)
  echo "kernel: systemd guest: debootstrap bookworm (minbase + systemd) from ${mirror:-http://deb.debian.org/debian}, once"
  rm -rf "$work/debootstrap"
  debootstrap --variant=minbase --include="$guest_packages" bookworm "$work/debootstrap" "${mirror:-http://deb.debian.org/debian}" \
    > "$work/debootstrap.log" 2>&1 || { tail -n 20 "$work/debootstrap.log" >&2; guest_error="debootstrap failed"; return 1; }
  # The extras: PACKAGE:FILE,FILE... fetched with apt-get download (the
  # host is Debian 12 too), only those files unpacked into the root.
  rm -rf "$work/extras"; mkdir -p "$work/extras"
  for extra in $guest_extras; do
    (cd "$work/extras" && apt-get download -q "${extra%%:*}" > "$work/extras.log" 2>&1) \
      || { apt-get update -qq > /dev/null 2>&1; (cd "$work/extras" && apt-get download -q "${extra%%:*}" > "$work/extras.log" 2>&1); } \
      || { cat "$work/extras.log" >&2; guest_error="apt-get download ${extra%%:*} failed"; return 1; }
    dpkg-deb -x "$work/extras/${extra%%:*}"_*.deb "$work/extras/tree"
    for f in $(echo "${extra#*:}" | tr ',' ' '); do
      mkdir -p "$work/debootstrap/$(dirname "$f")"
      cp -a "$work/extras/tree/$f" "$work/debootstrap/$f"
    done
  done
  rm -rf "$work/extras"
  tar -C "$work/debootstrap" -cf "$guest_base.tmp" . && mv "$guest_base.tmp" "$guest_base"
  echo "$guest_packages $guest_extras" > "$guest_base.packages"
  rm -rf "$work/debootstrap"
  echo "kernel: systemd guest: debootstrap took $(($(date +%s) - t0)) s ($(du -m "$guest_base" | cut -f1) MiB, cached in $guest_cache)"
}

# systemd_root TREE BINARY WORK [PACKAGE...]: a fresh root in TREE from the
# cached tarball, with the .deb that bin/package makes from BINARY (the
# release transitiond) installed by dpkg, the PACKAGEs from the host's
# Debian mirror with what they depend on that the root lacks (apt-get
# download on the host, dpkg -i in the root: the root has no apt lists), and
# what booting systemd as the initramfs's /init needs.
systemd_root() {
  local tree="$1" binary="$2" work="$3"; shift 3
  local root deb
  root="$(cd "$guest_here/../../.." && pwd)"
  systemd_base "$work" || return 1
  rm -rf "$tree"; mkdir -p "$tree"
  tar -C "$tree" -xf "$guest_base"
  deb=$(TRANSITIOND_BINARY="$binary" "$root/bin/package" --output "$work/deb" 2> "$work/package.log" | tail -n 1) \
    || { cat "$work/package.log" >&2; guest_error="bin/package failed"; return 1; }
  cp "$deb" "$tree/tmp/transitiond.deb"
  chroot "$tree" dpkg -i /tmp/transitiond.deb > "$work/dpkg.log" 2>&1 \
    || { cat "$work/dpkg.log" >&2; guest_error="dpkg -i failed"; return 1; }
  rm "$tree/tmp/transitiond.deb"
  if [ $# -gt 0 ]; then
    local wanted missing
    wanted=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
      --no-replaces --no-enhances "$@" 2>/dev/null | grep -v '^[ <]' | sort -u)
    missing=$(chroot "$tree" dpkg-query -W -f '${Package}\n' 2>/dev/null | sort -u | comm -13 - <(echo "$wanted"))
    rm -rf "$work/packages"; mkdir -p "$work/packages"
    if [ -n "$missing" ]; then
      # shellcheck disable=SC2086  # the names are words
      (cd "$work/packages" && apt-get download -q $missing > "$work/packages.log" 2>&1) \
        || { apt-get update -qq > /dev/null 2>&1; (cd "$work/packages" && apt-get download -q $missing > "$work/packages.log" 2>&1); } \
        || { cat "$work/packages.log" >&2; guest_error="apt-get download of $(echo $missing) failed"; return 1; }
      mkdir -p "$tree/tmp/packages"
      cp "$work/packages"/*.deb "$tree/tmp/packages/"
      chroot "$tree" sh -c 'dpkg -i /tmp/packages/*.deb' > "$work/packages-dpkg.log" 2>&1 \
        || { cat "$work/packages-dpkg.log" >&2; guest_error="dpkg -i of $(echo $missing) failed"; return 1; }
      rm -rf "$tree/tmp/packages"
    fi
  fi
  ln -sf /lib/systemd/systemd "$tree/init"
  ln -sf /dev/null "$tree/etc/systemd/system/serial-getty@ttyS0.service"
  ln -sf /dev/null "$tree/etc/systemd/system/getty@tty1.service"
  echo kiosk > "$tree/etc/hostname"
  : > "$tree/etc/machine-id"
}

# systemd_pack TREE OUTPUT: an uncompressed newc cpio of TREE (the kernel
# unpacks it faster than it would gunzip it under TCG).
systemd_pack() {
  (cd "$1" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$2"
}

# systemd_boot INITRAMFS VMLINUX LOG LIMIT [APPEND...]: boots systemd as PID
# 1 from INITRAMFS (2 GiB, 2 CPUs) with the serial console in LOG, within
# LIMIT seconds (timeout kills QEMU after that); returns QEMU's status.
# TCG, as the rest of the tier: KVM is not usable on every machine of this
# kind (nested, QEMU aborts setting an MSR); KERNEL_TIER_KVM=1 tries it.
systemd_boot() {
  local initramfs="$1" vmlinux="$2" log="$3" limit="$4"; shift 4
  local accel=tcg cpu=max
  if [ "${KERNEL_TIER_KVM:-0}" = 1 ] && [ -w /dev/kvm ]; then accel=kvm cpu=host; fi
  guest_accel=$accel
  timeout -k 5 "$limit" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 2048 -smp 2 \
    -nographic -no-reboot -nic none \
    -kernel "$vmlinux" -initrd "$initramfs" \
    -append "console=ttyS0 rdinit=/init random.trust_cpu=on panic=-1 systemd.show_status=0 loglevel=3 $*" \
    < /dev/null > "$log" 2>&1
}
