# The guest kernel of the real-kernel tier and of the benchmarks that boot
# its guests (sourced, not run): one home for finding it and extracting what
# QEMU boots.
#
#   . Tests/kernel/kernel.sh
#   find_kernel WORK || echo "$kernel_error"
#
# The newest installed kernel that has evdev.ko and uinput.ko and a
# /boot/vmlinuz-*; its ELF vmlinux (QEMU boots that through its PVH entry,
# much faster than the bzImage through SeaBIOS) and the two modules
# (decompressed) are cached in WORK/kernel-VERSION/, keyed by the bzImage's
# size and time. Sets kernel_version, kdir (the folder with evdev.ko and
# uinput.ko) and vmlinux; on failure returns 1 with kernel_error set.
find_kernel() {
  local work="$1" dir v m src stamp
  local extract
  extract="$(dirname "${BASH_SOURCE[0]}")/extract-vmlinux.sh"
  kernel_version="" kernel_error=""
  for dir in $(ls -d /lib/modules/*/ 2>/dev/null | sort -V -r); do
    v=$(basename "$dir")
    [ -e "/boot/vmlinuz-$v" ] || continue
    ls "$dir"kernel/drivers/input/misc/uinput.ko* >/dev/null 2>&1 || continue
    ls "$dir"kernel/drivers/input/evdev.ko* >/dev/null 2>&1 || continue
    kernel_version="$v"; break
  done
  if [ -z "$kernel_version" ]; then
    kernel_error="no kernel under /lib/modules with evdev.ko, uinput.ko and a /boot/vmlinuz-*"
    return 1
  fi
  kdir="$work/kernel-$kernel_version"
  vmlinux="$kdir/vmlinux"
  stamp="$(stat -c '%s %Y' "/boot/vmlinuz-$kernel_version")"
  if [ -s "$vmlinux" ] && [ "$(cat "$kdir/stamp" 2>/dev/null)" = "$stamp" ]; then return 0; fi
  echo "kernel: extracting vmlinux from /boot/vmlinuz-$kernel_version"
  rm -rf "$kdir"; mkdir -p "$kdir"
  if ! "$extract" "/boot/vmlinuz-$kernel_version" "$vmlinux"; then
    kernel_error="could not extract an ELF vmlinux from /boot/vmlinuz-$kernel_version"
    return 1
  fi
  for m in drivers/input/evdev drivers/input/misc/uinput; do
    src=$(ls "/lib/modules/$kernel_version/kernel/$m".ko* | head -n 1)
    case "$src" in
      *.ko) cp "$src" "$kdir/$(basename "$m").ko" ;;
      *.ko.xz) xz -dc "$src" > "$kdir/$(basename "$m").ko" ;;
      *.ko.zst) zstd -qdc "$src" > "$kdir/$(basename "$m").ko" ;;
      *.ko.gz) gzip -dc "$src" > "$kdir/$(basename "$m").ko" ;;
      *) kernel_error="unknown module compression: $src"; return 1 ;;
    esac
  done
  echo "$stamp" > "$kdir/stamp"
}
