#!/usr/bin/env bash
# tests/cpus.sh [COWSIM] [DIR] -- the same outputs on every x86_64 CPU
# (sim/cs_libm.h, DESIGN-NOTES N115).
#
# glibc picks its libm builds by the CPU, and cowsim pins them to the
# builds without fused multiply-adds.  This runs every shipped scenario
# under every mechanism (bench/outputs_digest.sh, about 10 minutes on 2
# cores) twice, side by side: as this machine is, and with glibc told the
# CPU has neither FMA nor AVX (GLIBC_TUNABLES, so its SSE2 builds run, as
# on a CPU from before 2011 or a VM with a plain CPU model), into DIR/here
# and DIR/sse2 (default DIR: a temporary directory, removed after), and
# fails on any dataset whose bytes differ, on any run that failed, or when
# the two ran different counts.  tests/test_libm_pin.sh makes the same
# check on one scenario in the suite.  Part of tests/release.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
BIN=${1:-build/cowsim}
[ -x "$BIN" ] || { echo "cpus: $BIN is not an executable (build cowsim first)"; exit 1; }
DIR=${2:-}
[ -n "$DIR" ] || { DIR=$(mktemp -d) && trap 'rm -rf "$DIR"' EXIT; } || exit 1
mkdir -p "$DIR" || exit 1
rm -rf "${DIR:?}/here" "${DIR:?}/sse2"
bash bench/outputs_digest.sh "$BIN" "$DIR/here" > "$DIR/here.log" 2>&1 &
GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-FMA,-FMA4 \
    bash bench/outputs_digest.sh "$BIN" "$DIR/sse2" > "$DIR/sse2.log" 2>&1
wait
for c in here sse2; do tail -1 "$DIR/$c.log" | sed "s/^/cpus: $c: /"; done
bash tests/cs_digest_cmp.sh cpus "$DIR/here/DIGEST" "$DIR/sse2/DIGEST" \
    "the same bytes on this CPU and on one with SSE2 only ($("$BIN" --version | sed -n 's/^libm: //p'))"
