#!/usr/bin/env bash
# The metrics tier: a real Prometheus (Debian's `prometheus`, with
# `promtool`) scrapes a real daemon during a paced replay, and the counters
# it reads back must match the stream (Tests/metrics/prometheus_check.py);
# the fleet's pieces in contrib/prometheus pass promtool (the agent's config
# as the unit renders it, the alerting rules and their unit tests) and
# systemd-analyze (the agent's unit); and a kiosk's agent remote-writes a
# real daemon to a second Prometheus, through an outage of it
# (Tests/metrics/remote_write_check.py). Installs prometheus with apt-get
# when it is missing.
#
#   TRANSITIOND=path/to/transitiond Tests/metrics/run.sh
#
# Ends with `metrics: N passed, M failed`; exits 1 on any failure.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  # shellcheck source=bin/setup.sh
  source "$root/bin/setup.sh"
  transitiond_install prometheus || {
    echo "metrics: 0 passed, 1 failed"
    exit 1
  }
fi
passed=0
failed=0
contrib=contrib/prometheus
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# step NAME COMMAND...: one check, its output shown only when it fails.
step() {
  local name="$1" output
  shift
  if output="$("$@" 2>&1)"; then
    echo "ok    $name"
    passed=$((passed + 1))
  else
    echo "FAIL  $name"
    printf '%s\n' "$output" | sed 's/^/      /'
    failed=$((failed + 1))
  fi
}

# part SCRIPT: a Python check; its own summary line adds to the tier's.
part() {
  local line counted=no
  while IFS= read -r line; do
    if [[ $line =~ ^metrics:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
      passed=$((passed + BASH_REMATCH[1]))
      failed=$((failed + BASH_REMATCH[2]))
      counted=yes
    else
      printf '%s\n' "$line"
    fi
  done < <(python3 "$1")
  if [ "$counted" = no ]; then
    echo "FAIL  $1 ended without its summary"
    failed=$((failed + 1))
  fi
}

# The agent's config as its unit renders it with only the required URL set
# (every other value its default), checked in agent mode.
step "the agent's config renders with the defaults" \
  env -u INSTANCE -u METRICS_TARGET -u SCRAPE_INTERVAL REMOTE_WRITE_URL=https://prometheus.example.net/api/v1/write \
  "$contrib/transitiond-prometheus-agent-config" "$contrib/agent.yml" "$work/agent.yml"
step "promtool check config --agent accepts it" promtool check config --agent "$work/agent.yml"
refuses() { ! "$@"; }
step "the renderer refuses to run without REMOTE_WRITE_URL" \
  refuses env -u REMOTE_WRITE_URL "$contrib/transitiond-prometheus-agent-config" "$contrib/agent.yml" "$work/none.yml"
step "promtool check rules accepts the fleet's rules" promtool check rules "$contrib/rules.yml"
step "promtool test rules: each alert fires, and does not" promtool test rules "$contrib/rules_test.yml"
if command -v systemd-analyze >/dev/null 2>&1; then
  # The unit names the renderer where the package installs it; here it is
  # in the sources (systemd-analyze checks that ExecStart*= programs exist).
  mkdir "$work/units"
  sed "s|/usr/libexec/transitiond/|$root/$contrib/|" systemd/transitiond-prometheus-agent.service \
    > "$work/units/transitiond-prometheus-agent.service"
  # No output at all: a warning is a failure too.
  verify_quietly() { local out; out="$(systemd-analyze verify --man=no "$1" 2>&1)" && [ -z "$out" ] || { echo "$out"; return 1; }; }
  step "systemd-analyze verify accepts the agent's unit" verify_quietly "$work/units/transitiond-prometheus-agent.service"
else
  echo "skip  systemd-analyze verify of the agent's unit (no systemd-analyze)"
fi

part Tests/metrics/prometheus_check.py
part Tests/metrics/remote_write_check.py
echo "metrics: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
