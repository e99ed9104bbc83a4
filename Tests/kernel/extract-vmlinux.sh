#!/usr/bin/env bash
# extract-vmlinux.sh BZIMAGE OUTPUT
# Writes the uncompressed ELF kernel (vmlinux) held in a bzImage. The bzImage's
# payload is one compressed stream (xz on Debian; gzip and zstd are tried too):
# find each candidate magic, decompress from there and keep the first result
# that is an ELF file. QEMU boots the ELF through its PVH entry point.
set -euo pipefail
in="$1" out="$2"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT

# try MAGIC-REGEX DECOMPRESSOR...: each offset where MAGIC occurs, in order.
try() {
  local magic="$1"; shift
  local offset
  for offset in $(LC_ALL=C grep -obUaP "$magic" "$in" | cut -d: -f1); do
    # The payload is followed by other bytes: a decompressor that stops at the
    # end of its first stream (or complains after it) still leaves the ELF.
    tail -c "+$((offset + 1))" "$in" | "$@" > "$tmp" 2>/dev/null || true
    if [ "$(head -c 4 "$tmp" | od -An -c | tr -d ' \n')" = '177ELF' ]; then
      mv "$tmp" "$out"
      return 0
    fi
  done
  return 1
}

try '\xfd\x37\x7a\x58\x5a\x00' xz -dc --single-stream && exit 0
try '\x1f\x8b\x08' gzip -dc && exit 0
if command -v zstd >/dev/null 2>&1; then
  try '\x28\xb5\x2f\xfd' zstd -dc && exit 0
fi
echo "extract-vmlinux: no ELF kernel found in $in" >&2
exit 1
