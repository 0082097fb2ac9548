#!/usr/bin/env bash
# tests/tsan.sh [BUILD_DIR] -- cowsim's threads under ThreadSanitizer.
#
# The run file's writer compresses chunks on a helper thread (sim/
# cs_h5_writer.c) while the main thread fills the next ones; this builds
# cowsim alone with CS_TSAN (default BUILD_DIR build-tsan) and drives that
# hand-off where it is busiest and where it stops:
#   1. `bench memory --quick`: bench-large's per-fire rows fill the job ring,
#      so the main thread retires the chunk the helper is waiting on (the
#      data race ThreadSanitizer found there, now mended, showed here on
#      every run);
#   2. the same scenario interrupted by SIGINT mid-run: the writer closes
#      with jobs in flight and the file is left marked incomplete (exit 130).
# Any report fails the script (halt_on_error, exit code 66).  The rest of
# the test suite is single-threaded, and its fault-injection tests (signals
# on truncated maps, allocation shims) do not run under ThreadSanitizer.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
B=${1:-build-tsan}
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCS_WERROR=ON -DCS_TSAN=ON > /dev/null || exit 1
cmake --build "$B" -j"${JOBS:-$(nproc)}" --target cowsim > /dev/null || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
"$B/cowsim" bench memory --quick > "$tmp/memory.txt" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    echo "tsan: bench memory --quick exited $rc"
    grep -A14 'WARNING: ThreadSanitizer' "$tmp/memory.txt" | head -40
    fail=1
else
    echo "tsan: bench memory --quick: no report"
fi
"$B/cowsim" run scenarios/bench-large.json --set blocks=100000 -o "$tmp/int" --quiet > "$tmp/int.txt" 2>&1 &
pid=$!
# Interrupt once the run has been writing for a while (its work file is
# there from the first block; some 1,000 blocks, a dozen /fires chunks,
# pass under ThreadSanitizer in 3 s).
for _ in $(seq 1 600); do
    { [ -e "$tmp/int/eip1559.h5.work" ] || [ -e "$tmp/int/eip1559.h5" ]; } && break
    sleep 0.1
done
sleep 3
kill -INT "$pid" 2> /dev/null
wait "$pid"
rc=$?
if [ $rc -ne 130 ]; then
    echo "tsan: the interrupted run exited $rc, not 130"
    grep -A14 'WARNING: ThreadSanitizer' "$tmp/int.txt" | head -40
    tail -3 "$tmp/int.txt"
    fail=1
elif ! grep -q 'complete = 0' "$tmp/int.txt"; then
    echo "tsan: the interrupted run did not say its file is incomplete:"
    tail -3 "$tmp/int.txt"
    fail=1
else
    echo "tsan: interrupted run: no report, $(grep -o 'interrupted at block [0-9]*' "$tmp/int.txt")"
fi
exit $fail
