#!/usr/bin/env bash
# The documentation's examples tier: every fenced block of README.md, docs/
# (but docs/benchmarks.md, which bench/run generates) and clients/*/README.md
# carries an `<!-- example: … -->` mark, and each marked example is run as a
# reader would run it, in a fresh copy of the repository, against the
# binary under test (and a replay serving on a socket where it needs a
# daemon). The marks and how a block runs: Tests/examples/examples.py.
#
#   TRANSITIOND=path/to/transitiond Tests/examples/run.sh [FILE:LINE…]
#
# $TRANSITIOND defaults to .build/debug/transitiond (relative to the
# repository's root; build it first: `swift build`, which also builds the
# Swift client example beside it). Arguments keep only the examples whose
# FILE:LINE contains one of them. Prints a line per example and ends with
# `examples: N passed, M failed, K skipped`; exits 1 on any failure.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
binary="${TRANSITIOND:-.build/debug/transitiond}"
case "$binary" in /*) ;; *) binary="$root/$binary" ;; esac
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1; then
  echo "examples: no $python on PATH" >&2
  echo "examples: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
exec "$python" Tests/examples/examples.py --transitiond "$binary" "$@"
