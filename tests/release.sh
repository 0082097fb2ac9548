#!/usr/bin/env bash
# tests/release.sh [SECONDS] -- the release suite's long runs, beyond what
# .ci/run does in its budget: every libFuzzer harness for SECONDS each
# (default 600; CI fuzzes 20 s each), in build-fuzz; then the suite's line
# and branch coverage against its targets (tests/coverage.sh, build-cov)
# and the mutation score of tests/mutants.txt (tests/mutants.sh,
# build-mut), one after the other.  Run it before a release from a checkout
# with the packages of .ci/install-deps --ci.
# Exit status: 0 when every part passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
SECS=${1:-600}
status=0
echo "== release: fuzzing each harness for $SECS s"
JOBS=${JOBS:-$(nproc)} tests/fuzz/run.sh "$SECS" build-fuzz || status=1
echo "== release: coverage (tests/coverage.sh)"
tests/coverage.sh build-cov || status=1
echo "== release: mutants (tests/mutants.sh)"
tests/mutants.sh || status=1
echo "== release: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
