#!/usr/bin/env bash
# The Python tier: the client package's tests (clients/python/tests) and the
# WebSocket conformance tests with a client that is not ours
# (Tests/websocket, Python's `websockets`), all against a real daemon.
#
#   TRANSITIOND=path/to/transitiond Tests/python-run.sh [PYTEST ARGS…]
#
# The daemon is $TRANSITIOND (default .build/release/transitiond, relative
# to the repository's root; build it first). The tests run in a virtual
# environment kept in ${XDG_CACHE_HOME:-~/.cache}/transitiond/python-venv:
# what is missing there (pytest, websockets, paho-mqtt for the MQTT bridge,
# and setuptools and wheel to install a package from a folder) is installed
# with pip (and Debian's mosquitto, the bridge's tests' broker, with apt-get), then the client
# package is installed from a copy of clients/python. Extra arguments go to
# both pytest runs (e.g. -k reconnect, -x). Ends with
# `python: N passed, M failed`; exits 1 on any failure, including a run that
# collected no tests.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
say() { echo "python: $*"; }
die() {
  say "error: $*" >&2
  say "0 passed, 1 failed"
  exit 1
}

binary="${TRANSITIOND:-.build/release/transitiond}"
case "$binary" in /*) ;; *) binary="$root/$binary" ;; esac
[ -x "$binary" ] || die "no transitiond binary at $binary (build it, or set TRANSITIOND)"
export TRANSITIOND="$binary"

python="${PYTHON:-python3}"
command -v "$python" >/dev/null 2>&1 || die "no $python on PATH"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/transitiond/python-venv"
if ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  say "making a virtual environment in $venv"
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  if ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
    # Debian's python3 makes environments only with python3-venv.
    # shellcheck source=bin/setup.sh
    source "$root/bin/setup.sh"
    transitiond_install python3-venv || die "could not install python3-venv"
  fi
  "$python" -m venv "$venv" || die "could not make a virtual environment (Debian: apt-get install python3-venv)"
fi
vpy="$venv/bin/python"
# The bridge's tests run a real broker: Debian's Mosquitto.
if ! [ -x /usr/sbin/mosquitto ] || ! [ -x /usr/bin/mosquitto_passwd ]; then
  # shellcheck source=bin/setup.sh
  source "$root/bin/setup.sh"
  transitiond_install mosquitto || die "could not install mosquitto"
fi
missing=()
"$vpy" -c 'import pytest' 2>/dev/null || missing+=(pytest)
"$vpy" -c 'import websockets.asyncio.client' 2>/dev/null || missing+=('websockets>=13')
# The MQTT bridge's extra (transitiond-client[mqtt]).
"$vpy" -c 'import paho.mqtt, sys; sys.exit(int(paho.mqtt.__version__.split(".")[0]) != 2)' 2>/dev/null \
  || missing+=('paho-mqtt>=2,<3')
"$vpy" -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 61)' 2>/dev/null \
  || missing+=('setuptools>=61')
"$vpy" -c 'import wheel' 2>/dev/null || missing+=(wheel)
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]} with pip"
  "$vpy" -m pip install -q "${missing[@]}" || die "could not install ${missing[*]}"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/transitiond-python.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# Installed from a copy, so that the build leaves nothing in the checkout.
cp -r clients/python "$work/client"
rm -rf "$work/client/build" "$work/client/src/"*.egg-info
"$vpy" -m pip install -q --no-deps --no-build-isolation --force-reinstall "$work/client" >"$work/pip.log" 2>&1 \
  || { cat "$work/pip.log" >&2; die "could not install clients/python"; }

export PYTHONDONTWRITEBYTECODE=1
passed=0 failed=0 skipped=0
run_suite() { # NAME DIR ARGS…
  local name="$1" dir="$2"; shift 2
  echo "== $name ($dir)"
  local xml="$work/$name.xml" status=0
  "$vpy" -m pytest -p no:cacheprovider --rootdir "$dir" --junitxml "$xml" -q -rfEs \
    "$dir" "$@" || status=$?
  local counts
  counts="$("$vpy" - "$xml" <<'EOF' 2>/dev/null
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
total = lambda key: sum(int(s.get(key, 0)) for s in suites)
tests, failed, skipped = total("tests"), total("failures") + total("errors"), total("skipped")
print(tests - failed - skipped, failed, skipped)
EOF
)" || counts="0 0 0"
  read -r p f s <<<"$counts"
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    # No test failed, yet pytest did not succeed: no tests (5), an
    # interruption, a usage or an internal error. That is a failure.
    echo "$name: pytest exited $status with no failed test: counted as a failure" >&2
    f=1
  fi
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}
run_suite client clients/python/tests "$@"
run_suite websocket Tests/websocket "$@"

if [ "$skipped" -gt 0 ]; then say "$skipped skipped (see the reasons above)"; fi
say "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
