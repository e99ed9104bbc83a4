# Shared set-up for the commands in bin/ (sourced, not run): finds the Swift
# toolchain, installs the Debian packages a command needs when they are
# missing, and builds the release binary with a line of progress. Each
# command asks only for what it uses, so a first replay installs libevdev
# and nothing else. Installers and the compiler write to log files under
# .build/; a terminal sees one line per step, and a failure names its log.

# Debian packages by what needs them (a file each provides : the package).
# build: compiling and linking transitiond.
TRANSITIOND_NEEDS_build=(
  "/usr/bin/pkg-config:pkg-config"
  "/usr/include/libevdev-1.0/libevdev/libevdev.h:libevdev-dev"
)
# test: what the Swift tests run beside the binary (socat as a client,
# systemd's tools on the units, man, lintian and dpkg-deb on the package,
# rsvg-convert on the plots, Python on the examples).
TRANSITIOND_NEEDS_test=(
  "${TRANSITIOND_NEEDS_build[@]}"
  "/usr/bin/python3:python3"
  "/usr/bin/socat:socat"
  "/usr/bin/systemd-socket-activate:systemd"
  "/usr/bin/systemd-analyze:systemd"
  "/usr/bin/man:man-db"
  "/usr/bin/lintian:lintian"
  "/usr/bin/dpkg-deb:dpkg"
  "/usr/bin/rsvg-convert:librsvg2-bin"
)
# package: the .deb (dpkg-deb builds it; lintian is the check the README suggests).
TRANSITIOND_NEEDS_package=(
  "${TRANSITIOND_NEEDS_build[@]}"
  "/usr/bin/dpkg-deb:dpkg"
)
# install: a service from the sources (systemd-sysusers makes its user).
TRANSITIOND_NEEDS_install=(
  "${TRANSITIOND_NEEDS_build[@]}"
  "/usr/bin/systemd-sysusers:systemd"
)
# plot: turning replay --plot's SVG into a picture (bench and docs).
TRANSITIOND_NEEDS_plot=(
  "/usr/bin/rsvg-convert:librsvg2-bin"
)

transitiond_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Where installers' and the compiler's output goes (.build is ignored by git).
transitiond_logs="$transitiond_root/.build/logs"

transitiond_say() { echo "transitiond: $*" >&2; }

# Finds swift on PATH or in the usual toolchain folders; 69 without one.
transitiond_toolchain() {
  if ! command -v swift >/dev/null 2>&1; then
    for dir in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
      if [ -x "$dir/swift" ]; then PATH="$dir:$PATH"; export PATH; break; fi
    done
  fi
  if ! command -v swift >/dev/null 2>&1; then
    transitiond_say "no Swift toolchain found (need Swift 6 on PATH)"
    return 69
  fi
}

# transitiond_install PACKAGE… — apt-get installs them in one quiet step:
# one line on stderr, dpkg's output in .build/logs/install.log.
transitiond_install() {
  [ "$#" -gt 0 ] || return 0
  mkdir -p "$transitiond_logs"
  local log="$transitiond_logs/install.log" sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  transitiond_say "installing $* (apt-get; log: ${log#"$PWD/"})"
  {
    echo "== $(date -u +%FT%TZ) apt-get install $*"
    # The package lists may be old or absent on a new machine: update first.
    $sudo apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@"
  } >>"$log" 2>&1 || {
    transitiond_say "could not install $* (see ${log#"$PWD/"})"
    return 69
  }
}

# transitiond_setup [WHAT…] — the toolchain, then what each WHAT needs
# (build, test, package, install, plot; default build), installed if missing.
transitiond_setup() {
  transitiond_toolchain || return
  local what missing=() entry file package
  for what in "${@:-build}"; do
    local -n needs="TRANSITIOND_NEEDS_$what"
    for entry in "${needs[@]}"; do
      file="${entry%%:*}" package="${entry##*:}"
      if [ ! -e "$file" ] && [[ " ${missing[*]} " != *" $package "* ]]; then missing+=("$package"); fi
    done
    unset -n needs
  done
  transitiond_install "${missing[@]}"
}

# transitiond_build_release — builds .build/release/transitiond (static Swift
# standard library) if anything changed. A terminal sees the compiler's
# [n/m] on one line; the whole output is in .build/logs/build-release.log,
# and its errors are printed when the build fails (exit 70).
transitiond_build_release() {
  mkdir -p "$transitiond_logs"
  local log="$transitiond_logs/build-release.log" status=0
  if [ ! -x "$transitiond_root/.build/release/transitiond" ]; then
    transitiond_say "building the release binary (the first build takes a few minutes; log: ${log#"$PWD/"})"
  fi
  # pipefail: the build's status, not the progress filter's.
  (set -o pipefail
   swift build -c release --static-swift-stdlib --product transitiond --package-path "$transitiond_root" 2>&1 |
     tee "$log" | transitiond_progress) || status=$?
  if [ "$status" != 0 ]; then
    grep -E "error:|warning: .*unable" "$log" >&2 || tail -n 20 "$log" >&2
    transitiond_say "build failed (the whole output: ${log#"$PWD/"})"
    return 70
  fi
}

# Reads swift build's output and shows its [n/m] on one terminal line.
transitiond_progress() {
  local line shown=""
  if [ -t 2 ]; then
    while IFS= read -r line; do
      if [[ "$line" =~ ^\[([0-9]+/[0-9]+)\] ]]; then
        printf '\r\033[Ktransitiond: building [%s]' "${BASH_REMATCH[1]}" >&2; shown=1
      fi
    done
    [ -z "$shown" ] || printf '\r\033[K' >&2
  else
    cat >/dev/null
  fi
}
