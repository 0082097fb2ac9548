#!/usr/bin/env bash
# tests/release.sh [SECONDS] -- the release suite's long runs, beyond what
# .ci/run does in its budget: the whole test suite under the sanitizers
# (build-asan: nothing left out, every allocation failed); every libFuzzer harness for SECONDS each
# (default 600; CI fuzzes 10 s each), in build-fuzz; then the suite's line
# and branch coverage against its targets (tests/coverage.sh, build-cov)
# and the mutation score of tests/mutants.txt (tests/mutants.sh,
# build-mut), one after the other.  Run it before a release from a checkout
# with the packages of .ci/install-deps --ci.
# Exit status: 0 when every part passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
SECS=${1:-600}
status=0
echo "== release: the whole suite under ASan + UBSan (build-asan), every allocation failed in turn"
# CI's sanitizer stage leaves out the long end-to-end scripts, and the
# suite's test_failalloc fails only the first 3 allocations at each call
# site (CS_FAILALLOC_PER_SITE; CI's sanitizer stage, with CS_TEST_SMALL,
# the first one); here nothing is left out.
{ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCS_WERROR=ON -DCS_SANITIZE=ON > /dev/null &&
    cmake --build build-asan -j"${JOBS:-$(nproc)}" > /dev/null &&
    (cd build-asan && CS_FAILALLOC_FULL=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --output-on-failure -j"${JOBS:-$(nproc)}"); } || status=1
echo "== release: fuzzing each harness for $SECS s"
JOBS=${JOBS:-$(nproc)} tests/fuzz/run.sh "$SECS" build-fuzz || status=1
echo "== release: coverage (tests/coverage.sh)"
tests/coverage.sh build-cov || status=1
echo "== release: mutants (tests/mutants.sh)"
tests/mutants.sh || status=1
echo "== release: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
