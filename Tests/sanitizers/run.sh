#!/usr/bin/env bash
# Builds the Swift test suite with a sanitizer and runs it, the CLI tests
# running the transitiond built with it: `address` (AddressSanitizer, and
# LeakSanitizer on those transitiond processes), `thread` (ThreadSanitizer),
# or both in turn when no argument is given. Each has its own build folder
# (.build/asan, .build/tsan); the ordinary build is untouched. Exits
# non-zero when the build or a test fails or the sanitizer reports anything
# (every report is kept in .build/<folder>/reports/ and shown at the end).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/Tests/sanitizers"
cd "$root"

if [ "$#" = 0 ]; then
  status=0
  "$here/run.sh" address || status=$?
  "$here/run.sh" thread || status=$?
  exit "$status"
fi

sanitizer="$1"
case "$sanitizer" in
  address) scratch=.build/asan ;;
  thread) scratch=.build/tsan ;;
  *) echo "usage: Tests/sanitizers/run.sh [address|thread]" >&2; exit 64 ;;
esac
reports="$root/$scratch/reports"
rm -rf "$reports"
mkdir -p "$reports"

started=$SECONDS
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" || {
  status=$?
  echo "sanitizer $sanitizer: the build failed (exit $status): see its output above" >&2
  exit "$status"
}
built=$SECONDS

# Reports go to files (one per process), not into the stderr the tests read.
test_status=0
case "$sanitizer" in
  address)
    # The tests' own process keeps what a test leaves (event loops never
    # shut down, harnesses): its leaks are not the daemon's. The transitiond
    # processes it runs are leak-checked (DaemonProcess passes them
    # TRANSITIOND_CHILD_ASAN_OPTIONS).
    ASAN_OPTIONS="detect_leaks=0:log_path=$reports/asan" \
    TRANSITIOND_CHILD_ASAN_OPTIONS="detect_leaks=1:log_path=$reports/asan" \
    LSAN_OPTIONS="suppressions=$here/leaks.supp:print_suppressions=0" \
      swift test --skip-build --sanitize=address --parallel --scratch-path "$scratch" || test_status=$?
    ;;
  thread)
    TSAN_OPTIONS="log_path=$reports/tsan" \
      swift test --skip-build --sanitize=thread --parallel --scratch-path "$scratch" || test_status=$?
    ;;
esac
echo "sanitizer $sanitizer: build $((built - started)) s, tests $((SECONDS - built)) s"

found=0
for report in "$reports"/*; do
  [ -e "$report" ] || continue
  found=$((found + 1))
  echo "== $sanitizer sanitizer report: $report"
  cat "$report"
done
if [ "$found" -gt 0 ]; then
  echo "the $sanitizer sanitizer reported in $found process(es): see above" >&2
  exit 1
fi
if [ "$test_status" != 0 ]; then
  echo "sanitizer $sanitizer: the tests failed (swift test exit $test_status): see its output above" >&2
fi
exit "$test_status"
