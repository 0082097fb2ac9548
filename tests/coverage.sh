#!/usr/bin/env bash
# tests/coverage.sh [BUILD_DIR] -- line and branch coverage of the test
# suite (issue 29), part of the release suite (tests/release.sh), not CI.
#
# Builds cowsim and its tests with gcc --coverage at -O0 in BUILD_DIR
# (with CS_COVERAGE defined: forked children -- the HDF5 sandbox, sweep
# workers -- write their counters before _exit, sim/cs_exit.h)
# (default build-cov, its own directory: the normal build is untouched),
# zeroes the counters, runs the whole ctest suite (ctest -j$JOBS, default
# nproc; COV_CTEST_ARGS adds ctest arguments, e.g. "-R ^mech_" for a quick
# look at a few tests; COV_ACCUMULATE=1 keeps the counters of earlier runs,
# so that a test added since the last run is measured without running the
# whole suite again; objects rebuilt since then -- a new commit changes
# CS_GIT_COMMIT and rebuilds analysis/ and above -- lose their earlier
# counts, so trust only the layers that were not rebuilt),
# (test_failalloc's entries also fail every 10th allocation cJSON makes,
# CS_FAILALLOC_CJSON_EVERY, default 10 here: in the suite cJSON's
# allocations count as one call site, so only the first few of a command
# fail and the failure paths of its later cJSON calls go unmeasured),
# then captures the counters with lcov and prints lines and branches per
# layer (core, agents, sim, analysis, cli) against the targets below
# (exactly: hit x 100 >= target x total in integers; the percentages shown
# are rounded down to two decimals), and
# writes the HTML report to BUILD_DIR/coverage/index.html (genhtml).
# Needs lcov (.ci/install-deps --ci).
# Exit status: 0 when the suite passed and every target holds, 1 when a
# test failed or a layer is below its target, 2 when lcov is missing or the
# build failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
SRC=$(pwd)
B=${1:-build-cov}
JOBS=${JOBS:-$(nproc)}
for t in lcov genhtml; do
    command -v "$t" > /dev/null || { echo "coverage.sh: $t not found (apt-get install lcov)" >&2; exit 2; }
done
# Targets (issue 29): layer, lines %, branches % (0 = none).
TARGETS="core 98 90
agents 95 85
sim 93 0
analysis 95 85
cli 0 0"

RC=(--rc lcov_branch_coverage=1)
echo "== coverage: build with --coverage in $B"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Debug -DCS_WERROR=ON -DCMAKE_C_FLAGS_DEBUG="-O0 -g --coverage -DCS_COVERAGE" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage \
    -DCMAKE_MODULE_LINKER_FLAGS=--coverage > /dev/null || exit 2
cmake --build "$B" -j"$JOBS" > /dev/null || exit 2
if [ "${COV_ACCUMULATE:-0}" != 1 ]; then lcov -q --zerocounters --directory "$B" || exit 2; fi

# libgcov's own complaints (a test that caps a child's file size, RLIMIT_FSIZE,
# also stops it writing its counters) go to a file, not into the stderr the
# tests check.
export GCOV_ERROR_FILE="$(cd "$B" && pwd)/gcov-errors.log"
CTEST_ARGS=${COV_CTEST_ARGS:-}
export CS_FAILALLOC_CJSON_EVERY=${CS_FAILALLOC_CJSON_EVERY:-10}
echo "== coverage: the test suite (ctest -j$JOBS $CTEST_ARGS)"
status=0
# shellcheck disable=SC2086 # CTEST_ARGS is a list of words
(cd "$B" && ctest -j"$JOBS" --output-on-failure $CTEST_ARGS) > "$B/coverage-ctest.log" 2>&1 || {
    status=1
    grep -E "tests passed|Failed|\*\*\*" "$B/coverage-ctest.log" >&2
}
tail -n 3 "$B/coverage-ctest.log"

echo "== coverage: capture"
INFO="$B/coverage.info"
IGN=()
[ "${COV_ACCUMULATE:-0}" = 1 ] && IGN=(--ignore-errors gcov) # stale counters of rebuilt objects
lcov -q "${RC[@]}" "${IGN[@]}" --capture --directory "$B" --output-file "$B/coverage-all.info" 2> /dev/null || exit 2
lcov -q "${RC[@]}" --extract "$B/coverage-all.info" "$SRC/core/*" "$SRC/agents/*" "$SRC/sim/*" \
    "$SRC/analysis/*" "$SRC/cli/*" --output-file "$INFO" 2> /dev/null || exit 2

# pct HIT FOUND: a percentage with two decimals, rounded down (never shown
# above the target when it is below).
pct() { awk -v h="$1" -v f="$2" 'BEGIN { if (f == 0) print "100.00"; else printf "%.2f", int(10000 * h / f) / 100 }'; }
# below HIT FOUND TARGET: true when HIT / FOUND < TARGET %, compared
# exactly in integers (HIT x 100 < TARGET x FOUND), not on the rounded
# percentage (84.99 % is below 85).
below() { [ "$2" -gt 0 ] && [ $(($1 * 100)) -lt $(($3 * $2)) ]; }
echo "(a layer meets a target when hit x 100 >= target x total, in integers: exact, not rounded)"
printf '%-10s %20s %20s   %s\n' layer "lines %" "branches %" "target (lines / branches)"
while read -r layer tl tb; do
    # The tracefile's per-file counters: LF/LH lines, BRF/BRH branches.
    read -r lf lh brf brh < <(awk -v d="$SRC/$layer/" '
        /^SF:/ { on = index(substr($0, 4), d) == 1 }
        on && /^LF:/ { lf += substr($0, 4) }  on && /^LH:/ { lh += substr($0, 4) }
        on && /^BRF:/ { bf += substr($0, 5) } on && /^BRH:/ { bh += substr($0, 5) }
        END { print lf + 0, lh + 0, bf + 0, bh + 0 }' "$INFO")
    l=$(pct "$lh" "$lf")
    b=$(pct "$brh" "$brf")
    verdict=ok
    if below "$lh" "$lf" "$tl" || below "$brh" "$brf" "$tb"; then
        verdict="BELOW TARGET"
        status=1
    fi
    printf '%-10s %6s (%5d/%5d) %6s (%5d/%5d)   %s / %s %s\n' "$layer" "$l" "$lh" "$lf" "$b" "$brh" "$brf" \
        "$tl" "$tb" "$verdict"
done <<< "$TARGETS"

genhtml -q "${RC[@]}" --branch-coverage --prefix "$SRC" -o "$B/coverage" "$INFO" > /dev/null 2>&1 || exit 2
echo "== coverage: HTML report in $B/coverage/index.html"
exit $status
