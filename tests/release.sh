#!/usr/bin/env bash
# tests/release.sh [SECONDS] -- the release suite's long runs, beyond what
# .ci/run does in its budget: the whole test suite under the sanitizers
# (build-asan: nothing left out, every allocation failed); a soak of the
# incremental ranking against the full re-ranking (test_rank, longer and
# more histories than the suite's, under the sanitizers); an -O3 build with
# warnings as errors; every shipped scenario under every mechanism with
# cowsim built by GCC and by clang, whose datasets must be the same bytes
# (tests/compilers.sh), and on this CPU and on one with SSE2 only
# (tests/cpus.sh, glibc's libm builds, N115); cowsim's threads under ThreadSanitizer
# (tests/tsan.sh, as CI runs it); every libFuzzer harness for SECONDS each
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
echo "== release: an -O3 build (CMAKE_BUILD_TYPE=Release, build-o3) with warnings as errors"
# -O3's deeper inlining finds warnings the shipped -O2 build does not
# (-Wmaybe-uninitialized, -Wformat-truncation); a user's Release build with
# CS_WERROR must still build.
# CS_WERROR makes any warning fail the build; the log's warnings are shown.
{ cmake -S . -B build-o3 -DCMAKE_BUILD_TYPE=Release -DCS_WERROR=ON > /dev/null &&
    { cmake --build build-o3 -j"${JOBS:-$(nproc)}" > build-o3/build.log 2>&1 ||
        { grep -E 'warning:|error:' build-o3/build.log; false; }; }; } || status=1
echo "== release: GCC's build and clang's give the same datasets (tests/compilers.sh)"
tests/compilers.sh || status=1
echo "== release: this CPU and one with SSE2 only give the same datasets (tests/cpus.sh, build-gcc-rel)"
tests/cpus.sh build-gcc-rel/cowsim || status=1
echo "== release: cowsim under ThreadSanitizer (tests/tsan.sh, build-tsan)"
JOBS=${JOBS:-$(nproc)} tests/tsan.sh build-tsan || status=1
echo "== release: the incremental ranking against the full re-ranking, eip1559 (the mechanism that uses it):"
echo "   300 histories of 160 blocks and 10 of 3,000 per parameter set (test_rank, build-asan)"
soak() {
    out=$(env CS_TEST_RANK_MECH=eip1559 "$@" build-asan/test_rank 2>&1) || {
        printf '%s\n' "$out" | tail -20
        return 1
    }
    printf '%s\n' "$out" | tail -1
}
{ soak CS_TEST_RANK_SEEDS=300 && soak CS_TEST_RANK_SEEDS=10 CS_TEST_RANK_BLOCKS=3000; } || status=1
echo "== release: fuzzing each harness for $SECS s"
JOBS=${JOBS:-$(nproc)} tests/fuzz/run.sh "$SECS" build-fuzz || status=1
echo "== release: coverage (tests/coverage.sh)"
tests/coverage.sh build-cov || status=1
echo "== release: mutants (tests/mutants.sh)"
tests/mutants.sh || status=1
echo "== release: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
