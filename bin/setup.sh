# Shared set-up for bin/transitiond and bin/test (sourced, not run): finds
# the Swift toolchain and installs the Debian packages the build and the
# tests need when they are missing, so both commands work on a fresh machine.

# Debian packages the project needs (name of a file each provides : package).
TRANSITIOND_PACKAGES=(
  "/usr/bin/python3:python3"
  "/usr/bin/pkg-config:pkg-config"
  "/usr/bin/socat:socat"
  "/usr/bin/systemd-socket-activate:systemd"
  "/usr/bin/systemd-analyze:systemd"
  "/usr/bin/man:man-db"
  "/usr/bin/lintian:lintian"
  "/usr/bin/dpkg-deb:dpkg"
  "/usr/include/libevdev-1.0/libevdev/libevdev.h:libevdev-dev"
  "/usr/bin/rsvg-convert:librsvg2-bin"
)

transitiond_setup() {
  if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
      if [ -x "$dir/swift" ]; then PATH="$dir:$PATH"; export PATH; break; fi
    done
  fi
  if ! command -v swift >/dev/null 2>&1; then
    echo "transitiond: no Swift toolchain found (need Swift 6 on PATH)" >&2
    return 69
  fi
  local missing=()
  for entry in "${TRANSITIOND_PACKAGES[@]}"; do
    local file="${entry%%:*}" package="${entry##*:}"
    if [ ! -e "$file" ]; then missing+=("$package"); fi
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "transitiond: installing ${missing[*]} with apt-get" >&2
    local sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq >&2 && \
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2 || {
        echo "transitiond: could not install ${missing[*]}" >&2
        return 69
      }
  fi
}
