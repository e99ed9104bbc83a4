#!/usr/bin/env bash
# The web tests: the JS client (clients/js) against real daemons over the
# WebSocket transport, and the demo page (clients/demo) in Debian's headless
# chromium. Installs what is missing (apt: nodejs, chromium), runs both with
# `node --test`, and ends with "web: N passed, M failed".
#
#   Tests/web/run.sh                 # the daemon is .build/release/transitiond
#   TRANSITIOND=path/to/transitiond Tests/web/run.sh
#   WEB_ARTIFACTS=DIR                # where the screenshots go (default: a temp dir, kept and printed)
#   WEB_DOCS_SCREENSHOT=1            # also copy the mid-gesture screenshot to docs/images/kiosk-web.png
#   WEB_SKIP_CHROMIUM=1              # only the client tests
set -uo pipefail

cd "$(dirname "$0")/../.."
export TRANSITIOND="${TRANSITIOND:-.build/release/transitiond}"

if [[ ! -x "$TRANSITIOND" ]]; then
  echo "web: no daemon binary at $TRANSITIOND (build it: swift build -c release, or set TRANSITIOND)" >&2
  echo "web: 0 passed, 1 failed"
  exit 1
fi

# What is missing is installed as the other commands install it (bin/setup.sh).
# shellcheck source=bin/setup.sh
source bin/setup.sh

if ! command -v node >/dev/null 2>&1; then
  transitiond_install nodejs || { echo "web: could not install nodejs" >&2; echo "web: 0 passed, 1 failed"; exit 1; }
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if (( node_major < 20 )); then
  echo "web: node $(node --version) is too old (need 20 or later)" >&2
  echo "web: 0 passed, 1 failed"
  exit 1
fi
# Node 20 has WebSocket behind a flag; 22 and later have it by default.
node_flags=()
if [[ $(node -p 'typeof WebSocket') != function ]]; then
  node_flags+=(--experimental-websocket)
fi
if [[ $(node "${node_flags[@]}" -p 'typeof WebSocket') != function ]]; then
  echo "web: this node has no WebSocket" >&2
  echo "web: 0 passed, 1 failed"
  exit 1
fi

run_chromium=1
[[ ${WEB_SKIP_CHROMIUM:-0} == 1 ]] && run_chromium=0
if [[ $run_chromium == 1 ]] && ! command -v chromium >/dev/null 2>&1; then
  transitiond_install chromium || { echo "web: could not install chromium" >&2; echo "web: 0 passed, 1 failed"; exit 1; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/transitiond-web-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
export WEB_ARTIFACTS="${WEB_ARTIFACTS:-$(mktemp -d "${TMPDIR:-/tmp}/transitiond-web-screenshots.XXXXXX")}"

passed=0
failed=0
# Runs one group of test files; adds its counts from the TAP summary.
run_group() {
  local name=$1; shift
  local tap="$work/$name.tap"
  node "${node_flags[@]}" --test --test-concurrency=1 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
  local status=$?
  local p f
  p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$tap" | tail -1)
  f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$tap" | tail -1)
  p=${p:-0}; f=${f:-0}
  if [[ $status != 0 && $f == 0 ]]; then f=1; fi   # the runner itself failed
  passed=$((passed + p))
  failed=$((failed + f))
}

ms() { echo $(( $(date +%s%N) / 1000000 )); }
seconds() { printf '%d.%d' $(( $1 / 1000 )) $(( $1 % 1000 / 100 )); }
start=$(ms)
run_group client Tests/web/client.test.mjs Tests/web/client-snap.test.mjs Tests/web/client-frames.test.mjs
client_seconds=$(seconds $(( $(ms) - start )))

if [[ $run_chromium == 1 ]]; then
  start=$(ms)
  run_group chromium Tests/web/chromium.test.mjs Tests/web/chromium-snap.test.mjs Tests/web/chromium-frames.test.mjs
  chromium_seconds=$(seconds $(( $(ms) - start )))
  echo "web: client tests ${client_seconds} s; chromium adds ${chromium_seconds} s; screenshots in $WEB_ARTIFACTS"
else
  echo "web: client tests ${client_seconds} s; chromium skipped (WEB_SKIP_CHROMIUM=1)"
fi

echo "web: $passed passed, $failed failed"
[[ $failed == 0 ]]
