#!/usr/bin/env bash
# The metrics tier: a real Prometheus (Debian's `prometheus`, with
# `promtool`) scrapes a real daemon during a paced replay, and the counters
# it reads back must match the stream (Tests/metrics/prometheus_check.py).
# Installs prometheus with apt-get when it is missing.
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
exec python3 Tests/metrics/prometheus_check.py
